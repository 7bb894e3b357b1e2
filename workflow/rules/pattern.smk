# pattern study (paper 000), part 1: regenerated PATTERN, canonical reuse counts, generator-aware predictors.
# Every table and figure is its own rule: <name>_pattern -> graphaudit.pattern.tables:<name> (or .figures)
# -> results/pattern/tables/<name>.csv. Each rule's params carry only the config keys its function reads.
from graphaudit.common.settings import config_slice
from graphaudit.common.settings import load_settings
from graphaudit.pattern.plan import n_check_shards, n_shards
from graphaudit.pattern.settings import (
    BlindChains,
    GeneratorLaw,
    Generation,
    HostFit,
    PatternSettings,
    Selection,
    load_published,
)
from graphaudit.pattern.shards import shard_paths

PATTERN_CONFIG = config["pattern"]
PATTERN = load_settings(PatternSettings, PATTERN_CONFIG, "config.pattern")  # the whole section, checked once
PATTERN_SEED = config["seed"]
PATTERN_SELECTION = config_slice(Selection, PATTERN_CONFIG)  # which graphs each set scores, shard size
PATTERN_SELECTED = load_settings(Selection, PATTERN_SELECTION)
PATTERN_BOOTSTRAP = PATTERN_CONFIG["bootstrap"]
PATTERN_QUOTED = load_published(PATTERN.published)
PATTERN_DATA = "data/generated/pattern"
PATTERN_OUT = "results/pattern"
PATTERN_SCORES = f"{PATTERN_OUT}/scores"
PATTERN_SET_FILE = {"test": "official_test", "val": "official_val", "fresh": "fresh", "familiar": "familiar"}
# the neural runs' tidy scores (rule neural_scores_pattern, pattern_neural_tables.smk) and what every table that
# scores a neural run beside the pattern-blind predictors reads (Table 3 here, Tables 9-14 there)
PATTERN_NEURAL_SCORES = {n: f"{PATTERN_OUT}/neural/scores/{n}.csv" for n in ("counts", "sets", "runs", "graphs")}
NEURAL_TABLE_INPUTS = {
    **{f"neural_{n}": path for n, path in PATTERN_NEURAL_SCORES.items()},
    "counts": f"{PATTERN_SCORES}/counts.csv",
    "blind_sets": f"{PATTERN_SCORES}/sets.csv",
}


rule generate_pattern:
    input:
        # the official release (registry entry PATTERN) when pattern.source is release; else nothing to read
        **({"release": "data/processed/PATTERN.npz"} if PATTERN.source == "release" else {}),
    output:
        **{f"official_{s}": f"{PATTERN_DATA}/official_{s}.npz" for s in ("train", "val", "test")},
        **{f"truth_official_{s}": f"{PATTERN_DATA}/truth/official_{s}.npz" for s in ("train", "val", "test")},
        fresh=f"{PATTERN_DATA}/fresh.npz",
        truth_fresh=f"{PATTERN_DATA}/truth/fresh.npz",
        familiar=f"{PATTERN_DATA}/familiar.npz",
        truth_familiar=f"{PATTERN_DATA}/truth/familiar.npz",
    log:
        "logs/pattern/generate.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.planted.tasks:generate",
        pattern=config_slice(Generation, PATTERN_CONFIG),
        seed=PATTERN_SEED,
    script:
        RUN


rule library_pattern:
    input:
        train=f"{PATTERN_DATA}/official_train.npz",
        val=f"{PATTERN_DATA}/official_val.npz",
        test=f"{PATTERN_DATA}/official_test.npz",
    output:
        library=f"{PATTERN_OUT}/library.npz",
        ids=f"{PATTERN_OUT}/pattern_ids.csv",
    log:
        "logs/pattern/library.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.planted.tasks:library",
    script:
        RUN


rule table6_pattern:
    input:
        library=rules.library_pattern.output.library,
        ids=rules.library_pattern.output.ids,
    output:
        table=report_output(f"{PATTERN_OUT}/tables/table6.csv", "pattern", "tables"),
    log:
        "logs/pattern/table6.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tables:table6",
    script:
        RUN


rule generator_checks_pattern:
    input:
        library=rules.library_pattern.output.library,
        train=f"{PATTERN_DATA}/official_train.npz",
    output:
        table=report_output(f"{PATTERN_OUT}/tables/generator_checks.csv", "pattern", "tables"),
    log:
        "logs/pattern/generator_checks.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tables:generator_checks",
        law=config_slice(GeneratorLaw, PATTERN_CONFIG),
    script:
        RUN


rule blind_pattern:
    input:
        graphs=lambda w: f"{PATTERN_DATA}/{PATTERN_SET_FILE[w.set]}.npz",
    output:
        posterior=f"{PATTERN_OUT}/{{set}}/blind_{{variant}}/shard{{shard}}.npz",
    log:
        "logs/pattern/blind_{set}_{variant}_{shard}.log",
    wildcard_constraints:
        set="|".join(PATTERN_SET_FILE),
        variant="prior|noprior",
        shard=r"\d+",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.planted.tasks:blind",
        selection=PATTERN_SELECTION,
        blind=config_slice(BlindChains, PATTERN_CONFIG["blind"]),
        seed=PATTERN_SEED,
    script:
        RUN


rule start_chains_pattern:
    input:
        graphs=f"{PATTERN_DATA}/official_test.npz",
    output:
        chains=f"{PATTERN_OUT}/test/blind_checks/shard{{shard}}.npz",
    log:
        "logs/pattern/start_chains_{shard}.log",
    wildcard_constraints:
        shard=r"\d+",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.planted.tasks:start_chains",
        selection=PATTERN_SELECTION,
        blind=PATTERN_CONFIG["blind"],
        seed=PATTERN_SEED,
    script:
        RUN


rule blind_checks_pattern:
    input:
        train=f"{PATTERN_DATA}/official_train.npz",
        test=f"{PATTERN_DATA}/official_test.npz",
        chains=shard_paths(f"{PATTERN_OUT}/test/blind_checks", n_check_shards(PATTERN_SELECTED, PATTERN.blind.checks)),
    output:
        table=report_output(f"{PATTERN_OUT}/tables/blind_checks.csv", "pattern", "tables"),
    log:
        "logs/pattern/blind_checks.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tables:blind_checks",
        selection=PATTERN_SELECTION,
        checks=PATTERN_CONFIG["blind"]["checks"],
        bootstrap=PATTERN_BOOTSTRAP,
        seed=PATTERN_SEED,
    script:
        RUN


rule match_pattern:
    input:
        graphs=lambda w: f"{PATTERN_DATA}/{PATTERN_SET_FILE[w.set]}.npz",
        library=rules.library_pattern.output.library,
        noprior=f"{PATTERN_OUT}/{{set}}/blind_noprior/shard{{shard}}.npz",
    output:
        predictions=f"{PATTERN_OUT}/{{set}}/matcher/shard{{shard}}.npz",
    log:
        "logs/pattern/match_{set}_{shard}.log",
    benchmark:
        "benchmarks/pattern/match_{set}_{shard}.tsv"
    wildcard_constraints:
        set="|".join(PATTERN_SET_FILE),
        shard=r"\d+",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.planted.tasks:match",
        selection=PATTERN_SELECTION,
        host=config_slice(HostFit, PATTERN_CONFIG["blind"]),
        matcher=PATTERN_CONFIG["matcher"],
        seed=PATTERN_SEED,
    script:
        RUN


rule scores_pattern:
    input:
        **{s: f"{PATTERN_DATA}/{PATTERN_SET_FILE[s]}.npz" for s in PATTERN.score_sets},
        **{
            f"{kind}_{s}": shard_paths(f"{PATTERN_OUT}/{s}/{kind}", n_shards(s, PATTERN_SELECTED))
            for s in PATTERN.score_sets
            for kind in ("blind_prior", "blind_noprior", "matcher")
        },
        train=f"{PATTERN_DATA}/official_train.npz",
    output:
        counts=f"{PATTERN_SCORES}/counts.csv",
        graphs=f"{PATTERN_SCORES}/graphs.csv",
        sets=f"{PATTERN_SCORES}/sets.csv",
    log:
        "logs/pattern/scores.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.planted.tasks:scores",
        selection=PATTERN_SELECTION,
        sets=PATTERN_CONFIG["score_sets"],
    script:
        RUN


rule table2_pattern:
    input:
        counts=rules.scores_pattern.output.counts,
    output:
        table=report_output(f"{PATTERN_OUT}/tables/table2.csv", "pattern", "tables"),
    log:
        "logs/pattern/table2.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tables:table2",
        published=PATTERN_QUOTED["published"],
        bootstrap=PATTERN_BOOTSTRAP,
        seed=PATTERN_SEED,
    script:
        RUN


rule table3_pattern:
    input:
        **NEURAL_TABLE_INPUTS,
    output:
        table=report_output(f"{PATTERN_OUT}/tables/table3.csv", "pattern", "tables"),
    log:
        "logs/pattern/table3.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tables:table3",
        bootstrap=PATTERN_BOOTSTRAP,
        batch=PATTERN_CONFIG["batch"],
        seed=PATTERN_SEED,
    script:
        RUN


rule table7_pattern:
    input:
        graphs=rules.scores_pattern.output.graphs,
    output:
        table=report_output(f"{PATTERN_OUT}/tables/table7.csv", "pattern", "tables"),
    log:
        "logs/pattern/table7.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tables:table7",
    script:
        RUN


rule table8_pattern:
    input:
        counts=rules.scores_pattern.output.counts,
    output:
        table=report_output(f"{PATTERN_OUT}/tables/table8.csv", "pattern", "tables"),
    log:
        "logs/pattern/table8.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tables:table8",
        batch=PATTERN_CONFIG["batch"],
    script:
        RUN


rule matcher_diagnostics_pattern:
    input:
        graphs=rules.scores_pattern.output.graphs,
    output:
        table=report_output(f"{PATTERN_OUT}/tables/matcher_diagnostics.csv", "pattern", "tables"),
    log:
        "logs/pattern/matcher_diagnostics.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tables:matcher_diagnostics",
    script:
        RUN


rule appendix_b_pattern:
    input:
        graphs=rules.scores_pattern.output.graphs,
        sets=rules.scores_pattern.output.sets,
    output:
        table=report_output(f"{PATTERN_OUT}/tables/appendix_b.csv", "pattern", "tables"),
    log:
        "logs/pattern/appendix_b.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tables:appendix_b",
    script:
        RUN


rule fig1_pattern:
    input:
        train=f"{PATTERN_DATA}/official_train.npz",
        test=f"{PATTERN_DATA}/official_test.npz",
    output:
        fig1=report_output(f"{PATTERN_OUT}/figures/fig1.png", "pattern", "figures"),
    log:
        "logs/pattern/fig1.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.figures:fig1",
        size=20,  # the paper shows the first test graph whose pattern has 20 nodes
        seed=PATTERN_SEED,
    script:
        RUN


rule fig2_pattern:
    input:
        counts=rules.scores_pattern.output.counts,
    output:
        fig2=report_output(f"{PATTERN_OUT}/figures/fig2.png", "pattern", "figures"),
    log:
        "logs/pattern/fig2.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.figures:fig2",
        published=PATTERN_QUOTED["published"],
        bootstrap=PATTERN_BOOTSTRAP,
        seed=PATTERN_SEED,
    script:
        RUN


rule pattern_matcher:
    input:
        rules.table2_pattern.output,
        rules.table3_pattern.output,
        rules.table6_pattern.output,
        rules.table7_pattern.output,
        rules.table8_pattern.output,
        rules.generator_checks_pattern.output,
        rules.matcher_diagnostics_pattern.output,
        rules.appendix_b_pattern.output,
        rules.blind_checks_pattern.output,
        rules.fig1_pattern.output,
        rules.fig2_pattern.output,
