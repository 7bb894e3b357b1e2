# pattern study (paper 000), part 3's tables and figures from saved predictions (Section 4, Appendix D), read after
# pattern_neural.smk. neural_scores_pattern turns every run folder of pattern.neural (each protocol's models x seeds) into
# tidy scores; Tables 3 (in pattern.smk), 9-14, oracle_auc and Figures 3-4 read them beside the pattern-blind
# predictors' (a protocol that is not run leaves no rows); Tables 1 and 5 quote the paper and describe the generators;
# byo_pattern scores a user's own predictions folder (pattern.byo) by the same rules. This file also defines the
# study's aggregate target `pattern` (parts 1-3).
from graphaudit.pattern.neural_plan import byo_inputs, neural_runs
from graphaudit.pattern.settings import Generation

NEURAL_RUN_FOLDERS = [f"{NEURAL_OUT}/{protocol}/{model}/seed{seed}" for protocol, model, seed in neural_runs(NEURAL)]
NEURAL_TABLE_PARAMS = {"bootstrap": PATTERN_BOOTSTRAP, "seed": PATTERN_SEED}
SCORED_SET_INPUTS = {
    **{f"graphs_{s}": f"{PATTERN_DATA}/{PATTERN_SET_FILE[s]}.npz" for s in PATTERN.score_sets},
    **{f"truth_{s}": f"{PATTERN_DATA}/truth/{PATTERN_SET_FILE[s]}.npz" for s in PATTERN.score_sets},
}


rule neural_scores_pattern:
    input:
        **SCORED_SET_INPUTS,
        runs=[f"{folder}/run.json" for folder in NEURAL_RUN_FOLDERS],
        predictions=[f"{folder}/predictions_{s}.npz" for folder in NEURAL_RUN_FOLDERS for s in PATTERN.score_sets],
        recipes=NEURAL.recipes,
    output:
        **PATTERN_NEURAL_SCORES,
    log:
        "logs/pattern/neural_scores.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.neural_tables:neural_scores",
        selection=PATTERN_SELECTION,
        sets=PATTERN_CONFIG["score_sets"],
    script:
        RUN


rule table9_pattern:
    input:
        **NEURAL_TABLE_INPUTS,
    output:
        table=report_output(f"{PATTERN_OUT}/tables/table9.csv", "pattern", "tables"),
    log:
        "logs/pattern/table9.log",
    conda:
        ENV
    params:
        **NEURAL_TABLE_PARAMS,
        entry="graphaudit.pattern.tables:table9",
    script:
        RUN


rule table10_pattern:
    input:
        **NEURAL_TABLE_INPUTS,
    output:
        table=report_output(f"{PATTERN_OUT}/tables/table10.csv", "pattern", "tables"),
    log:
        "logs/pattern/table10.log",
    conda:
        ENV
    params:
        **NEURAL_TABLE_PARAMS,
        entry="graphaudit.pattern.tables:table10",
    script:
        RUN


rule table11_pattern:
    input:
        **NEURAL_TABLE_INPUTS,
    output:
        table=report_output(f"{PATTERN_OUT}/tables/table11.csv", "pattern", "tables"),
    log:
        "logs/pattern/table11.log",
    conda:
        ENV
    params:
        **NEURAL_TABLE_PARAMS,
        entry="graphaudit.pattern.tables:table11",
    script:
        RUN


rule table12_pattern:
    input:
        **NEURAL_TABLE_INPUTS,
    output:
        table=report_output(f"{PATTERN_OUT}/tables/table12.csv", "pattern", "tables"),
    log:
        "logs/pattern/table12.log",
    conda:
        ENV
    params:
        **NEURAL_TABLE_PARAMS,
        entry="graphaudit.pattern.tables:table12",
    script:
        RUN


rule table13_pattern:
    input:
        **NEURAL_TABLE_INPUTS,
    output:
        table=report_output(f"{PATTERN_OUT}/tables/table13.csv", "pattern", "tables"),
    log:
        "logs/pattern/table13.log",
    conda:
        ENV
    params:
        **NEURAL_TABLE_PARAMS,
        entry="graphaudit.pattern.tables:table13",
    script:
        RUN


rule table14_pattern:
    input:
        **NEURAL_TABLE_INPUTS,
    output:
        table=report_output(f"{PATTERN_OUT}/tables/table14.csv", "pattern", "tables"),
    log:
        "logs/pattern/table14.log",
    conda:
        ENV
    params:
        **NEURAL_TABLE_PARAMS,
        entry="graphaudit.pattern.tables:table14",
    script:
        RUN


rule oracle_auc_pattern:
    input:
        **NEURAL_TABLE_INPUTS,
    output:
        table=report_output(f"{PATTERN_OUT}/tables/oracle_auc.csv", "pattern", "tables"),
    log:
        "logs/pattern/oracle_auc.log",
    conda:
        ENV
    params:
        **NEURAL_TABLE_PARAMS,
        entry="graphaudit.pattern.tables:oracle_auc",
    script:
        RUN


rule table1_pattern:
    output:
        table=report_output(f"{PATTERN_OUT}/tables/table1.csv", "pattern", "tables"),
    log:
        "logs/pattern/table1.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tables:table1",
        published=PATTERN_QUOTED["table1"],
    script:
        RUN


rule table5_pattern:
    input:
        library=rules.library_pattern.output.library,
    output:
        table=report_output(f"{PATTERN_OUT}/tables/table5.csv", "pattern", "tables"),
    log:
        "logs/pattern/table5.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tables:table5",
        pattern=config_slice(Generation, PATTERN_CONFIG),
    script:
        RUN


rule fig3_pattern:
    input:
        table3=rules.table3_pattern.output.table,
        table11=rules.table11_pattern.output.table,
    output:
        fig3=report_output(f"{PATTERN_OUT}/figures/fig3.png", "pattern", "figures"),
    log:
        "logs/pattern/fig3.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.figures:fig3",
    script:
        RUN


rule fig4_pattern:
    input:
        table3=rules.table3_pattern.output.table,
    output:
        fig4=report_output(f"{PATTERN_OUT}/figures/fig4.png", "pattern", "figures"),
    log:
        "logs/pattern/fig4.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.figures:fig4",
    script:
        RUN


rule byo_pattern:
    input:
        unpack(byo_inputs(PATTERN.byo, PATTERN.score_sets)),
        **SCORED_SET_INPUTS,
        counts=rules.scores_pattern.output.counts,
    output:
        table=report_output(f"{PATTERN_OUT}/byo/{{name}}.csv", "pattern", "tables"),
    log:
        "logs/pattern/byo_{name}.log",
    wildcard_constraints:
        name=r"[A-Za-z0-9_.-]+",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.neural_tables:byo",
        selection=PATTERN_SELECTION,
        sets=PATTERN_CONFIG["score_sets"],
        bootstrap=PATTERN_BOOTSTRAP,
        batch=PATTERN_CONFIG["batch"],
        seed=PATTERN_SEED,
    script:
        RUN


rule pattern_byo:
    input:
        expand(f"{PATTERN_OUT}/byo/{{name}}.csv", name=PATTERN.byo),


rule pattern_neural_tables:
    input:
        rules.table1_pattern.output,
        rules.table5_pattern.output,
        rules.table9_pattern.output,
        rules.table10_pattern.output,
        rules.table11_pattern.output,
        rules.table12_pattern.output,
        rules.table13_pattern.output,
        rules.table14_pattern.output,
        rules.oracle_auc_pattern.output,
        rules.fig3_pattern.output,
        rules.fig4_pattern.output,
        rules.pattern_byo.input,


rule pattern:
    input:
        rules.pattern_matcher.input,
        rules.pattern_baselines.input,
        rules.pattern_neural_tables.input,


STUDY_TARGETS["pattern"] = list(rules.pattern.input)
