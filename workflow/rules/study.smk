# The hidden-set initialisation study (config `init_study`, repset/protocol/init_study.py): the study's
# model trained from each init at the point the protocol's validation selected per split, a table, and
# the latent-set table per init.


rule init_study_run:
    input:
        store=lambda w: store_path(w.dataset, config),
        protocol=lambda w: selection_inputs(config, init_job(w)),
    output:
        record="results/init_study/{dataset}/{init}/split{split}_seed{seed}.json",
    wildcard_constraints:
        **INIT_WILDCARDS,
    log:
        "logs/init_study/{dataset}/{init}/split{split}_seed{seed}.log",
    benchmark:
        "benchmarks/init_study/{dataset}/{init}/split{split}_seed{seed}.tsv"
    threads: 1
    conda:
        "../envs/core.yaml"
    params:
        settings=lambda w: init_settings(config),
        run=lambda w: vars(init_job(w)),
    script:
        "../scripts/init_study_run.py"


rule init_study_table:
    input:
        runs=[run.path for run in init_runs(config)],
    output:
        table=multiext("results/tables/init_study", ".md", ".tex", ".csv"),
    log:
        "logs/tables/init_study.log",
    conda:
        "../envs/core.yaml"
    params:
        baseline=configured_init(config) if config.get("init_study") else None,
    script:
        "../scripts/init_study_table.py"


rule latent_sets_init:
    input:
        store=lambda w: store_path(config["init_study"]["latent_sets"], config),
    output:
        table=multiext("results/init_study/latent_sets/{init}", ".md", ".tex", ".csv"),
    wildcard_constraints:
        init=INIT_WILDCARDS["init"],
    log:
        "logs/init_study/latent_sets/{init}.log",
    conda:
        "../envs/data.yaml"
    params:
        config=lambda w: {"solver": config["solver"], "train": train_settings(config, config["init_study"]["model"])},
        vectors=config["data"]["vectors"],
        seed=config["seed"],
        init=lambda w: w.init,
    script:
        "../scripts/latent_sets.py"


rule latent_sets_by_init:
    input:
        csv=expand("results/init_study/latent_sets/{init}.csv", init=(config.get("init_study") or {}).get("inits", [])),
    output:
        table=multiext("results/tables/latent_sets_by_init", ".md", ".tex", ".csv"),
    log:
        "logs/tables/latent_sets_by_init.log",
    conda:
        "../envs/core.yaml"
    params:
        inits=(config.get("init_study") or {}).get("inits", []),
    script:
        "../scripts/latent_sets_by_init.py"
