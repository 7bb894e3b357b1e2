# pattern study (paper 000), part 3: CKGConv and GRIT retrained on the PATTERN sets (Section 4, Appendix D). Read after
# pattern.smk (the Snakefile includes it after pattern_baselines.smk), whose PATTERN settings it uses.
# Each model's RRWP is cached once per set and shard (pattern_neural_rrwp); one training job per protocol, model and
# seed (pattern_neural_train) writes records.jsonl, predictions_<set>.npz (the pattern-blind predictors' shard format),
# run.json and model.safetensors under results/pattern/neural/<protocol>/<model>/seed<seed>/, and its round trip
# (pattern_neural_round_trip) round_trip.json beside them. The held_out protocol reads the withheld patterns of
# pattern_neural_held_out, the fresh_trained protocol the splits of pattern_neural_fresh_splits.
from graphaudit.common.settings import config_slice
from graphaudit.common.workflow import gpus_for
from graphaudit.pattern.neural_plan import (
    FRESH_SETS,
    NEURAL_SETS,
    check_protocols,
    evaluated_sets,
    fresh_sizes,
    graph_file,
    held_out_file,
    load_recipes,
    neural_runs,
    rrwp_files,
    rrwp_plans,
)
from graphaudit.pattern.settings import GeneratorLaw, NeuralRun, NeuralShards

NEURAL = PATTERN.neural
NEURAL_CONFIG = PATTERN_CONFIG["neural"]
NEURAL_RECIPES = load_recipes(NEURAL.recipes)
NEURAL_PLANS = rrwp_plans(NEURAL_RECIPES, NEURAL)  # checks every model's recipe and overrides at parse time
NEURAL_OUT = f"{PATTERN_OUT}/neural"
NEURAL_RUN = f"{NEURAL_OUT}/{{protocol}}/{{model}}/seed{{seed}}"
NEURAL_SHARDS = config_slice(NeuralShards, NEURAL_CONFIG)
NEURAL_EVALUATED = evaluated_sets(PATTERN.score_sets)  # val (the checkpoint rules read it) and the scored sets
NEURAL_READ = ["train", *NEURAL_EVALUATED]
check_protocols(PATTERN)
NEURAL_RUNS = neural_runs(NEURAL)  # (protocol, model, seed) of every training job
NEURAL_HELD_OUT = f"{NEURAL_OUT}/held_out"
NEURAL_ROUND_TRIP = "test" in PATTERN.score_sets  # the round trip compares with the saved test predictions


rule pattern_neural_held_out:
    input:
        **{s: f"{PATTERN_DATA}/official_{s}.npz" for s in ("train", "val", "test")},
        library=rules.library_pattern.output.library,
        ids=rules.library_pattern.output.ids,
        familiar=f"{PATTERN_DATA}/familiar.npz",
    output:
        patterns=f"{NEURAL_HELD_OUT}/patterns.csv",
        graphs=f"{NEURAL_HELD_OUT}/graphs.csv",
    log:
        "logs/pattern/neural_held_out.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.protocols:pattern_neural_held_out",
        held_out=NEURAL_CONFIG["held_out"],
        seed=PATTERN_SEED,
    script:
        RUN


rule pattern_neural_fresh_splits:
    input:
        library=rules.library_pattern.output.library,
        fresh=f"{PATTERN_DATA}/fresh.npz",
    output:
        **{s: f"{PATTERN_DATA}/{NEURAL_SETS[s]}.npz" for s in FRESH_SETS},
        **{f"truth_{s}": f"{PATTERN_DATA}/truth/{NEURAL_SETS[s]}.npz" for s in FRESH_SETS},
        summary=f"{NEURAL_OUT}/fresh_trained/splits.json",
    log:
        "logs/pattern/neural_fresh_splits.log",
    benchmark:
        "benchmarks/pattern/neural_fresh_splits.tsv"
    conda:
        ENV
    params:
        entry="graphaudit.pattern.protocols:pattern_neural_fresh_splits",
        law=config_slice(GeneratorLaw, PATTERN_CONFIG),
        splits=NEURAL_CONFIG["fresh_splits"],
        seed=PATTERN_SEED,
    script:
        RUN


rule pattern_neural_rrwp:
    input:
        graphs=lambda w: f"{PATTERN_DATA}/{NEURAL_SETS[w.set]}.npz",
    output:
        rrwp=f"{NEURAL_OUT}/rrwp/{{model}}/{{set}}/shard{{shard}}.npz",
    log:
        "logs/pattern/neural_rrwp_{model}_{set}_{shard}.log",
    benchmark:
        "benchmarks/pattern/neural_rrwp_{model}_{set}_{shard}.tsv"
    wildcard_constraints:
        model="|".join(NEURAL_PLANS),
        set="|".join(NEURAL_SETS),
        shard=r"\d+",
    conda:
        ENV
    threads: 1
    params:
        entry="graphaudit.pattern.neural:pattern_neural_rrwp",
        rrwp=lambda w: NEURAL_PLANS[w.model],
        selection=PATTERN_SELECTION,
        graphs=NEURAL_SHARDS,
        fresh=lambda w: fresh_sizes(NEURAL_CONFIG, set_name=w.set),
    script:
        RUN


rule pattern_neural_train:
    input:
        **{f"graphs_{s}": graph_file(PATTERN_DATA, s) for s in NEURAL_READ},
        **{
            f"rrwp_{s}": rrwp_files(f"{NEURAL_OUT}/rrwp", s, PATTERN_SELECTED, NEURAL, NEURAL.fresh_splits)
            for s in NEURAL_READ
        },
        held_out_patterns=held_out_file(NEURAL_HELD_OUT, "patterns"),
        held_out_graphs=held_out_file(NEURAL_HELD_OUT, "graphs"),
    output:
        **{f"predictions_{s}": f"{NEURAL_RUN}/predictions_{s}.npz" for s in NEURAL_EVALUATED},
        records=f"{NEURAL_RUN}/records.jsonl",
        run=f"{NEURAL_RUN}/run.json",
        weights=f"{NEURAL_RUN}/model.safetensors",
    log:
        "logs/pattern/neural_train_{protocol}_{model}_s{seed}.log",
    benchmark:
        "benchmarks/pattern/neural_train_{protocol}_{model}_s{seed}.tsv"
    wildcard_constraints:
        protocol="|".join(NEURAL.protocols),
        model="|".join(NEURAL_PLANS),
        seed=r"\d+",
    conda:
        ENV
    threads: NEURAL.threads
    resources:
        mem_mb=NEURAL.resources.mem_mb,
        runtime=NEURAL.resources.runtime,
        gpu=gpus_for(NEURAL.device),  # one GPU only when pattern.neural.device names CUDA
    params:
        entry="graphaudit.pattern.neural:pattern_neural_train",
        recipe=lambda w: NEURAL_RECIPES[w.model],
        scale=lambda w: NEURAL_CONFIG["overrides"][w.model],
        micro_batches=lambda w: NEURAL_CONFIG["micro_batches"][w.model],
        neural=config_slice(NeuralRun, NEURAL_CONFIG),
        selection=PATTERN_SELECTION,
        sets=PATTERN_CONFIG["score_sets"],
        fresh=lambda w: fresh_sizes(NEURAL_CONFIG, protocol=w.protocol),
        seed=PATTERN_SEED,
    script:
        RUN


rule pattern_neural_round_trip:
    input:
        graphs_test=f"{PATTERN_DATA}/official_test.npz",
        rrwp_test=rrwp_files(f"{NEURAL_OUT}/rrwp", "test", PATTERN_SELECTED, NEURAL),
        weights=f"{NEURAL_RUN}/model.safetensors",
        predictions_test=f"{NEURAL_RUN}/predictions_test.npz",
    output:
        round_trip=f"{NEURAL_RUN}/round_trip.json",
    log:
        "logs/pattern/neural_round_trip_{protocol}_{model}_s{seed}.log",
    wildcard_constraints:
        protocol="|".join(NEURAL.protocols),
        model="|".join(NEURAL_PLANS),
        seed=r"\d+",
    conda:
        ENV
    threads: NEURAL.threads
    params:
        entry="graphaudit.pattern.round_trip:pattern_neural_round_trip",
        recipe=lambda w: NEURAL_RECIPES[w.model],
        scale=lambda w: NEURAL_CONFIG["overrides"][w.model],
        selection=PATTERN_SELECTION,
        graphs=NEURAL.round_trip_graphs,
    script:
        RUN


rule pattern_neural:
    input:
        [f"{NEURAL_OUT}/{p}/{m}/seed{s}/run.json" for p, m, s in NEURAL_RUNS],
        [f"{NEURAL_OUT}/{p}/{m}/seed{s}/round_trip.json" for p, m, s in NEURAL_RUNS if NEURAL_ROUND_TRIP],
