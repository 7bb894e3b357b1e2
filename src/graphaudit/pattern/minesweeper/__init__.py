"""Minesweeper: the board, belief propagation and the strip sampler (Table 4, Table 15, Appendix F)."""
