"""Metrics, bootstraps, rank tests and ratings shared by the studies."""
