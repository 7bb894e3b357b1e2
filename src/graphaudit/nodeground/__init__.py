"""NodeGround (paper 001): node classification with controlled search, validation-only selection, and the
analysis layer (cohorts with GCN-Default imputation, Elo, mean rank, Mean Improvability, agreements, win rates,
Wilcoxon-Holm, tuning budgets, frontiers, subgroups) computed from run-level trial records only."""
