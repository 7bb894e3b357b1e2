# The two README commands: `make reproduce` (everything) and `make test` (the test suite).
# Each creates .venv and installs what it needs; torch==2.13.0 is installed first so no CUDA build is pulled.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
CORES ?= all
STAMP := $(VENV)/.installed

.PHONY: install reproduce lint test clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "torch==2.13.0"
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

reproduce: install
	$(BIN)/snakemake --cores $(CORES)

# ruff (lint + format), snakefmt and Snakemake's own linter on the default and paper configs: all clean
lint: install
	$(BIN)/ruff check src tests workflow/scripts
	$(BIN)/ruff format --check src tests workflow/scripts
	$(BIN)/snakefmt --check Snakefile workflow/rules
	$(BIN)/snakemake --lint --configfile config/config.yaml
	$(BIN)/snakemake --lint --configfile config/paper.yaml

test: install lint
	$(BIN)/python -m pytest -q

clean:
	rm -rf results logs benchmarks .snakemake
