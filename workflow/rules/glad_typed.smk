# glad study, part 4: typed anomalies. The GX sets (spec 4.13) and, with glad.typed.molswap.enabled (NCI1: mirror or
# network), MolSwap v1 and the 26 MS-v2 candidates (4.15) are generated under data/generated/glad/, their controls
# (4.14) under results/glad/typed/; Tables 12-14 and the validation read them. Reads GLAD, GLAD_CONFIG and the part 1-3
# aggregates from glad.smk and glad_deep.smk (the root Snakefile includes those first); ends with the study target.
import graphaudit.glad.layout as glad_layout
from graphaudit.glad import molswap as glad_molswap
from graphaudit.glad.typed import molswap_sets, validated_types

GLAD_TYPED = GLAD.typed
GLAD_GX_SEEDS = GLAD_TYPED.gx.seeds
GLAD_MS_SEEDS = GLAD_TYPED.molswap.seeds
GLAD_GX_CONTROLS = expand(glad_layout.GX_CONTROLS, seed=GLAD_GX_SEEDS)
GLAD_NCI1 = f"data/processed/{glad_molswap.DATASET}.npz"
GLAD_MS_POOL = f"{glad_layout.MOLSWAP}/pool.json"
GLAD_MS_VALIDATED = validated_types()  # (group, type, candidate): MS-v2's final types, then v1's
GLAD_MS_FINAL = glad_layout.molswap_controls(glad_molswap.FINAL_TYPES.values())
GLAD_MS_ON = GLAD_TYPED.molswap.enabled


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


# part 4's tables: the GX ones always, MolSwap's (Tables 12, 13, the validation) when glad.typed.molswap.enabled
rule glad_typed:
    input:
        rules.gx_sets_glad.output,
        rules.typed_controls_glad.output,
        rules.table14_glad.output,
        [rules.table12_glad.output, rules.table13_glad.output, rules.molswap_validation_glad.output]
        if GLAD_MS_ON
        else [],


# the study's target (here, in the last glad rule file: it names the rules of all three): part 1, part 2 when deep
# runs are asked for, part 4
rule glad:
    input:
        rules.glad_baselines.input,
        rules.glad_detectors.input if GLAD.deep.enabled else [],
        rules.glad_typed.input,


STUDY_TARGETS["glad"] = list(rules.glad.input)
