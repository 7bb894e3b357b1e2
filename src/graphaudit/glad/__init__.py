"""The glad study: UB-GOLD graph-level anomaly detection re-evaluated (paper 002)."""
