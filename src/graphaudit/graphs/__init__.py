"""Structural graph statistics over a GraphSet: graphlet counts and Weisfeiler-Lehman signatures."""
