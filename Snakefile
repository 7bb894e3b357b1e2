# graphaudit: reproduces five studies of what graph-learning benchmarks measure.
# Run everything: snakemake --cores N        One table: snakemake <target>        Cluster: --profile workflow/profiles/slurm
from snakemake.utils import min_version, validate

from graphaudit.common.config import check_config, read_config_file
from graphaudit.common.workflow import local_rule_names

min_version("9.0")


read_config_file("config/config.yaml")  # a YAML syntax error names the file and line (configfile: does not)


configfile: "config/config.yaml"


# one line per mistake, naming the key and the file that set it; then validate applies the schema's defaults
CONFIG_FILES = ["config/config.yaml", *workflow.overwrite_configfiles]  # in the order Snakemake merged them
check_config(config, "config/schema.yaml", CONFIG_FILES, workflow.config_settings.config)
validate(config, "config/schema.yaml")


report: "workflow/report/workflow.rst"  # the front page of `snakemake --report report.zip`


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/pattern.smk"
include: "workflow/rules/pattern_baselines.smk"
include: "workflow/rules/pattern_neural.smk"
include: "workflow/rules/pattern_neural_tables.smk"
include: "workflow/rules/nodeground.smk"
include: "workflow/rules/glad.smk"
include: "workflow/rules/glad_deep.smk"
include: "workflow/rules/glad_typed.smk"
include: "workflow/rules/graphlm.smk"
include: "workflow/rules/graphlm_lm.smk"
include: "workflow/rules/llmpattern.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/bench.smk"


rule all:
    default_target: True
    input:
        rules.report.output,


workflow.localrules(*local_rule_names(workflow.rules))  # table, figure and report rules run beside Snakemake
