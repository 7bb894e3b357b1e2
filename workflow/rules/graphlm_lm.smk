# graphlm study (paper 003), part 2: the graph language models (LLaMA from transformers), trained by token budget,
# sampled under the Table 18 decodings and scored by part 1's evaluator (a sample set is one more generator).
# Each table and figure has its own rule <name>_graphlm -> graphaudit.graphlm.tables:<name> (figures: .figures).
from graphaudit.common.workflow import gpus_for
from graphaudit.graphlm import lm as graphlm_lm
from graphaudit.nn.packing import snapshot_name

GRAPHLM_LM_CONFIG = GRAPHLM_CONFIG["lm"]
GRAPHLM_LM = GRAPHLM.lm
GRAPHLM_RUNS = graphlm_lm.runs(GRAPHLM_LM)
GRAPHLM_LM_SETS = [
    (run, sample) for run in GRAPHLM_RUNS for sample in graphlm_lm.sample_sets(GRAPHLM_LM, run.serialization, run.seed)
]
GRAPHLM_LM_EVALUATIONS = [f"{GRAPHLM_OUT}/{run.dataset}/evaluation/{s.name}.json" for run, s in GRAPHLM_LM_SETS]
GRAPHLM_LM_SUMMARIES = [f"{GRAPHLM_OUT}/{run.dataset}/samples/{s.name}.json" for run, s in GRAPHLM_LM_SETS]
GRAPHLM_LM_RUN_FILES = [f"{run.folder}/run.json" for run in GRAPHLM_RUNS]
GRAPHLM_NLL = [f"{run.folder}/nll.json" for run in GRAPHLM_RUNS]
GRAPHLM_SCALE_RUNS = graphlm_lm.scale_runs(GRAPHLM.scale, GRAPHLM_LM)
GRAPHLM_SCALE_EVALUATIONS = [  # each subset's main sample set and its novel-only part
    f"{GRAPHLM_OUT}/{run.dataset}/evaluation/{graphlm_lm.main_set(GRAPHLM_LM, run.serialization, run.seed).name}{part}.json"
    for run in GRAPHLM_SCALE_RUNS
    for part in ("", "-novel")
]
GRAPHLM_SUPPORTS = [  # Figure 4: the main DFS set of each dataset's first training seed
    f"{GRAPHLM_OUT}/{run.dataset}/supports/{graphlm_lm.main_set(GRAPHLM_LM, 'dfs', run.seed).name}.json"
    for run in GRAPHLM_RUNS
    if run.serialization == "dfs" and run.seed == GRAPHLM_LM.train_seeds[0]
]
GRAPHLM_SCALE_SUPPORTS = [  # Figure 5 on the scale proxy: each corpus size's main DFS set
    f"{GRAPHLM_OUT}/{run.dataset}/supports/{graphlm_lm.main_set(GRAPHLM_LM, 'dfs', run.seed).name}.json"
    for run in GRAPHLM_SCALE_RUNS
]
GRAPHLM_LM_RUN = "results/graphlm/{dataset}/lm/{serialization}/s{seed}"
GRAPHLM_LM_SET = "lm-{serialization}-s{seed}-c{checkpoint}-{decoding}-d{dseed}"


wildcard_constraints:
    serialization="dfs|dgmg",


rule graphlm_serialize:
    input:
        sequences="results/graphlm/{dataset}/train.dfs.txt",
        codes="results/graphlm/{dataset}/train.codes.txt",
    output:
        texts="results/graphlm/{dataset}/lm/{serialization}/train.txt",
        tokenizer="results/graphlm/{dataset}/lm/{serialization}/tokenizer.json",
    log:
        "logs/graphlm/serialize_{dataset}_{serialization}.log",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.lm_tasks:graphlm_serialize",
    script:
        RUN


rule graphlm_subset:
    input:
        sequences="results/graphlm/{dataset}/train.dfs.txt",
        codes="results/graphlm/{dataset}/train.codes.txt",
    output:
        sequences="results/graphlm/{dataset}+n{size}/train.dfs.txt",
        codes="results/graphlm/{dataset}+n{size}/train.codes.txt",
    log:
        "logs/graphlm/subset_{dataset}_n{size}.log",
    wildcard_constraints:
        dataset="[^+/]+",
        size=r"\d+",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.tasks:graphlm_subset",
    script:
        RUN


rule graphlm_novel:
    input:
        generated="results/graphlm/{dataset}/generated/{generator}.dfs.txt",
        sequences="results/graphlm/{dataset}/train.dfs.txt",
    output:
        generated="results/graphlm/{dataset}/generated/{generator}-novel.dfs.txt",
    log:
        "logs/graphlm/novel_{dataset}_{generator}.log",
    wildcard_constraints:
        generator="lm-[^/]+",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.tasks:graphlm_novel",
    script:
        RUN


rule graphlm_train:
    input:
        texts=rules.graphlm_serialize.output.texts,
        tokenizer=rules.graphlm_serialize.output.tokenizer,
    output:
        run=f"{GRAPHLM_LM_RUN}/run.json",
        checkpoints=[f"{GRAPHLM_LM_RUN}/{snapshot_name(k)}" for k in range(1, GRAPHLM_LM.checkpoints + 1)],
    log:
        "logs/graphlm/train_{dataset}_{serialization}_s{seed}.log",
    benchmark:
        "benchmarks/graphlm/train_{dataset}_{serialization}_s{seed}.tsv"
    wildcard_constraints:
        seed=r"\d+",
    conda:
        ENV
    threads: 1  # torch threads; one run per core is faster on a few cores than one run on all of them
    resources:
        mem_mb=16000,
        runtime=600,
        gpu=gpus_for(GRAPHLM_LM_CONFIG["device"]),  # one GPU only when graphlm.lm.device names CUDA
    params:
        entry="graphaudit.graphlm.lm_tasks:graphlm_train",
        lm=GRAPHLM_LM_CONFIG,
    script:
        RUN


rule graphlm_sample:
    input:
        run=f"{GRAPHLM_LM_RUN}/run.json",
        checkpoint=f"{GRAPHLM_LM_RUN}/checkpoint_{{checkpoint}}.safetensors",
        tokenizer=rules.graphlm_serialize.output.tokenizer,
        texts=rules.graphlm_serialize.output.texts,
    output:
        generated=f"results/graphlm/{{dataset}}/generated/{GRAPHLM_LM_SET}.dfs.txt",
        summary=f"results/graphlm/{{dataset}}/samples/{GRAPHLM_LM_SET}.json",
    log:
        f"logs/graphlm/sample_{{dataset}}_{GRAPHLM_LM_SET}.log",
    wildcard_constraints:
        seed=r"\d+",
        checkpoint=r"\d+",
        decoding="[a-z_]+",
        dseed=r"\d+",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=8000,
        runtime=60,
        gpu=gpus_for(GRAPHLM_LM_CONFIG["device"]),
    params:
        entry="graphaudit.graphlm.lm_tasks:graphlm_sample",
        lm=GRAPHLM_LM_CONFIG,
        tuple_order=GRAPHLM_CONFIG["tuple_order"],
        n_gen=GRAPHLM_CONFIG["n_gen"],
    script:
        RUN


rule graphlm_nll:
    input:
        run=f"{GRAPHLM_LM_RUN}/run.json",
        checkpoint=lambda w: graphlm_lm.checkpoint_files(
            GRAPHLM_LM, graphlm_lm.Run(w.dataset, w.serialization, int(w.seed))
        )[-1],
        tokenizer=rules.graphlm_serialize.output.tokenizer,
        texts=rules.graphlm_serialize.output.texts,
        sequences="results/graphlm/{dataset}/train.dfs.txt",
        generated=lambda w: (
            f"{GRAPHLM_OUT}/{w.dataset}/generated/"
            f"{graphlm_lm.main_set(GRAPHLM_LM, w.serialization, int(w.seed)).name}.dfs.txt"
        ),
    output:
        nll=f"{GRAPHLM_LM_RUN}/nll.json",
    log:
        "logs/graphlm/nll_{dataset}_{serialization}_s{seed}.log",
    wildcard_constraints:
        seed=r"\d+",
    conda:
        ENV
    threads: 1
    params:
        entry="graphaudit.graphlm.lm_tasks:graphlm_nll",
        lm=GRAPHLM_LM_CONFIG,
    script:
        RUN


GRAPHLM_LM_TABLES = {
    "table1": {"evaluations": GRAPHLM_LM_EVALUATIONS, "summaries": GRAPHLM_LM_SUMMARIES},
    "table2": {"evaluations": GRAPHLM_LM_EVALUATIONS, "bootstrap": GRAPHLM_BOOTSTRAP},
    "table4": {"evaluations": GRAPHLM_LM_EVALUATIONS, "bootstrap": GRAPHLM_BOOTSTRAP},
    "table5": {"nll": GRAPHLM_NLL},
    "table6": {"evaluations": GRAPHLM_LM_EVALUATIONS},
    "table7": {"mmds": GRAPHLM_MMDS},
    "table8": {"mmds": GRAPHLM_MMDS},
    "table11": {"mmds": GRAPHLM_MMDS},
    "table12": {"evaluations": GRAPHLM_LM_EVALUATIONS, "summaries": GRAPHLM_LM_SUMMARIES},
    "table13": {"evaluations": GRAPHLM_LM_EVALUATIONS},
    "table14": {"evaluations": GRAPHLM_LM_EVALUATIONS},
    "table15": {"evaluations": GRAPHLM_LM_EVALUATIONS},
    "table16": {"evaluations": GRAPHLM_LM_EVALUATIONS},
    "table19": {"evaluations": GRAPHLM_LM_EVALUATIONS},
    "table20": {"evaluations": GRAPHLM_LM_EVALUATIONS, "runs": GRAPHLM_LM_RUN_FILES},
    "table24": {"evaluations": GRAPHLM_LM_EVALUATIONS},
}


for _name, _inputs in GRAPHLM_LM_TABLES.items():

    rule:
        name:
            f"{_name}_graphlm"
        input:
            **_inputs,
        output:
            table=report_output(f"{GRAPHLM_OUT}/tables/{_name}.csv", "graphlm", "tables"),
        log:
            f"logs/graphlm/tables/{_name}.log",
        conda:
            ENV
        params:
            entry=f"graphaudit.graphlm.tables:{_name}",
            lm=GRAPHLM_LM_CONFIG,
        script:
            RUN


rule table22_graphlm:
    input:
        evaluations=GRAPHLM_EVALUATIONS,
        mmds=GRAPHLM_MMDS,
    output:
        table=report_output(f"{GRAPHLM_OUT}/tables/table22.csv", "graphlm", "tables"),
    log:
        "logs/graphlm/tables/table22.log",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.tables:table22",
        generators=GRAPHLM_CONFIG["generators"],
    script:
        RUN


rule graphlm_supports:
    input:
        generated="results/graphlm/{dataset}/generated/{generator}.dfs.txt",
        patterns="results/graphlm/{dataset}/patterns.json",
    output:
        supports="results/graphlm/{dataset}/supports/{generator}.json",
    log:
        "logs/graphlm/supports_{dataset}_{generator}.log",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.tasks:graphlm_supports",
        gspan=GRAPHLM_CONFIG["gspan"],
    script:
        RUN


rule fig4_graphlm:
    input:
        supports=GRAPHLM_SUPPORTS,
    output:
        figure=report_output(f"{GRAPHLM_OUT}/figures/fig4.png", "graphlm", "figures"),
    log:
        "logs/graphlm/figures/fig4.log",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.figures:fig4",
    script:
        RUN


rule fig2_graphlm:
    input:
        evaluations=GRAPHLM_LM_EVALUATIONS,
    output:
        figure=report_output(f"{GRAPHLM_OUT}/figures/fig2.png", "graphlm", "figures"),
    log:
        "logs/graphlm/figures/fig2.log",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.figures:fig2",
        lm=GRAPHLM_LM_CONFIG,
    script:
        RUN


rule fig5_graphlm:
    input:
        supports=GRAPHLM_SCALE_SUPPORTS,
    output:
        figure=report_output(f"{GRAPHLM_OUT}/figures/fig5.png", "graphlm", "figures"),
    log:
        "logs/graphlm/figures/fig5.log",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.figures:fig5",
    script:
        RUN


rule scale_graphlm:
    input:
        evaluations=GRAPHLM_SCALE_EVALUATIONS,
    output:
        table=report_output(f"{GRAPHLM_OUT}/tables/scale.csv", "graphlm", "tables"),
    log:
        "logs/graphlm/tables/scale.log",
    conda:
        ENV
    params:
        entry="graphaudit.graphlm.tables:scale",
        scale=GRAPHLM_CONFIG["scale"],
        lm=GRAPHLM_LM_CONFIG,
    script:
        RUN


for _name in ("fig6", "fig9"):

    rule:
        name:
            f"{_name}_graphlm"
        input:
            table20=f"{GRAPHLM_OUT}/tables/table20.csv",
        output:
            figure=report_output(f"{GRAPHLM_OUT}/figures/{_name}.png", "graphlm", "figures"),
        log:
            f"logs/graphlm/figures/{_name}.log",
        conda:
            ENV
        params:
            entry=f"graphaudit.graphlm.figures:{_name}",
        script:
            RUN


rule graphlm_models:
    input:
        [f"{GRAPHLM_OUT}/tables/{name}.csv" for name in GRAPHLM_LM_TABLES],
        rules.scale_graphlm.output,
        rules.table22_graphlm.output,
        rules.fig2_graphlm.output,
        rules.fig4_graphlm.output,
        rules.fig5_graphlm.output,
        [f"{GRAPHLM_OUT}/figures/{name}.png" for name in ("fig6", "fig9")],


rule graphlm:
    input:
        rules.table9_graphlm.output,
        rules.table10_graphlm.output,
        rules.patterns_graphlm.output,
        rules.bootstrap_graphlm.output,
        rules.evaluation_graphlm.output,
        rules.strata_graphlm.output,
        rules.fig1_graphlm.output,
        rules.sensitivity_graphlm.output,
        rules.graphlm_models.input,


rule graphlm_mining:
    input:
        rules.graphlm.input,


STUDY_TARGETS["graphlm"] = list(rules.graphlm.input)
