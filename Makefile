# The two README commands: `make reproduce` (every study's tables, figures and report) and `make test` (the suite).
# Each creates .venv and installs what it needs; torch==2.13.0 is installed first, from TORCH_INDEX when set
# (e.g. https://download.pytorch.org/whl/cu128 for a CUDA 12.8 build, .../whl/cpu for a CPU-only one), else from
# the package index: PyPI's Linux wheel is a CUDA build, so a GPU machine needs nothing set.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
CORES ?= all
TORCH_INDEX ?=
STAMP := $(VENV)/.installed
# every workflow job is a new Python process importing the package: with bytecode caching off (an environment that
# sets PYTHONDONTWRITEBYTECODE) each one compiles the modules it imports again, about 0.3 s of CPU a job
unexport PYTHONDONTWRITEBYTECODE
# the tier `make reproduce` runs: quick (config/config.yaml alone), ci (the tiny tier of the workflow test) or
# paper (the papers' scale); each is config/config.yaml with config/<tier>.yaml read on top (quick: nothing on top)
TIER ?= quick
TIER_CONFIG := $(if $(filter quick,$(TIER)),,--configfile config/$(TIER).yaml)
# the local run's jobs together stay within the machine's memory: Snakemake packs them by each rule's mem_mb
MEM_MB ?= $(shell awk '/^MemTotal/ {print int($$2 / 1024)}' /proc/meminfo 2>/dev/null)

.PHONY: install reproduce report lint test test-slurm gpu-check clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "torch==2.13.0" $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

# a lock left by a killed run is removed first when no Snakemake runs here (graphaudit.common.locks), with a line saying so
# the end of every run, failed or not, is the report of what is done (results/report/partial/index.html)
reproduce: install
	test "$(TIER)" = quick || test -f config/$(TIER).yaml || { echo "TIER=$(TIER): no config/$(TIER).yaml (tiers: quick, ci, paper)"; exit 2; }
	$(BIN)/graphaudit unlock
	$(BIN)/snakemake --cores $(CORES) --workflow-profile workflow/profiles/default $(if $(MEM_MB),--resources mem_mb=$(MEM_MB)) $(TIER_CONFIG); \
	status=$$?; $(REPORT_PARTIAL); exit $$status

# the report of whatever is done so far, also while a run goes on: claims whose tables are not there yet are PENDING
REPORT_PARTIAL = $(BIN)/snakemake report_partial --forcerun report_partial --nolock --cores 1 --quiet rules $(TIER_CONFIG)
report: install
	$(REPORT_PARTIAL)

# ruff (lint + format), snakefmt and Snakemake's own linter on the default and paper configs: all clean
lint: install
	$(BIN)/ruff check src tests workflow/scripts
	$(BIN)/ruff format --check src tests workflow/scripts
	$(BIN)/snakefmt --check Snakefile workflow/rules
	$(BIN)/snakemake --lint --configfile config/config.yaml
	$(BIN)/snakemake --lint --configfile config/paper.yaml

test: install lint
	$(BIN)/python -m pytest -q

# The SLURM profile on a real one-node cluster (../shared/tools/slurm-local.sh, root on Debian 12): start it, run
# the ci config through workflow/profiles/slurm and locally, compare, stop it. SLURM_STUDIES=glad narrows the DAG.
SLURM_LOCAL ?= ../shared/tools/slurm-local.sh
SLURM_ACCOUNT ?= test
SLURM_STUDIES ?=
test-slurm: install
	partition=$$(SLURM_LOCAL_ACCOUNT=$(SLURM_ACCOUNT) bash $(SLURM_LOCAL)) || exit 1; \
	GRAPHAUDIT_TEST_SLURM=1 GRAPHAUDIT_SLURM_ACCOUNT=$(SLURM_ACCOUNT) GRAPHAUDIT_SLURM_PARTITION=$$partition \
	GRAPHAUDIT_TEST_SLURM_STUDIES=$(SLURM_STUDIES) $(BIN)/python -m pytest -q tests/workflow/test_slurm.py; \
	status=$$?; bash $(SLURM_LOCAL) stop; exit $$status

# The GPU path (graphaudit.nn.device_check): every trained model a few epochs on the CPU and on CUDA from the same
# seed, per-epoch losses compared (rtol 1e-3, atol 1e-4); report in results/gpu_check/report.md and .json; non-zero
# on a mismatch or an error. Without CUDA only the CPU half runs (exit 0). GPU_CHECK_ARGS="--only GLADC" narrows it.
GPU_CHECK_ARGS ?=
gpu-check: install
	$(BIN)/graphaudit gpu-check $(GPU_CHECK_ARGS)

clean:
	rm -rf results logs benchmarks .snakemake
