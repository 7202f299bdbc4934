# Training at the protocol's grain: one job per dataset, model, grid point, split and seed
# (repset/protocol/jobs.py). Later splits of a grid searched on the first `protocol.grid_splits`
# splits train the point chosen there: their point is `chosen` and they wait for `grid_choice`. A dataset
# with `grid_scope: repetition` has a grid choice per CV repetition: the first's is `grid_choice`'s file
# (grid_seed<s>.json), repetition r >= 1's `grid_choice_repetition`'s (grid_seed<s>_rep<r>.json).
# Datasets listed in `train_packs` (short runs) train in packs instead: one job, one process, for up to
# `train_packs.runs` runs of one dataset, model, seed, grid choice and stage (repset/protocol/packs.py), each record
# written as the `train` rule writes it. Records already there stay out of the packs.

# the train rule covers the datasets that are not packed (a file made by two rules would be ambiguous)
PACKED = packed_datasets(config)
SINGLE_WILDCARDS = {**TRAIN_WILDCARDS, "dataset": name_pattern([d for d in DATASETS if d not in PACKED]) or "(?!)"}


rule train:
    input:
        unpack(train_inputs),
    output:
        record="results/runs/{dataset}/{model}/{point}/split{split}_seed{seed}.json",
    wildcard_constraints:
        **SINGLE_WILDCARDS,
    log:
        "logs/train/{dataset}/{model}/{point}/split{split}_seed{seed}.log",
    benchmark:
        "benchmarks/train/{dataset}/{model}/{point}/split{split}_seed{seed}.tsv"
    threads: 1
    resources:
        runtime=lambda w: job_request(w, "runtime", 120),
        mem_mb=lambda w: job_request(w, "mem_mb", 2000),
        gpu=lambda w: int(train_settings(config, w.model).get("device", "cpu") == "cuda"),
    # on a cluster, jobs whose request is at most 15 minutes travel in groups (profiles/slurm: group-components)
    group:
        lambda w: "short_training" if job_request(w, "runtime", 120) <= 15 else None
    conda:
        "../envs/core.yaml"
    params:
        # only what this run depends on: editing another model, point or dataset reruns nothing here
        settings=lambda w: run_settings(config, w.model, w.point),
        run=lambda w: vars(job_run(w)),
    script:
        "../scripts/train.py"


for pack in packs(config, done=os.path.exists):

    rule:
        name:
            f"train_pack_{pack.name}"
        input:
            store=store_path(pack.runs[0].dataset, config),
            **({"choice": pack.choice} if pack.choice else {}),
        output:
            records=pack.paths,
        log:
            f"logs/train/packs/{pack.name}.log",
        benchmark:
            f"benchmarks/train/packs/{pack.name}.tsv"
        threads: 1
        resources:
            runtime=sum(JOB_RESOURCES.get((r.dataset, r.model, r.point), {}).get("runtime", 2) for r in pack.runs),
            mem_mb=max(JOB_RESOURCES.get((r.dataset, r.model, r.point), {}).get("mem_mb", 2000) for r in pack.runs),
        conda:
            "../envs/core.yaml"
        params:
            jobs=[{"run": vars(r), "settings": run_settings(config, r.model, r.point), "out": r.path} for r in pack.runs],
        script:
            "../scripts/train_pack.py"


# A packed dataset's finished records (restored or trained) stay out of the packs; this rule claims them so that
# naming one as a target finds it done. It never trains: a record forced to rerun (-f, or stale) is an error.
PACKED_DONE = [r.path for d in PACKED for r in runs(config, [d]) if os.path.exists(r.path)]

if PACKED_DONE:

    rule packed_record:
        output:
            PACKED_DONE,
        localrule: True
        log:
            "logs/train/packed_record.log",
        conda:
            "../envs/core.yaml"
        shell:
            "echo 'a packed record reruns inside a pack: delete it and run again ({output})' > {log}; exit 1"


rule grid_choice:
    # reads a few records: run it on the submitting node, not as a cluster job
    localrule: True
    input:
        records=lambda w: grid_choice_inputs(config, w.dataset, w.model, int(w.seed), 0),
    output:
        choice="results/runs/{dataset}/{model}/grid_seed{seed}.json",
    wildcard_constraints:
        dataset=TRAIN_WILDCARDS["dataset"],
        model=TRAIN_WILDCARDS["model"],
        seed=TRAIN_WILDCARDS["seed"],
    log:
        "logs/train/{dataset}/{model}/grid_seed{seed}.log",
    conda:
        "../envs/core.yaml"
    script:
        "../scripts/grid_choice.py"


use rule grid_choice as grid_choice_repetition with:
    input:
        records=lambda w: grid_choice_inputs(config, w.dataset, w.model, int(w.seed), int(w.repetition)),
    output:
        choice="results/runs/{dataset}/{model}/grid_seed{seed}_rep{repetition}.json",
    wildcard_constraints:
        dataset=TRAIN_WILDCARDS["dataset"],
        model=TRAIN_WILDCARDS["model"],
        seed=TRAIN_WILDCARDS["seed"],
        repetition=r"[1-9]\d*",
    log:
        "logs/train/{dataset}/{model}/grid_seed{seed}_rep{repetition}.log",


rule aggregate:
    input:
        runs=[run.path for run in runs(config)],
    output:
        runs="results/aggregate/runs.csv",
        selected="results/aggregate/selected.csv",
        summary="results/aggregate/summary.csv",
        training="results/aggregate/training.csv",     # how the runs were trained, as their records say
    log:
        "logs/aggregate.log",
    conda:
        "../envs/core.yaml"
    script:
        "../scripts/aggregate.py"
