"""CLUSTER: the generator and the generator-Bayes sampler with block swaps (Table 4, Appendix E)."""
