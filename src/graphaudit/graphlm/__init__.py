"""The graphlm study: graph language models vs memorization (paper 003)."""
