# glad study, part 2: deep detectors recorded at every evaluation point, the selection replay and its statistics.
from graphaudit.data.code import code_available, get_code_spec
from graphaudit.data.fetch import FetchOptions
from graphaudit.glad.deep import UBGOLD_CODE, backend_of, load_catalogue, uses_ubgold

DEEP = GLAD.get("deep", {})
DEEP_DETECTORS = list(DEEP.get("detectors", []))
DEEP_DATASETS = list(DEEP.get("datasets", []))
DEEP_SETTINGS = list(DEEP.get("settings", ["tuned", "default"]))
DEEP_FOLDS = DEEP.get("folds") or list(range(GLAD["protocol"]["folds"]))
RECORDS = "results/glad/records/{backend}/{detector}/{dataset}/{setting}/fold{fold}"
UBGOLD_SOURCE = f"data/code/{UBGOLD_CODE}/SOURCE.json"
UBGOLD_AVAILABLE = code_available(
    get_code_spec(UBGOLD_CODE), Path("data/code"), FetchOptions.from_config(config["data"])
)
DEEP_BACKEND = {
    d: backend_of(
        load_catalogue(DEEP.get("catalogue", "config/glad/detectors.yaml")),
        d,
        DEEP.get("backend", "auto"),
        UBGOLD_AVAILABLE,
    )
    for d in DEEP_DETECTORS
}


def deep_params(*keys):
    """Only the settings a rule reads, so changing another (the detector list) reruns nothing."""
    return {key: DEEP[key] for key in keys if key in DEEP}


def deep_runs(wildcards):
    return expand(
        f"{RECORDS}/run.json",
        backend=DEEP_BACKEND[wildcards.detector],
        detector=wildcards.detector,
        dataset=wildcards.dataset,
        setting=DEEP_SETTINGS,
        fold=DEEP_FOLDS,
    )


def backend_code(wildcards):
    """UB-GOLD's verified tree, for runs of the ubgold backend only."""
    return {"code": UBGOLD_SOURCE} if wildcards.backend == "ubgold" else {}


def ubgold_code(wildcards):
    """UB-GOLD's verified tree where the configured backend may use it (the bench's peer rows)."""
    return {"code": UBGOLD_SOURCE} if uses_ubgold(DEEP.get("backend", "auto"), UBGOLD_AVAILABLE) else {}


def deep_replays(name):
    return expand(
        "results/glad/replay/{detector}/{dataset}/{name}.csv", detector=DEEP_DETECTORS, dataset=DEEP_DATASETS, name=name
    )


rule glad_train:
    input:
        unpack(backend_code),
        graphsets=glad_graphsets,
        folds="results/glad/folds/{dataset}.json",
        catalogue=DEEP.get("catalogue", "config/glad/detectors.yaml"),
    output:
        run=f"{RECORDS}/run.json",
    log:
        "logs/glad/train/{backend}/{detector}_{dataset}_{setting}_fold{fold}.log",
    benchmark:
        "benchmarks/glad/train/{backend}/{detector}_{dataset}_{setting}_fold{fold}.tsv"
    wildcard_constraints:
        setting="tuned|default",
        fold=r"\d+",
        backend="ubgold|own",
    conda:
        ENV
    threads: DEEP.get("threads", 1)
    resources:
        mem_mb=8000,
        runtime=600,
    params:
        entry="graphaudit.glad.deep_tasks:train_run",
        deep=deep_params("device", "max_epochs", "checkpoint_every_s", "threads", "test_rng", "memory_budget_gb"),
        constant_features=GLAD["constant_features"],
    script:
        RUN


rule glad_replay:
    input:
        graphsets=glad_graphsets,
        folds="results/glad/folds/{dataset}.json",
        catalogue=DEEP.get("catalogue", "config/glad/detectors.yaml"),
        runs=deep_runs,
    output:
        protocols="results/glad/replay/{detector}/{dataset}/protocols.csv",
        curves="results/glad/replay/{detector}/{dataset}/curves.csv",
        null="results/glad/replay/{detector}/{dataset}/null.csv",
        size_matched="results/glad/replay/{detector}/{dataset}/size_matched.csv",
    log:
        "logs/glad/replay/{detector}_{dataset}.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.deep_tasks:replay_detector",
        deep=deep_params("permutations", "size_matching"),
    script:
        RUN


rule glad_deep_tables:
    input:
        protocols=deep_replays("protocols"),
        null=deep_replays("null"),
        size_matched=deep_replays("size_matched"),
        references=rules.glad_tables.output.references,
        kernels=rules.glad_tables.output.kernels,
    output:
        leaderboard="results/glad/tables/leaderboard.csv",
        leakage="results/glad/tables/leakage.csv",
        hp_gap="results/glad/tables/hp_gap.csv",
        kendall="results/glad/tables/kendall.csv",
        decisions="results/glad/tables/decisions.csv",
        robustness="results/glad/tables/robustness.csv",
        friedman="results/glad/tables/friedman.csv",
        pairwise="results/glad/tables/pairwise.csv",
        perm_null="results/glad/tables/perm_null.csv",
        size_matched="results/glad/tables/size_matched.csv",
        table2="results/glad/tables/table2.csv",
        table23="results/glad/tables/table23.csv",
        table24="results/glad/tables/table24.csv",
        table25="results/glad/tables/table25.csv",
        table26="results/glad/tables/table26.csv",
        table27="results/glad/tables/table27.csv",
        table30="results/glad/tables/table30.csv",
        table31="results/glad/tables/table31.csv",
        table32="results/glad/tables/table32.csv",
        table33="results/glad/tables/table33.csv",
        table34="results/glad/tables/table34.csv",
    log:
        "logs/glad/deep_tables.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.deep_tasks:deep_tables",
        deep=deep_params("bootstrap", "size_matching"),
    script:
        RUN


rule glad_deep_figures:
    input:
        table23=rules.glad_deep_tables.output.table23,
        leakage=rules.glad_deep_tables.output.leakage,
        hp_gap=rules.glad_deep_tables.output.hp_gap,
    output:
        fig3="results/glad/figures/fig3.png",
        fig4="results/glad/figures/fig4.png",
        fig5="results/glad/figures/fig5.png",
    log:
        "logs/glad/deep_figures.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.deep_tasks:deep_figures",
    script:
        RUN


rule glad_detectors:
    input:
        rules.glad_deep_tables.output,
        rules.glad_deep_figures.output,


rule fig3_glad:
    input:
        rules.glad_deep_figures.output.fig3,


rule fig4_glad:
    input:
        rules.glad_deep_figures.output.fig4,


rule fig5_glad:
    input:
        rules.glad_deep_figures.output.fig5,


rule glad_decisions:
    input:
        rules.glad_deep_tables.output.decisions,


rule table2_glad:
    input:
        rules.glad_deep_tables.output.table2,


rule table23_glad:
    input:
        rules.glad_deep_tables.output.table23,


rule table24_glad:
    input:
        rules.glad_deep_tables.output.table24,


rule table25_glad:
    input:
        rules.glad_deep_tables.output.table25,


rule table26_glad:
    input:
        rules.glad_deep_tables.output.table26,


rule table27_glad:
    input:
        rules.glad_deep_tables.output.table27,


rule table30_glad:
    input:
        rules.glad_deep_tables.output.table30,


rule table31_glad:
    input:
        rules.glad_deep_tables.output.table31,


rule table32_glad:
    input:
        rules.glad_deep_tables.output.table32,


rule table33_glad:
    input:
        rules.glad_deep_tables.output.table33,


rule table34_glad:
    input:
        rules.glad_deep_tables.output.table34,
