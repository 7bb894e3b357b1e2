"""Utilities every study uses: stable seeds, atomic writes, records, logging and progress."""
