# llmpattern study (paper 004): the graph-pattern comprehension benchmark with offline responders and, when
# configured, language models behind an OpenAI-compatible endpoint or imported responses.
# Each table and figure has its own rule <name>_llmpattern -> graphaudit.llmpattern.tables:<name> (figures:
# graphaudit.llmpattern.figures:figure<N>).
from graphaudit.common.settings import load_settings
from graphaudit.llmpattern.realdata import molecule_sources, realworld_sources
from graphaudit.llmpattern.settings import (
    LlmpatternSettings,
    check_models,
    item_params,
    respond_params,
    responder_names,
)
from graphaudit.llmpattern.settings import molecule_item_params, realworld_item_params
from graphaudit.llmpattern.tables import TABLES as LLM_TABLES
from graphaudit.llmpattern.tasks import DERIVED as LLM_DERIVED
from graphaudit.llmpattern.tasks import REAL_SETS as LLM_REAL_SETS
from graphaudit.llmpattern.tasks import SETS as LLM_SETS
from graphaudit.llmpattern.tasks import covers

LLM = load_settings(LlmpatternSettings, config["llmpattern"], "llmpattern")
LLM_DATA = "data/generated/llmpattern"
LLM_OUT = "results/llmpattern"
LLM_RESPONDERS = responder_names(LLM.responders)  # name -> spec; a collision, `..` or missing replay file stops here
check_models(LLM)  # a model block for no model, or an option its responder does not take, stops here
LLM_ALL_SETS = LLM_SETS + LLM_REAL_SETS
LLM_RUNS = [(s, r) for s in LLM_ALL_SETS for r, spec in LLM_RESPONDERS.items() if covers(spec, s)]
LLM_SCORES = {s: [f"{LLM_OUT}/scores/{r}/{s}.csv" for run_set, r in LLM_RUNS if run_set == s] for s in LLM_ALL_SETS}
# Real-world sets (T10 / T11): which data sets this run can read, and why the others are NOT RUN (decided here,
# from the mirror, the packaged copies, data/raw and llmpattern.realworld.download; graphaudit.llmpattern.realdata)
LLM_MOL_FILES, LLM_MOL_NOT_RUN = molecule_sources(LLM.molecules.datasets, LLM.molecules.files, config["data"])
LLM_REAL, LLM_REAL_NOT_RUN = realworld_sources(LLM.realworld.datasets, config["data"], LLM.realworld.download)


rule llmpattern_items:
    input:
        detection=lambda w: f"{LLM_DATA}/detection.jsonl" if w.set in LLM_DERIVED else [],
    output:
        itemset=f"{LLM_DATA}/{{set}}.jsonl",
    log:
        "logs/llmpattern/items_{set}.log",
    wildcard_constraints:
        set="|".join(LLM_SETS),
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tasks:llmpattern_items",
        generation=lambda w: item_params(LLM, config["seed"], w.set),
    script:
        RUN


rule llmpattern_realworld_items:
    input:
        files=lambda w: list(LLM_MOL_FILES.values()) if w.set == "molecule" else [],
        graphsets=lambda w: [f"data/processed/{n}.npz" for n in LLM_REAL] if w.set == "realworld" else [],
    output:
        itemset=f"{LLM_DATA}/{{set}}.jsonl",
    log:
        "logs/llmpattern/items_{set}.log",
    wildcard_constraints:
        set="|".join(LLM_REAL_SETS),
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tasks:llmpattern_realworld_items",
        generation=lambda w: (
            molecule_item_params(LLM, LLM_MOL_FILES)
            if w.set == "molecule"
            else realworld_item_params(LLM, config["seed"], LLM_REAL)
        ),
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
        set="|".join(LLM_ALL_SETS),
        responder="|".join(LLM_RESPONDERS),
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tasks:llmpattern_respond",
        # the response cache outlives failed jobs, so a rerun asks a model only what is missing
        cache=lambda w: f"{LLM_OUT}/cache/{w.responder}/{w.set}.jsonl",
        # one request schedule per model, shared by its jobs (one per set) however many run at once
        rate_file=lambda w: f"{LLM_OUT}/cache/{w.responder}/requests.rate",
        respond=lambda w: respond_params(LLM, config["seed"], w.set, LLM_RESPONDERS[w.responder]),
    script:
        RUN


rule table2_llmpattern:
    input:
        scores=LLM_SCORES[LLM_TABLES["table2"][1]],
        values=LLM.paper_values,
    output:
        table=report_output(f"{LLM_OUT}/tables/table2.csv", "llmpattern", "tables"),
    log:
        "logs/llmpattern/tables/table2.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tables:table2",
    script:
        RUN


rule table3_llmpattern:
    input:
        scores=LLM_SCORES[LLM_TABLES["table3"][1]],
        values=LLM.paper_values,
    output:
        table=report_output(f"{LLM_OUT}/tables/table3.csv", "llmpattern", "tables"),
    log:
        "logs/llmpattern/tables/table3.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tables:table3",
    script:
        RUN


rule table4_llmpattern:
    input:
        scores=LLM_SCORES[LLM_TABLES["table4"][1]],
        values=LLM.paper_values,
    output:
        table=report_output(f"{LLM_OUT}/tables/table4.csv", "llmpattern", "tables"),
    log:
        "logs/llmpattern/tables/table4.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tables:table4",
    script:
        RUN


rule table5_llmpattern:
    input:
        scores=LLM_SCORES[LLM_TABLES["table5"][1]],
        values=LLM.paper_values,
    output:
        table=report_output(f"{LLM_OUT}/tables/table5.csv", "llmpattern", "tables"),
    log:
        "logs/llmpattern/tables/table5.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tables:table5",
    script:
        RUN


rule table6_llmpattern:
    input:
        scores=LLM_SCORES[LLM_TABLES["table6"][1]],
        values=LLM.paper_values,
    output:
        table=report_output(f"{LLM_OUT}/tables/table6.csv", "llmpattern", "tables"),
    log:
        "logs/llmpattern/tables/table6.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tables:table6",
    script:
        RUN


rule table7_llmpattern:
    input:
        scores=LLM_SCORES[LLM_TABLES["table7"][1]],
        values=LLM.paper_values,
    output:
        table=report_output(f"{LLM_OUT}/tables/table7.csv", "llmpattern", "tables"),
    log:
        "logs/llmpattern/tables/table7.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tables:table7",
    script:
        RUN


rule table8_llmpattern:
    input:
        scores=LLM_SCORES[LLM_TABLES["table8"][1]],
        values=LLM.paper_values,
    output:
        table=report_output(f"{LLM_OUT}/tables/table8.csv", "llmpattern", "tables"),
    log:
        "logs/llmpattern/tables/table8.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tables:table8",
    script:
        RUN


rule table18_llmpattern:
    input:
        scores=LLM_SCORES[LLM_TABLES["table18"][1]],
        values=LLM.paper_values,
    output:
        table=report_output(f"{LLM_OUT}/tables/table18.csv", "llmpattern", "tables"),
    log:
        "logs/llmpattern/tables/table18.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tables:table18",
    script:
        RUN


rule table19_llmpattern:
    input:
        scores=LLM_SCORES[LLM_TABLES["table19"][1]],
        values=LLM.paper_values,
    output:
        table=report_output(f"{LLM_OUT}/tables/table19.csv", "llmpattern", "tables"),
    log:
        "logs/llmpattern/tables/table19.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tables:table19",
    script:
        RUN


rule table20_llmpattern:
    input:
        scores=[f"{LLM_OUT}/scores/{r}/{s}.csv" for s, r in LLM_RUNS if s in LLM_SETS],
        values=LLM.paper_values,
    output:
        table=report_output(f"{LLM_OUT}/tables/table20.csv", "llmpattern", "tables"),
    log:
        "logs/llmpattern/tables/table20.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tables:table20",
    script:
        RUN


rule table23_llmpattern:
    input:
        records=[f"{LLM_OUT}/scores/{r}/modification.jsonl" for s, r in LLM_RUNS if s == "modification"],
        itemset=f"{LLM_DATA}/modification.jsonl",
        values=LLM.paper_values,
    output:
        table=report_output(f"{LLM_OUT}/tables/table23.csv", "llmpattern", "tables"),
    log:
        "logs/llmpattern/tables/table23.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tables:table23",
    script:
        RUN


rule table24_llmpattern:
    input:
        scores=LLM_SCORES["detection"],
        values=LLM.paper_values,
    output:
        table=report_output(f"{LLM_OUT}/tables/table24.csv", "llmpattern", "tables"),
    log:
        "logs/llmpattern/tables/table24.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tables:table24",
    script:
        RUN


rule table25_llmpattern:
    input:
        scores=LLM_SCORES["detection"],
        values=LLM.paper_values,
    output:
        table=report_output(f"{LLM_OUT}/tables/table25.csv", "llmpattern", "tables"),
    log:
        "logs/llmpattern/tables/table25.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tables:table25",
    script:
        RUN


rule fig1_llmpattern:
    input:
        table=rules.table18_llmpattern.output.table,
    output:
        figure=report_output(f"{LLM_OUT}/figures/fig1.png", "llmpattern", "figures"),
    log:
        "logs/llmpattern/figures/fig1.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.figures:fig1",
    script:
        RUN


rule fig2_llmpattern:
    input:
        records=[f"{LLM_OUT}/scores/{r}/isomorphism.jsonl" for s, r in LLM_RUNS if s == "isomorphism"],
    output:
        figure=report_output(f"{LLM_OUT}/figures/fig2.png", "llmpattern", "figures"),
    log:
        "logs/llmpattern/figures/fig2.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.figures:fig2",
    script:
        RUN


rule fig3_llmpattern:
    input:
        table=rules.table19_llmpattern.output.table,
    output:
        figure=report_output(f"{LLM_OUT}/figures/fig3.png", "llmpattern", "figures"),
    log:
        "logs/llmpattern/figures/fig3.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.figures:fig3",
    script:
        RUN


rule fig4_llmpattern:
    input:
        records=[f"{LLM_OUT}/scores/{r}/kcore.jsonl" for s, r in LLM_RUNS if s == "kcore"],
    output:
        figure=report_output(f"{LLM_OUT}/figures/fig4.png", "llmpattern", "figures"),
    log:
        "logs/llmpattern/figures/fig4.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.figures:fig4",
    script:
        RUN


rule fig5_llmpattern:
    input:
        records=[f"{LLM_OUT}/scores/{r}/frequent.jsonl" for s, r in LLM_RUNS if s == "frequent"],
    output:
        figure=report_output(f"{LLM_OUT}/figures/fig5.png", "llmpattern", "figures"),
    log:
        "logs/llmpattern/figures/fig5.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.figures:fig5",
    script:
        RUN


rule fig7_llmpattern:
    input:
        table=rules.table18_llmpattern.output.table,
    output:
        figure=report_output(f"{LLM_OUT}/figures/fig7.png", "llmpattern", "figures"),
    log:
        "logs/llmpattern/figures/fig7.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.figures:fig7",
    script:
        RUN


rule fig8_llmpattern:
    input:
        table=rules.table19_llmpattern.output.table,
    output:
        figure=report_output(f"{LLM_OUT}/figures/fig8.png", "llmpattern", "figures"),
    log:
        "logs/llmpattern/figures/fig8.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.figures:fig8",
    script:
        RUN


rule summary_llmpattern:
    input:
        scores=[f"{LLM_OUT}/scores/{r}/{s}.csv" for s, r in LLM_RUNS],
    output:
        table=report_output(f"{LLM_OUT}/tables/summary.csv", "llmpattern", "tables"),
    log:
        "logs/llmpattern/tables/summary.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tables:summary",
    script:
        RUN


rule table9_llmpattern:
    input:
        scores=LLM_SCORES["molecule"],
        values=LLM.paper_values,
    output:
        table=report_output(f"{LLM_OUT}/tables/table9.csv", "llmpattern", "tables"),
    log:
        "logs/llmpattern/tables/table9.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tables:table9",
        not_run=LLM_MOL_NOT_RUN,
    script:
        RUN


rule table10_llmpattern:
    input:
        scores=LLM_SCORES["realworld"],
        values=LLM.paper_values,
    output:
        table=report_output(f"{LLM_OUT}/tables/table10.csv", "llmpattern", "tables"),
    log:
        "logs/llmpattern/tables/table10.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tables:table10",
        not_run=LLM_REAL_NOT_RUN,
    script:
        RUN


rule table13_llmpattern:
    input:
        itemsets=expand(f"{LLM_DATA}/{{set}}.jsonl", set=LLM_REAL_SETS),
        values=LLM.paper_values,
    output:
        table=report_output(f"{LLM_OUT}/tables/table13.csv", "llmpattern", "tables"),
    log:
        "logs/llmpattern/tables/table13.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tables:table13",
        not_run={**LLM_MOL_NOT_RUN, **LLM_REAL_NOT_RUN},
    script:
        RUN


rule table17_llmpattern:
    input:
        itemset=f"{LLM_DATA}/realworld.jsonl",
        values=LLM.paper_values,
    output:
        table=report_output(f"{LLM_OUT}/tables/table17.csv", "llmpattern", "tables"),
    log:
        "logs/llmpattern/tables/table17.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tables:table17",
        not_run=LLM_REAL_NOT_RUN,
        epochs=LLM.realworld.epochs,
    script:
        RUN


rule table12_llmpattern:
    input:
        itemsets=expand(f"{LLM_DATA}/{{set}}.jsonl", set=LLM_SETS),
    output:
        table=report_output(f"{LLM_OUT}/tables/table12.csv", "llmpattern", "tables"),
    log:
        "logs/llmpattern/tables/table12.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tables:table12",
    script:
        RUN


rule occurrences_llmpattern:
    input:
        detection=f"{LLM_DATA}/detection.jsonl",
    output:
        table=report_output(f"{LLM_OUT}/tables/occurrences.csv", "llmpattern", "tables"),
    log:
        "logs/llmpattern/tables/occurrences.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tables:occurrences",
    script:
        RUN


rule paper_consistency_llmpattern:
    input:
        values=LLM.paper_values,
    output:
        table=report_output(f"{LLM_OUT}/tables/paper_consistency.csv", "llmpattern", "tables"),
    log:
        "logs/llmpattern/tables/paper_consistency.log",
    conda:
        ENV
    params:
        entry="graphaudit.llmpattern.tables:paper_consistency",
    script:
        RUN


rule llmpattern:
    input:
        rules.table2_llmpattern.output,
        rules.table3_llmpattern.output,
        rules.table4_llmpattern.output,
        rules.table5_llmpattern.output,
        rules.table6_llmpattern.output,
        rules.table7_llmpattern.output,
        rules.table8_llmpattern.output,
        rules.table9_llmpattern.output,
        rules.table10_llmpattern.output,
        rules.table13_llmpattern.output,
        rules.table17_llmpattern.output,
        rules.table18_llmpattern.output,
        rules.table19_llmpattern.output,
        rules.table20_llmpattern.output,
        rules.table23_llmpattern.output,
        rules.table24_llmpattern.output,
        rules.table25_llmpattern.output,
        rules.fig1_llmpattern.output,
        rules.fig2_llmpattern.output,
        rules.fig3_llmpattern.output,
        rules.fig4_llmpattern.output,
        rules.fig5_llmpattern.output,
        rules.fig7_llmpattern.output,
        rules.fig8_llmpattern.output,
        rules.summary_llmpattern.output,
        rules.table12_llmpattern.output,
        rules.occurrences_llmpattern.output,
        rules.paper_consistency_llmpattern.output,


STUDY_TARGETS["llmpattern"] = list(rules.llmpattern.input)
