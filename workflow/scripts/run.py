"""The one script every rule runs: hand Snakemake's job object to the library function in params.entry."""

import sys
from pathlib import Path

try:
    from graphaudit.common.rule import run_rule
except ImportError:  # a conda environment (--sdm conda) holds the dependencies; the package is this checkout's
    sys.path.insert(0, str(Path(snakemake.scriptdir).parents[1] / "src"))  # noqa: F821
    from graphaudit.common.rule import run_rule

run_rule(snakemake)  # noqa: F821  (``snakemake`` is injected by Snakemake's script directive)
