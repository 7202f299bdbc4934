rule bench_solvers:
    output:
        table="results/bench/solvers.csv",
    log:
        "logs/bench/solvers.log",
    threads: ALL_CORES
    conda:
        "../envs/core.yaml"
    params:
        bench=config["bench"],
        seed=config["seed"],
    script:
        "../scripts/bench_solvers.py"


rule bench_epoch:
    input:
        stores=[store_path(d, config) for d in config["bench"].get("epoch_stores", [])],
    output:
        table="results/bench/epoch.csv",
    log:
        "logs/bench/epoch.log",
    threads: ALL_CORES
    conda:
        "../envs/core.yaml"
    params:
        bench=config["bench"],
        names=[get_spec(d).name for d in config["bench"].get("epoch_stores", [])],
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
        "../envs/core.yaml"
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
        "../envs/verify.yaml"
    params:
        verify=config["verify"],
        seed=config["seed"],
    script:
        "../scripts/proposition.py"


rule budget:
    input:
        # text: the built stores (set sizes after preprocessing); graphs: raw files (node counts, no embedding),
        # or every store where the budget times the datasets' own sets (bench.budget_values: store)
        stores=[store_path(d, config) if d in TEXT or config["bench"].get("budget_values") == "store"
                else f"{RAW_DIR}/{d}.sources.json" for d in DATASETS],
        # finished runs (their epochs replace the epoch bound where a dataset and model has some)
        **({"records": "reproduction/runs.csv"} if os.path.isfile("reproduction/runs.csv") else {}),
    output:
        table="results/budget/protocol.csv",
        summary="results/budget/protocol.md",
    log:
        "logs/bench/budget.log",
    threads: ALL_CORES
    conda:
        "../envs/core.yaml"
    params:
        datasets=DATASETS,
        text=TEXT,
        raw_dir=lambda w, input: next((str(Path(s).parent) for s in input.stores if s.endswith(".sources.json")), None),
        config=lambda w: {k: config[k] for k in ("seed", "solver", "data", "struc2vec", "protocol", "train", "models",
                                                 "train_packs") if k in config},
        sample=config["bench"]["budget_sample"],
        values=config["bench"].get("budget_values", "synthetic"),
    script:
        "../scripts/budget.py"
