rule bench_solvers:
    output:
        table="results/bench/solvers.csv",
    log:
        "logs/bench/solvers.log",
    threads: workflow.cores
    conda:
        "../../environment.yml"
    params:
        bench=config["bench"],
        seed=config["seed"],
    script:
        "../scripts/bench_solvers.py"


rule bench_epoch:
    output:
        table="results/bench/epoch.csv",
    log:
        "logs/bench/epoch.log",
    threads: workflow.cores
    conda:
        "../../environment.yml"
    params:
        bench=config["bench"],
        seed=config["seed"],
    script:
        "../scripts/bench_epoch.py"


rule bench_figure:
    input:
        solvers=rules.bench_solvers.output.table,
        epoch=rules.bench_epoch.output.table,
    output:
        pdf="figures/bench.pdf",
        png=report("figures/bench.png", caption="../report/bench.rst", category="Benchmarks"),
    log:
        "logs/bench/figure.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/bench_figure.py"


rule proposition:
    input:
        store=store_path(config["verify"]["set_dataset"], config),
    output:
        table="results/verify/proposition.csv",
        summary="results/verify/proposition_summary.csv",
        pdf="figures/proposition.pdf",
        png=report("figures/proposition.png", caption="../report/proposition.rst", category="Figures"),
    log:
        "logs/verify/proposition.log",
    conda:
        "../../environment.yml"
    params:
        verify=config["verify"],
        seed=config["seed"],
    script:
        "../scripts/proposition.py"
