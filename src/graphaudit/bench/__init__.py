"""Benchmarks: our implementation against the peer a user would otherwise pick, on the same inputs."""
