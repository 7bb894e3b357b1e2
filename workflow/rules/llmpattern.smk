# llmpattern study (paper 004): the graph-pattern comprehension benchmark with offline responders and, when
# configured, language models behind an OpenAI-compatible endpoint or imported responses.
import graphaudit.llmpattern.tasks as llm_tasks

LLM = {**config["llmpattern"], "seed": config["seed"]}
LLM_DATA = "data/generated/llmpattern"
LLM_OUT = "results/llmpattern"
LLM_ITEMS = {
    k: LLM[k]
    for k in ("seed", "scales", "translation", "detection", "isomorphism", "modification", "frequent", "ba2motif")
}
LLM_RESPONDERS = {llm_tasks.responder_slug(spec): spec for spec in LLM["responders"]}
LLM_RUNS = [(s, r) for s in llm_tasks.SETS for r, spec in LLM_RESPONDERS.items() if llm_tasks.covers(spec, s)]


rule llmpattern_items:
    input:
        detection=lambda w: f"{LLM_DATA}/detection.jsonl" if w.set in llm_tasks.DERIVED else [],
    output:
        itemset=f"{LLM_DATA}/{{set}}.jsonl",
    log:
        "logs/llmpattern/items_{set}.log",
    wildcard_constraints:
        set="|".join(llm_tasks.SETS),
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tasks:llmpattern_items",
        llmpattern=LLM_ITEMS,
    script:
        RUN


rule llmpattern_statistics:
    input:
        itemsets=expand(f"{LLM_DATA}/{{set}}.jsonl", set=llm_tasks.SETS),
    output:
        table12=f"{LLM_OUT}/tables/table12.csv",
        occurrences=f"{LLM_OUT}/tables/occurrences.csv",
    log:
        "logs/llmpattern/statistics.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tasks:llmpattern_statistics",
    script:
        RUN


rule llmpattern_respond:
    input:
        itemset=f"{LLM_DATA}/{{set}}.jsonl",
    output:
        scores=f"{LLM_OUT}/scores/{{responder}}/{{set}}.jsonl",
        table=f"{LLM_OUT}/scores/{{responder}}/{{set}}.csv",
    log:
        "logs/llmpattern/respond_{responder}_{set}.log",
    benchmark:
        "benchmarks/llmpattern/respond_{responder}_{set}.tsv"
    wildcard_constraints:
        set="|".join(llm_tasks.SETS),
        responder="|".join(LLM_RESPONDERS),
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tasks:llmpattern_respond",
        # the response cache outlives failed jobs, so a rerun asks a model only what is missing
        cache=lambda w: f"{LLM_OUT}/cache/{w.responder}/{w.set}.jsonl",
        llmpattern=lambda w: {
            **{k: LLM[k] for k in ("seed", "n_eval", "formats", "detection", "ba2motif", "model")},
            "responders": [LLM_RESPONDERS[w.responder]],
        },
    script:
        RUN


rule llmpattern_tables:
    input:
        tables=[f"{LLM_OUT}/scores/{r}/{s}.csv" for s, r in LLM_RUNS],
    output:
        **{name: f"{LLM_OUT}/tables/{name}.csv" for name in [*llm_tasks.TABLES, "table20", "summary"]},
    log:
        "logs/llmpattern/tables.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tasks:llmpattern_tables",
    script:
        RUN


rule llmpattern_paper_consistency:
    input:
        values=LLM["paper_values"],
    output:
        table=f"{LLM_OUT}/tables/paper_consistency.csv",
    log:
        "logs/llmpattern/paper_consistency.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.paper_checks:paper_consistency",
    script:
        RUN


rule table2_llmpattern:
    input:
        rules.llmpattern_tables.output.table2,


rule table3_llmpattern:
    input:
        rules.llmpattern_tables.output.table3,


rule table4_llmpattern:
    input:
        rules.llmpattern_tables.output.table4,


rule table5_llmpattern:
    input:
        rules.llmpattern_tables.output.table5,


rule table6_llmpattern:
    input:
        rules.llmpattern_tables.output.table6,


rule table7_llmpattern:
    input:
        rules.llmpattern_tables.output.table7,


rule table8_llmpattern:
    input:
        rules.llmpattern_tables.output.table8,


rule table18_llmpattern:
    input:
        rules.llmpattern_tables.output.table18,


rule table19_llmpattern:
    input:
        rules.llmpattern_tables.output.table19,


rule table20_llmpattern:
    input:
        rules.llmpattern_tables.output.table20,


rule table12_llmpattern:
    input:
        rules.llmpattern_statistics.output.table12,


rule llmpattern:
    input:
        rules.llmpattern_tables.output,
        rules.llmpattern_statistics.output,
        rules.llmpattern_paper_consistency.output,


STUDY_TARGETS["llmpattern"] = list(rules.llmpattern.input)
