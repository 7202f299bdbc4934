rule train:
    input:
        store=lambda w: store_path(w.dataset, config),
    output:
        runs="results/runs/{dataset}/{model}/seed{seed}.json",
    log:
        "logs/train/{dataset}/{model}/seed{seed}.log",
    benchmark:
        "benchmarks/train/{dataset}/{model}/seed{seed}.tsv"
    threads: 1
    conda:
        "../../environment.yml"
    params:
        # only what this run depends on: editing another model's grid or the dataset list reruns nothing here
        config=lambda w: {
            **{k: config[k] for k in ("data", "protocol", "train")},
            "solver": config["solver"] if config["models"][w.model]["layer"] == "repset" else None,
            "models": {w.model: config["models"][w.model]},
        },
    script:
        "../scripts/train.py"


rule aggregate:
    input:
        runs=[
            f"results/runs/{d}/{m}/seed{s}.json"
            for d in DATASETS
            for m in config["models"]
            for s in config["protocol"]["seeds"]
        ],
    output:
        runs="results/aggregate/runs.csv",
        selected="results/aggregate/selected.csv",
        summary="results/aggregate/summary.csv",
    log:
        "logs/aggregate.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/aggregate.py"
