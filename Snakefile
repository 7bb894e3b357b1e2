# graphaudit: reproduces five studies of what graph-learning benchmarks measure.
# Run everything: snakemake --cores N        One table: snakemake <target>        Cluster: --profile workflow/profiles/slurm
from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "config/config.yaml"


validate(config, "config/schema.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/pattern.smk"
include: "workflow/rules/pattern_baselines.smk"
include: "workflow/rules/nodeground.smk"
include: "workflow/rules/glad.smk"
include: "workflow/rules/glad_deep.smk"
include: "workflow/rules/graphlm.smk"
include: "workflow/rules/llmpattern.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/bench.smk"


rule all:
    default_target: True
    input:
        rules.report.output,
