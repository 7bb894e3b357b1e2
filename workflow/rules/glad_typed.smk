# glad study, part 4: typed anomalies. The GX sets (spec 4.13) and, with glad.typed.molswap.enabled (NCI1: mirror or
# network), MolSwap v1 and the 26 MS-v2 candidates (4.15) are generated under data/generated/glad/, their controls
# (4.14) under results/glad/typed/; Tables 12-14 and the validation read them. The typed evaluation (4.16) trains each
# detector of glad.typed.evaluation per typed set and seed (results/glad/typed/records/), replays Val-Normal per type
# (results/glad/typed/replay/) and gives Tables 3, 15-18. Reads GLAD, GLAD_CONFIG, GLAD_DEEP_CONFIG and the part 1-3
# aggregates from glad.smk and glad_deep.smk (the root Snakefile includes those first); ends with the study target.
import graphaudit.glad.layout as glad_layout
import graphaudit.glad.molswap_designs as glad_molswap
from graphaudit.common.settings import config_slice
from graphaudit.common.workflow import gpus_for
from graphaudit.glad.molswap_designs import molswap_sets, validated_types
from graphaudit.glad.settings import TrainingSettings

GLAD_TYPED = GLAD.typed
GLAD_GX_SEEDS = GLAD_TYPED.gx.seeds
GLAD_MS_SEEDS = GLAD_TYPED.molswap.seeds
GLAD_GX_CONTROLS = expand(glad_layout.GX_CONTROLS, seed=GLAD_GX_SEEDS)
GLAD_NCI1 = f"data/processed/{glad_molswap.DATASET}.npz"
GLAD_MS_POOL = f"{glad_layout.MOLSWAP}/pool.json"
GLAD_MS_VALIDATED = validated_types()  # (group, type, candidate): MS-v2's final types, then v1's
GLAD_MS_FINAL = glad_layout.molswap_controls(glad_molswap.FINAL_TYPES.values())
GLAD_MS_ON = GLAD_TYPED.molswap.enabled
GLAD_EVAL = GLAD_TYPED.evaluation
GLAD_EVAL_CONFIG = GLAD_CONFIG["typed"]["evaluation"]
GLAD_TYPED_RUNS = glad_layout.TypedRuns.resolve(GLAD, glad_layout.ubgold_available(config["data"]))
GLAD_TYPED_REPLAYS = GLAD_TYPED_RUNS.replays()


rule gx_set_glad:
    output:
        graphs=f"{glad_layout.GX_SET}/graphs.npz",
        metadata=f"{glad_layout.GX_SET}/metadata.json",
        folds=f"{glad_layout.GX_SET}/folds.json",
    log:
        "logs/glad/typed/gx_{features}_seed{seed}.log",
    benchmark:
        "benchmarks/glad/typed/gx_{features}_seed{seed}.tsv"
    wildcard_constraints:
        features="F1|F2",
        seed=r"\d+",
    conda:
        ENV
    params:
        entry="graphaudit.glad.typed_tasks:gx_set",
        sizes=glad_layout.gx_sizes(GLAD_CONFIG),
    script:
        RUN


rule gx_controls_glad:
    input:
        graphs=glad_layout.gx_set_file(GLAD_TYPED.gx.control_features, "graphs.npz"),
        folds=glad_layout.gx_set_file(GLAD_TYPED.gx.control_features, "folds.json"),
    output:
        controls=glad_layout.GX_CONTROLS,
    log:
        "logs/glad/typed/gx_controls_seed{seed}.log",
    benchmark:
        "benchmarks/glad/typed/gx_controls_seed{seed}.tsv"
    wildcard_constraints:
        seed=r"\d+",
    conda:
        ENV
    params:
        entry="graphaudit.glad.typed_tasks:gx_controls",
        max_k=GLAD_CONFIG["references"]["max_k"],
    script:
        RUN


rule molswap_pool_glad:
    input:
        graphset=GLAD_NCI1,
    output:
        pool=GLAD_MS_POOL,
    log:
        "logs/glad/typed/molswap_pool.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.typed_tasks:molswap_pool",
        seeds=GLAD_MS_SEEDS,
    script:
        RUN


rule molswap_set_glad:
    input:
        graphset=GLAD_NCI1,
        pool=GLAD_MS_POOL,
    output:
        anomalies=glad_layout.per_seed(f"{glad_layout.MOLSWAP_SET}/anomalies.npz", GLAD_MS_SEEDS),
        size_changing=glad_layout.per_seed(f"{glad_layout.MOLSWAP_SET}/size_changing.npz", GLAD_MS_SEEDS),
        records=glad_layout.per_seed(f"{glad_layout.MOLSWAP_SET}/records.json", GLAD_MS_SEEDS),
    log:
        "logs/glad/typed/molswap_{pool}_{family}_k{k}.log",
    benchmark:
        "benchmarks/glad/typed/molswap_{pool}_{family}_k{k}.tsv"
    wildcard_constraints:
        pool="P0|P56",
        family="[A-FS]",
        k="1|2|all",
    conda:
        ENV
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        entry="graphaudit.glad.typed_tasks:molswap_set",
        seeds=GLAD_MS_SEEDS,
    script:
        RUN


rule molswap_controls_glad:
    input:
        graphset=GLAD_NCI1,
        pool=GLAD_MS_POOL,
        anomalies=glad_layout.per_seed(f"{glad_layout.MOLSWAP_SET}/anomalies.npz", GLAD_MS_SEEDS),
        size_changing=glad_layout.per_seed(f"{glad_layout.MOLSWAP_SET}/size_changing.npz", GLAD_MS_SEEDS),
        records=glad_layout.per_seed(f"{glad_layout.MOLSWAP_SET}/records.json", GLAD_MS_SEEDS),
    output:
        controls=glad_layout.MOLSWAP_CONTROLS,
    log:
        "logs/glad/typed/molswap_controls_{pool}_{family}_k{k}.log",
    benchmark:
        "benchmarks/glad/typed/molswap_controls_{pool}_{family}_k{k}.tsv"
    wildcard_constraints:
        pool="P0|P56",
        family="[A-FS]",
        k="1|2|all",
    conda:
        ENV
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        entry="graphaudit.glad.typed_tasks:molswap_controls",
        seeds=GLAD_MS_SEEDS,
        max_k=GLAD_CONFIG["references"]["max_k"],
    script:
        RUN


rule validate_molswap_glad:
    input:
        **glad_layout.molswap_validation_inputs(GLAD_MS_VALIDATED, GLAD_MS_SEEDS),
        graphset=GLAD_NCI1,
        pool=GLAD_MS_POOL,
    output:
        checks=f"{glad_layout.TYPED}/molswap/validation.csv",
    log:
        "logs/glad/typed/validate_molswap.log",
    benchmark:
        "benchmarks/glad/typed/validate_molswap.tsv"
    conda:
        ENV
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        entry="graphaudit.glad.typed_tasks:validate_molswap",
        types=[[group, name, candidate.name] for group, name, candidate in GLAD_MS_VALIDATED],
        seeds=GLAD_MS_SEEDS,
    script:
        RUN


rule gx_sets_glad:
    input:
        metadata=expand(f"{glad_layout.GX_SET}/metadata.json", features=GLAD_TYPED.gx.features, seed=GLAD_GX_SEEDS),
    output:
        table=report_output("results/glad/tables/gx_sets.csv", "glad", "tables"),
    log:
        "logs/glad/tables/gx_sets.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:gx_sets",
    script:
        RUN


rule typed_controls_glad:
    input:
        gx=GLAD_GX_CONTROLS,
        molswap=glad_layout.molswap_controls(molswap_sets()) if GLAD_MS_ON else [],
    output:
        table=report_output("results/glad/tables/typed_controls.csv", "glad", "tables"),
    log:
        "logs/glad/tables/typed_controls.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:typed_controls",
    script:
        RUN


rule table12_glad:
    input:
        controls=glad_layout.molswap_controls(glad_molswap.V1_TYPES.values()),
    output:
        table=report_output("results/glad/tables/table12.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table12.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table12",
    script:
        RUN


rule table13_glad:
    input:
        controls=glad_layout.molswap_controls(glad_molswap.CANDIDATES),
    output:
        table=report_output("results/glad/tables/table13.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table13.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table13",
    script:
        RUN


rule table14_glad:
    input:
        gx=GLAD_GX_CONTROLS,
        molswap=GLAD_MS_FINAL if GLAD_MS_ON else [],
    output:
        table=report_output("results/glad/tables/table14.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table14.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table14",
    script:
        RUN


rule molswap_validation_glad:
    input:
        checks=rules.validate_molswap_glad.output.checks,
    output:
        table=report_output("results/glad/tables/molswap_validation.csv", "glad", "tables"),
    log:
        "logs/glad/tables/molswap_validation.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:molswap_validation",
    script:
        RUN


rule train_typed_glad:
    input:
        unpack(glad_layout.typed_inputs),
        unpack(glad_layout.backend_code),
        catalogue=GLAD.deep.catalogue,
    output:
        run=f"{glad_layout.TYPED_RECORDS}/run.json",
    log:
        "logs/glad/typed/train/{backend}/{detector}_{typed}_{encoding}_seed{seed}.log",
    benchmark:
        "benchmarks/glad/typed/train/{backend}/{detector}_{typed}_{encoding}_seed{seed}.tsv"
    wildcard_constraints:
        typed="GX-F2|GX-F1|MS-v2",
        encoding="encodings|constant",
        seed=r"\d+",
        backend="ubgold|own",
    conda:
        ENV
    threads: GLAD.deep.threads
    resources:
        mem_mb=8000,
        runtime=600,
        gpu=gpus_for(GLAD_DEEP_CONFIG["device"]),  # one GPU only when glad.deep.device names CUDA
    params:
        entry="graphaudit.glad.typed_tasks:train_typed",
        training=config_slice(TrainingSettings, {**GLAD_DEEP_CONFIG, "max_epochs": GLAD_EVAL_CONFIG["max_epochs"]}),
        holdout_share=GLAD_CONFIG["protocol"]["holdout_share"],
    script:
        RUN


rule replay_typed_glad:
    input:
        runs=GLAD_TYPED_RUNS.runs,
    output:
        replay=glad_layout.TYPED_REPLAY,
    log:
        "logs/glad/typed/replay/{detector}_{typed}_{encoding}.log",
    wildcard_constraints:
        typed="GX-F2|GX-F1|MS-v2",
        encoding="encodings|constant",
    conda:
        ENV
    params:
        entry="graphaudit.glad.typed_tasks:replay_typed",
    script:
        RUN


rule table3_glad:
    input:
        replays=GLAD_TYPED_REPLAYS,
    output:
        table=report_output("results/glad/tables/table3.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table3.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table3",
        threshold=GLAD_EVAL.threshold,
    script:
        RUN


rule table15_glad:
    input:
        replays=GLAD_TYPED_REPLAYS,
        table14=rules.table14_glad.output.table,
    output:
        table=report_output("results/glad/tables/table15.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table15.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table15",
        threshold=GLAD_EVAL.threshold,
    script:
        RUN


rule table16_glad:
    input:
        replays=GLAD_TYPED_REPLAYS,
    output:
        table=report_output("results/glad/tables/table16.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table16.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table16",
        threshold=GLAD_EVAL.threshold,
        bootstrap=GLAD_EVAL.bootstrap,
    script:
        RUN


rule table17_glad:
    input:
        replays=GLAD_TYPED_REPLAYS,
        table14=rules.table14_glad.output.table,
    output:
        table=report_output("results/glad/tables/table17.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table17.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table17",
        threshold=GLAD_EVAL.threshold,
    script:
        RUN


rule table18_glad:
    input:
        replays=GLAD_TYPED_REPLAYS,
        table14=rules.table14_glad.output.table,
    output:
        table=report_output("results/glad/tables/table18.csv", "glad", "tables"),
    log:
        "logs/glad/tables/table18.log",
    conda:
        ENV
    params:
        entry="graphaudit.glad.tables:table18",
        thresholds=list(GLAD_EVAL.thresholds),
    script:
        RUN


# part 4's tables: the GX ones always, MolSwap's (Tables 12, 13, the validation) when glad.typed.molswap.enabled, the
# typed evaluation's (Tables 3, 15-18) when glad.typed.evaluation lists detectors
rule glad_typed:
    input:
        rules.gx_sets_glad.output,
        rules.typed_controls_glad.output,
        rules.table14_glad.output,
        [rules.table12_glad.output, rules.table13_glad.output, rules.molswap_validation_glad.output]
        if GLAD_MS_ON
        else [],
        [
            rules.table3_glad.output,
            rules.table15_glad.output,
            rules.table16_glad.output,
            rules.table17_glad.output,
            rules.table18_glad.output,
        ]
        if GLAD_EVAL.enabled
        else [],


# the study's target (here, in the last glad rule file: it names the rules of all three): part 1, part 2 when deep
# runs are asked for, part 4
rule glad:
    input:
        rules.glad_baselines.input,
        rules.glad_detectors.input if GLAD.deep.enabled else [],
        rules.glad_typed.input,


STUDY_TARGETS["glad"] = list(rules.glad.input)
