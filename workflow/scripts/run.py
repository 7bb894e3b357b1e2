"""The one script every rule runs: hand Snakemake's job object to the library function in params.entry."""

from graphaudit.common.rule import run_rule

run_rule(snakemake)  # noqa: F821  (``snakemake`` is injected by Snakemake's script directive)
