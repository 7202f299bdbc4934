rule runtime_table:
    output:
        table="results/runtime/epochs.csv",
    log:
        "logs/runtime.log",
    benchmark:
        "benchmarks/runtime.tsv"
    threads: ALL_CORES
    conda:
        "../envs/core.yaml"
    params:
        runtime=config["runtime"],
        seed=config["seed"],
    script:
        "../scripts/runtime_table.py"


rule runtime_figure:
    input:
        table=rules.runtime_table.output.table,
    output:
        pdf="figures/runtime.pdf",
        png=report("figures/runtime.png", caption="../report/runtime.rst", category="Figures"),
    log:
        "logs/runtime_figure.log",
    conda:
        "../envs/core.yaml"
    script:
        "../scripts/runtime_figure.py"
