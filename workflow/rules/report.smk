from repset.protocol.plan import protocol_for, split_count
from repset.report.document import config_file_names


rule wmd:
    input:
        store=lambda w: store_path(w.dataset, config),
    output:
        result="results/wmd/{dataset}.json",
    log:
        "logs/wmd/{dataset}.log",
    benchmark:
        "benchmarks/wmd/{dataset}.tsv"
    threads: ALL_CORES
    conda:
        "../envs/data.yaml"
    params:
        # the dataset's splits only (with its protocol.per_dataset override): the grid search (grid_splits) does
        # not concern WMD, nor do other datasets' overrides
        config=lambda w: {"data": config["data"], "protocol": {
            k: v for k, v in protocol_for(config, w.dataset).items() if k != "grid_splits"}},
        # each finished split and block of queries, so that a stopped job resumes there (repset.pipeline.wmd.wmd_eval)
        checkpoints=lambda w: f"results/wmd/splits/{w.dataset}",
    script:
        "../scripts/wmd.py"


rule majority:
    input:
        store=lambda w: store_path(w.dataset, config),
    output:
        result="results/majority/{dataset}.json",
    log:
        "logs/majority/{dataset}.log",
    conda:
        "../envs/core.yaml"
    params:
        splits=lambda w: split_count(w.dataset, config),
    script:
        "../scripts/majority.py"


rule result_tables:
    input:
        summary=rules.aggregate.output.summary,
        wmd=[f"results/wmd/{d}.json" for d in WMD_DATASETS],
        majority=[f"results/majority/{d}.json" for d in DATASETS],
    output:
        text=multiext("results/tables/text_error", ".md", ".tex"),
        graph=multiext("results/tables/graph_accuracy", ".md", ".tex"),
        text_csv="results/tables/text_error.csv",
        graph_csv="results/tables/graph_accuracy.csv",
    log:
        "logs/tables/results.log",
    conda:
        "../envs/core.yaml"
    params:
        text=[d for d in DATASETS if d in TEXT],
        graph=[d for d in DATASETS if d not in TEXT],
    script:
        "../scripts/result_tables.py"


rule latent_sets:
    input:
        store=lambda w: store_path("bbcsport", config),
    output:
        table=multiext("results/tables/latent_sets", ".md", ".tex", ".csv"),
    log:
        "logs/tables/latent_sets.log",
    conda:
        "../envs/data.yaml"
    params:
        config=lambda w: {"solver": config["solver"], "train": train_settings(config, "repset")},
        vectors=config["data"]["vectors"],
        seed=config["seed"],
        init=config["models"]["repset"]["options"].get("init", "uniform"),
    script:
        "../scripts/latent_sets.py"


rule sensitivity:
    input:
        runs=rules.aggregate.output.runs,
    output:
        pdf="figures/sensitivity_{dataset}.pdf",
        png=report("figures/sensitivity_{dataset}.png", caption="../report/sensitivity.rst", category="Figures"),
    log:
        "logs/figures/sensitivity_{dataset}.log",
    conda:
        "../envs/core.yaml"
    script:
        "../scripts/sensitivity.py"


rule standing:
    # each model from outside the package against every other, paired split by split (repset.protocol.standing)
    input:
        selected=rules.aggregate.output.selected,
    output:
        md="results/tables/standing.md",
        csv="results/tables/standing.csv",
    log:
        "logs/tables/standing.log",
    conda:
        "../envs/core.yaml"
    params:
        models=YOUR_MODELS,
    script:
        "../scripts/standing.py"


rule report:
    input:
        summary=rules.aggregate.output.summary,
        training=rules.aggregate.output.training,
        runs=rules.aggregate.output.runs,               # every run: the validation ties in the grid choice
        wmd=[f"results/wmd/{d}.json" for d in WMD_DATASETS],
        stores=[store_path(d, config) for d in DATASETS],
        majority=rules.result_tables.input.majority,
        tables=rules.result_tables.output,
        budget=rules.budget.output.summary,
        # the initialisation study's table (config init_study; empty without one)
        init_study=rules.init_study_table.output.table[2] if INIT_STUDY else [],
        noise=config.get("noise_table") or [],       # a run-to-run noise table (repset.pipeline.noise)
        notes=config.get("cell_notes") or [],        # what was measured about single cells (repset.report.notes)
        standing=rules.standing.output.md if YOUR_MODELS else [],   # where the models from outside the package stand
        runtime=rules.runtime_table.output.table,   # the runtime claims of the findings (repset.report.claims)
    output:
        report="results/REPORT.md",
        cells="results/cells.md",                   # every cell's numbers, notes, measurements and validation ties
    log:
        "logs/report.log",
    conda:
        "../envs/core.yaml"
    params:
        text=[d for d in DATASETS if d in TEXT],
        graph=[d for d in DATASETS if d not in TEXT],
        # relative to the repository (the Snakefile's parent folder); a file outside it by name and sha256:
        # a committed REPORT names no machine's paths
        configfiles=config_file_names(workflow.configfiles, Path(workflow.basedir).parent),
        init_baseline=configured_init(config) if INIT_STUDY else None,
        latent_by_init="results/tables/latent_sets_by_init.md" if INIT_STUDY.get("latent_sets") else None,
    script:
        "../scripts/report.py"
