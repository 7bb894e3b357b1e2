# pattern study (paper 000), part 3: CKGConv and GRIT retrained on the PATTERN sets (Section 4, Appendix D). Read after
# pattern.smk (the Snakefile includes it after pattern_baselines.smk), whose PATTERN settings it uses.
# Each model's RRWP is cached once per set and shard (pattern_neural_rrwp); one training job per protocol, model and
# seed (pattern_neural_train) writes records.jsonl, predictions_<set>.npz (the pattern-blind predictors' shard format)
# and run.json under results/pattern/neural/<protocol>/<model>/seed<seed>/.
from graphaudit.common.settings import config_slice
from graphaudit.common.workflow import gpus_for
from graphaudit.pattern.neural import NEURAL_SETS, evaluated_sets, load_recipes, rrwp_files, rrwp_plans
from graphaudit.pattern.settings import NeuralRun, NeuralShards

NEURAL = PATTERN.neural
NEURAL_CONFIG = PATTERN_CONFIG["neural"]
NEURAL_RECIPES = load_recipes(NEURAL.recipes)
NEURAL_PLANS = rrwp_plans(NEURAL_RECIPES, NEURAL)  # checks every model's recipe and overrides at parse time
NEURAL_OUT = f"{PATTERN_OUT}/neural"
NEURAL_RUN = f"{NEURAL_OUT}/{{protocol}}/{{model}}/seed{{seed}}"
NEURAL_SHARDS = config_slice(NeuralShards, NEURAL_CONFIG)
NEURAL_EVALUATED = evaluated_sets(PATTERN.score_sets)  # val (the checkpoint rules read it) and the scored sets
NEURAL_READ = ["train", *NEURAL_EVALUATED]


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
    script:
        RUN


rule pattern_neural_train:
    input:
        **{f"graphs_{s}": f"{PATTERN_DATA}/{NEURAL_SETS[s]}.npz" for s in NEURAL_READ},
        **{f"rrwp_{s}": rrwp_files(f"{NEURAL_OUT}/rrwp", s, PATTERN_SELECTED, NEURAL) for s in NEURAL_READ},
    output:
        **{f"predictions_{s}": f"{NEURAL_RUN}/predictions_{s}.npz" for s in NEURAL_EVALUATED},
        records=f"{NEURAL_RUN}/records.jsonl",
        run=f"{NEURAL_RUN}/run.json",
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
        seed=PATTERN_SEED,
    script:
        RUN


rule pattern_neural:
    input:
        expand(
            f"{NEURAL_OUT}/{{protocol}}/{{model}}/seed{{seed}}/run.json",
            protocol=NEURAL.protocols,
            model=NEURAL.models,
            seed=NEURAL.seeds,
        ),
