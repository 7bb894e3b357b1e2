# glad study, part 2: deep detectors recorded at every evaluation point, the selection replay, its tables and
# figures. Reads GLAD, GLAD_CONFIG and part 1's tables from glad.smk (the root Snakefile includes that first); the
# study target `glad` is in glad_typed.smk, the last glad rule file.
import graphaudit.glad.layout as glad_layout
from graphaudit.common.settings import config_slice
from graphaudit.common.workflow import gpus_for
from graphaudit.glad.settings import TrainingSettings

GLAD_DEEP_CONFIG = GLAD_CONFIG["deep"]
GLAD_DEEP = glad_layout.DeepRuns.resolve(GLAD, glad_layout.ubgold_available(config["data"]))
GLAD_PROTOCOLS = GLAD_DEEP.replays("protocols")
GLAD_PART1 = {"references": rules.references_glad.output.table, "kernels": rules.kernels_glad.output.table}
ubgold_code = GLAD_DEEP.ubgold_code  # input function of bench.smk's bench_glad_training


rule train_run_glad:
    input:
        unpack(glad_layout.backend_code),
        graphsets=glad_layout.graphsets,
        folds="results/glad/folds/{dataset}.json",
        catalogue=GLAD.deep.catalogue,
    output:
        run=f"{glad_layout.RECORDS}/run.json",
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
    threads: GLAD.deep.threads
    resources:
        mem_mb=8000,
        runtime=600,
        gpu=gpus_for(GLAD_DEEP_CONFIG["device"]),  # one GPU only when glad.deep.device names CUDA
    params:
        entry="graphaudit.glad.deep_tasks:train_run",
        training=config_slice(TrainingSettings, GLAD_DEEP_CONFIG),
        constant_features=GLAD_CONFIG["constant_features"],
    script:
        RUN


rule replay_detector_glad:
    input:
        graphsets=glad_layout.graphsets,
        folds="results/glad/folds/{dataset}.json",
        catalogue=GLAD.deep.catalogue,
        runs=GLAD_DEEP.runs,
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
        permutations=GLAD_DEEP_CONFIG["permutations"],
        caliper=GLAD_DEEP_CONFIG["size_matching"]["caliper"],
    script:
        RUN


# The minority-class re-run (paper F.11): the same folds, training and replay with the least frequent class
# anomalous, under results/glad/minority/ (glad.deep.minority); robustness.csv reports its leakage.
use rule make_folds_glad as minority_folds_glad with:
    output:
        folds=glad_layout.MINORITY_FOLDS,
    log:
        "logs/glad/minority/folds_{dataset}.log",
    params:
        entry="graphaudit.glad.tasks:minority_folds",
        protocol=GLAD_CONFIG["protocol"],


use rule train_run_glad as minority_train_glad with:
    input:
        unpack(glad_layout.backend_code),
        graphsets=glad_layout.graphsets,
        folds=glad_layout.MINORITY_FOLDS,
        catalogue=GLAD.deep.catalogue,
    output:
        run=f"{glad_layout.MINORITY_RECORDS}/run.json",
    log:
        "logs/glad/minority/train/{backend}/{detector}_{dataset}_{setting}_fold{fold}.log",
    benchmark:
        "benchmarks/glad/minority/train/{backend}/{detector}_{dataset}_{setting}_fold{fold}.tsv"
    params:
        entry="graphaudit.glad.deep_tasks:minority_train",
        training=config_slice(TrainingSettings, GLAD_DEEP_CONFIG),
        constant_features=GLAD_CONFIG["constant_features"],


use rule replay_detector_glad as minority_replay_glad with:
    input:
        graphsets=glad_layout.graphsets,
        folds=glad_layout.MINORITY_FOLDS,
        catalogue=GLAD.deep.catalogue,
        runs=GLAD_DEEP.minority_runs,
    output:
        protocols=f"{glad_layout.MINORITY_REPLAY_DIR}/protocols.csv",
        curves=f"{glad_layout.MINORITY_REPLAY_DIR}/curves.csv",
        null=f"{glad_layout.MINORITY_REPLAY_DIR}/null.csv",
        size_matched=f"{glad_layout.MINORITY_REPLAY_DIR}/size_matched.csv",
    log:
        "logs/glad/minority/replay/{detector}_{dataset}.log",
    params:
        entry="graphaudit.glad.deep_tasks:minority_replay",
        permutations=GLAD_DEEP_CONFIG["permutations"],
        caliper=GLAD_DEEP_CONFIG["size_matching"]["caliper"],


rule leaderboard_glad:
    input:
        protocols=GLAD_PROTOCOLS,
    output:
        table=report_output("results/glad/tables/leaderboard.csv", "glad", "tables"),
    log:
        "logs/glad/tables/leaderboard.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:leaderboard",
    script:
        RUN


rule leakage_glad:
    input:
        protocols=GLAD_PROTOCOLS,
    output:
        table=report_output("results/glad/tables/leakage.csv", "glad", "tables"),
    log:
        "logs/glad/tables/leakage.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:leakage",
        bootstrap=GLAD_DEEP_CONFIG["bootstrap"],
    script:
        RUN


rule hp_gap_glad:
    input:
        protocols=GLAD_PROTOCOLS,
    output:
        table=report_output("results/glad/tables/hp_gap.csv", "glad", "tables"),
    log:
        "logs/glad/tables/hp_gap.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:hp_gap",
        bootstrap=GLAD_DEEP_CONFIG["bootstrap"],
    script:
        RUN


rule kendall_glad:
    input:
        protocols=GLAD_PROTOCOLS,
    output:
        table=report_output("results/glad/tables/kendall.csv", "glad", "tables"),
    log:
        "logs/glad/tables/kendall.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:kendall",
        bootstrap=GLAD_DEEP_CONFIG["bootstrap"],
    script:
        RUN


rule decisions_glad:
    input:
        protocols=GLAD_PROTOCOLS,
    output:
        table=report_output("results/glad/tables/decisions.csv", "glad", "tables"),
    log:
        "logs/glad/tables/decisions.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:decisions",
        bootstrap=GLAD_DEEP_CONFIG["bootstrap"],
    script:
        RUN


rule friedman_glad:
    input:
        protocols=GLAD_PROTOCOLS,
    output:
        table=report_output("results/glad/tables/friedman.csv", "glad", "tables"),
    log:
        "logs/glad/tables/friedman.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:friedman",
    script:
        RUN


rule pairwise_glad:
    input:
        protocols=GLAD_PROTOCOLS,
    output:
        table=report_output("results/glad/tables/pairwise.csv", "glad", "tables"),
    log:
        "logs/glad/tables/pairwise.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:pairwise",
    script:
        RUN


rule perm_null_glad:
    input:
        protocols=GLAD_PROTOCOLS,
        null=GLAD_DEEP.replays("null"),
    output:
        table=report_output("results/glad/tables/perm_null.csv", "glad", "tables"),
    log:
        "logs/glad/tables/perm_null.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:perm_null",
    script:
        RUN


rule size_matched_glad:
    input:
        size_matched=GLAD_DEEP.replays("size_matched"),
    output:
        table=report_output("results/glad/tables/size_matched.csv", "glad", "tables"),
    log:
        "logs/glad/tables/size_matched.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:size_matched",
        min_retained=GLAD_DEEP_CONFIG["size_matching"]["min_retained"],
    script:
        RUN


rule robustness_glad:
    input:
        protocols=GLAD_PROTOCOLS,
        minority=GLAD_DEEP.minority_replays("protocols"),
    output:
        table=report_output("results/glad/tables/robustness.csv", "glad", "tables"),
    log:
        "logs/glad/tables/robustness.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:robustness",
    script:
        RUN


rule table2_glad:
    input:
        **GLAD_PART1,
        protocols=GLAD_PROTOCOLS,
    output:
        table=report_output("results/glad/tables/table2.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table2.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table2",
        bootstrap=GLAD_DEEP_CONFIG["bootstrap"],
    script:
        RUN


rule table23_glad:
    input:
        **GLAD_PART1,
        protocols=GLAD_PROTOCOLS,
    output:
        table=report_output("results/glad/tables/table23.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table23.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table23",
        bootstrap=GLAD_DEEP_CONFIG["bootstrap"],
    script:
        RUN


rule table24_glad:
    input:
        **GLAD_PART1,
        protocols=GLAD_PROTOCOLS,
    output:
        table=report_output("results/glad/tables/table24.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table24.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table24",
    script:
        RUN


rule table25_glad:
    input:
        **GLAD_PART1,
        protocols=GLAD_PROTOCOLS,
    output:
        table=report_output("results/glad/tables/table25.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table25.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table25",
    script:
        RUN


rule table26_glad:
    input:
        **GLAD_PART1,
        protocols=GLAD_PROTOCOLS,
    output:
        table=report_output("results/glad/tables/table26.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table26.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table26",
    script:
        RUN


rule table27_glad:
    input:
        **GLAD_PART1,
        protocols=GLAD_PROTOCOLS,
    output:
        table=report_output("results/glad/tables/table27.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table27.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table27",
    script:
        RUN


rule table30_glad:
    input:
        protocols=GLAD_PROTOCOLS,
    output:
        table=report_output("results/glad/tables/table30.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table30.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table30",
        bootstrap=GLAD_DEEP_CONFIG["bootstrap"],
    script:
        RUN


rule table31_glad:
    input:
        protocols=GLAD_PROTOCOLS,
    output:
        table=report_output("results/glad/tables/table31.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table31.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table31",
    script:
        RUN


rule table32_glad:
    input:
        protocols=GLAD_PROTOCOLS,
    output:
        table=report_output("results/glad/tables/table32.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table32.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table32",
        bootstrap=GLAD_DEEP_CONFIG["bootstrap"],
    script:
        RUN


rule table33_glad:
    input:
        protocols=GLAD_PROTOCOLS,
    output:
        table=report_output("results/glad/tables/table33.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table33.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table33",
    script:
        RUN


rule table34_glad:
    input:
        protocols=GLAD_PROTOCOLS,
    output:
        table=report_output("results/glad/tables/table34.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table34.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table34",
    script:
        RUN


rule fig3_glad:
    input:
        table23=rules.table23_glad.output.table,
    output:
        figure=report_output("results/glad/figures/fig3.png", "glad", "figures"),
    log:
        "logs/glad/figures/fig3.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.figures:fig3",
    script:
        RUN


rule fig4_glad:
    input:
        leakage=rules.leakage_glad.output.table,
    output:
        figure=report_output("results/glad/figures/fig4.png", "glad", "figures"),
    log:
        "logs/glad/figures/fig4.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.figures:fig4",
    script:
        RUN


rule fig5_glad:
    input:
        hp_gap=rules.hp_gap_glad.output.table,
    output:
        figure=report_output("results/glad/figures/fig5.png", "glad", "figures"),
    log:
        "logs/glad/figures/fig5.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.figures:fig5",
    script:
        RUN


rule glad_detectors:
    input:
        rules.leaderboard_glad.output,
        rules.leakage_glad.output,
        rules.hp_gap_glad.output,
        rules.kendall_glad.output,
        rules.decisions_glad.output,
        rules.friedman_glad.output,
        rules.pairwise_glad.output,
        rules.perm_null_glad.output,
        rules.size_matched_glad.output,
        rules.robustness_glad.output,
        rules.table2_glad.output,
        rules.table23_glad.output,
        rules.table24_glad.output,
        rules.table25_glad.output,
        rules.table26_glad.output,
        rules.table27_glad.output,
        rules.table30_glad.output,
        rules.table31_glad.output,
        rules.table32_glad.output,
        rules.table33_glad.output,
        rules.table34_glad.output,
        rules.fig3_glad.output,
        rules.fig4_glad.output,
        rules.fig5_glad.output,
