"""Frequent subgraph mining (gSpan) over labelled graph databases."""
