# pattern study (paper 000), part 1: regenerated PATTERN, canonical reuse counts, generator-aware predictors.
import yaml

import graphaudit.pattern.scoring as pattern_scoring

PATTERN = {**config["pattern"], "seed": config["seed"]}
PATTERN_SETS = list(PATTERN["score_sets"])
PATTERN_DATA = "data/generated/pattern"
PATTERN_OUT = "results/pattern"
PATTERN_SET_FILE = {"test": "official_test", "val": "official_val", "fresh": "fresh", "familiar": "familiar"}
# Each rule gets only the settings it reads, so changing one (say, bootstrap replicates) reruns only what depends on it.
PATTERN_SELECT = {k: PATTERN[k] for k in ("seed", "n_patterns", "per_pattern", "evaluate", "sets", "shard_size")}
PATTERN_CHAINS = {k: PATTERN["blind"][k] for k in ("restarts", "iterations", "prior", "noprior")}
PATTERN_QUOTED = yaml.safe_load(Path(PATTERN["published"]).read_text(encoding="utf-8"))
PATTERN_PUBLISHED = PATTERN_QUOTED["published"]


def pattern_shards(set_name, kind):
    n = pattern_scoring.n_shards(set_name, PATTERN)
    return [f"{PATTERN_OUT}/{set_name}/{kind}/shard{k}.npz" for k in range(n)]


rule pattern_generate:
    input:
        # the official release (registry entry PATTERN) when pattern.source is release; else nothing to read
        **({"release": "data/processed/PATTERN.npz"} if PATTERN["source"] == "release" else {}),
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
        entry="graphaudit.pattern.tasks:generate",
        pattern={k: PATTERN[k] for k in ("seed", "source", "version", "size_law", "n_patterns", "per_pattern", "sets")},
    script:
        RUN


rule pattern_library:
    input:
        train=f"{PATTERN_DATA}/official_train.npz",
        val=f"{PATTERN_DATA}/official_val.npz",
        test=f"{PATTERN_DATA}/official_test.npz",
    output:
        library=f"{PATTERN_OUT}/library.npz",
        table6=f"{PATTERN_OUT}/tables/table6.csv",
    log:
        "logs/pattern/library.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tasks:library",
    script:
        RUN


rule pattern_generator_checks:
    input:
        library=f"{PATTERN_OUT}/library.npz",
        train=f"{PATTERN_DATA}/official_train.npz",
    output:
        table=f"{PATTERN_OUT}/tables/generator_checks.csv",
    log:
        "logs/pattern/generator_checks.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tasks:generator_checks",
        pattern={k: PATTERN[k] for k in ("version", "size_law")},
    script:
        RUN


rule pattern_blind:
    input:
        graphs=lambda w: f"{PATTERN_DATA}/{PATTERN_SET_FILE[w.set]}.npz",
    output:
        posterior=f"{PATTERN_OUT}/{{set}}/blind_{{variant}}/shard{{shard}}.npz",
    log:
        "logs/pattern/blind_{set}_{variant}_{shard}.log",
    wildcard_constraints:
        variant="prior|noprior",
        shard=r"\d+",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tasks:blind",
        pattern={**PATTERN_SELECT, "blind": PATTERN_CHAINS},
    script:
        RUN


rule pattern_blind_checks:
    input:
        graphs=f"{PATTERN_DATA}/official_test.npz",
    output:
        chains=f"{PATTERN_OUT}/test/blind_checks/shard{{shard}}.npz",
    log:
        "logs/pattern/blind_checks_{shard}.log",
    wildcard_constraints:
        shard=r"\d+",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tasks:blind_checks",
        pattern={**PATTERN_SELECT, "blind": PATTERN["blind"]},
    script:
        RUN


rule pattern_blind_checks_table:
    input:
        train=f"{PATTERN_DATA}/official_train.npz",
        test=f"{PATTERN_DATA}/official_test.npz",
        chains=[f"{PATTERN_OUT}/test/blind_checks/shard{k}.npz" for k in range(pattern_scoring.n_check_shards(PATTERN))],
    output:
        table=f"{PATTERN_OUT}/tables/blind_checks.csv",
    log:
        "logs/pattern/blind_checks_table.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tasks:blind_checks_table",
        pattern=PATTERN,
    script:
        RUN


rule pattern_match:
    input:
        graphs=lambda w: f"{PATTERN_DATA}/{PATTERN_SET_FILE[w.set]}.npz",
        library=f"{PATTERN_OUT}/library.npz",
        noprior=f"{PATTERN_OUT}/{{set}}/blind_noprior/shard{{shard}}.npz",
    output:
        predictions=f"{PATTERN_OUT}/{{set}}/matcher/shard{{shard}}.npz",
    log:
        "logs/pattern/match_{set}_{shard}.log",
    benchmark:
        "benchmarks/pattern/match_{set}_{shard}.tsv"
    wildcard_constraints:
        shard=r"\d+",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tasks:match",
        pattern={
            **PATTERN_SELECT,
            "blind": {k: PATTERN["blind"][k] for k in ("restarts", "iterations")},
            "matcher": PATTERN["matcher"],
        },
    script:
        RUN


rule pattern_tables:
    input:
        **{s: f"{PATTERN_DATA}/{PATTERN_SET_FILE[s]}.npz" for s in PATTERN_SETS},
        **{f"blind_{v}_{s}": pattern_shards(s, f"blind_{v}") for s in PATTERN_SETS for v in ("prior", "noprior")},
        **{f"matcher_{s}": pattern_shards(s, "matcher") for s in PATTERN_SETS},
        train=f"{PATTERN_DATA}/official_train.npz",
    output:
        table2=f"{PATTERN_OUT}/tables/table2.csv",
        table3=f"{PATTERN_OUT}/tables/table3.csv",
        table7=f"{PATTERN_OUT}/tables/table7.csv",
        table8=f"{PATTERN_OUT}/tables/table8.csv",
        matcher=f"{PATTERN_OUT}/tables/matcher_diagnostics.csv",
        appendix_b=f"{PATTERN_OUT}/tables/appendix_b.csv",
        fig2=f"{PATTERN_OUT}/figures/fig2.png",
    log:
        "logs/pattern/tables.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tasks:tables",
        pattern=PATTERN,
        sets=PATTERN_SETS,
        published=PATTERN_PUBLISHED,
    script:
        RUN


rule pattern_reuse_figure:
    input:
        train=f"{PATTERN_DATA}/official_train.npz",
        test=f"{PATTERN_DATA}/official_test.npz",
    output:
        fig1=f"{PATTERN_OUT}/figures/fig1.png",
    log:
        "logs/pattern/fig1.log",
    conda:
        ENV
    params:
        entry="graphaudit.pattern.tasks:reuse_figure",
        size=20,  # the paper shows the first test graph whose pattern has 20 nodes
        seed=config["seed"],
    script:
        RUN


rule table2_pattern:
    input:
        rules.pattern_tables.output.table2,


rule table3_pattern:
    input:
        rules.pattern_tables.output.table3,


rule table6_pattern:
    input:
        rules.pattern_library.output.table6,


rule table7_pattern:
    input:
        rules.pattern_tables.output.table7,


rule table8_pattern:
    input:
        rules.pattern_tables.output.table8,


rule fig1_pattern:
    input:
        rules.pattern_reuse_figure.output.fig1,


rule fig2_pattern:
    input:
        rules.pattern_tables.output.fig2,


rule pattern_matcher:
    input:
        rules.pattern_tables.output,
        rules.pattern_library.output.table6,
        rules.pattern_generator_checks.output,
        rules.pattern_reuse_figure.output,
        rules.pattern_blind_checks_table.output,


include: "pattern_baselines.smk"


rule pattern:
    input:
        rules.pattern_matcher.input,
        rules.pattern_baselines.input,


STUDY_TARGETS["pattern"] = list(rules.pattern.input)
