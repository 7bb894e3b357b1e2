"""Backend ``ubgold``: UB-GOLD's own detector modules, imported from a verified tree and run by the trainer."""
