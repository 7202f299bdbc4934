rule download:
    output:
        manifest=f"{RAW_DIR}/{{dataset}}.sources.json",
    log:
        "logs/download/{dataset}.log",
    conda:
        "../envs/data.yaml"
    params:
        # (the mirror is read from the config in the script: where a verified file comes from changes nothing)
        raw_dir=lambda w, output: Path(output.manifest).parent,
    script:
        "../scripts/download.py"


rule text_store:
    input:
        manifest=f"{RAW_DIR}/{{dataset}}.sources.json",
    output:
        store="data/sets/{dataset}.{vectors}.npz",
        meta="data/sets/{dataset}.{vectors}.json",
    wildcard_constraints:
        vectors="glove-6b-50d|word2vec-google-news-300|corpus-word2vec",
    log:
        "logs/preprocess/{dataset}.{vectors}.log",
    conda:
        "../envs/data.yaml"
    params:
        raw_dir=lambda w, input: Path(input.manifest).parent,
        val_fraction=config["data"]["val_fraction"],
        seed=config["seed"],
        wmd_mat=lambda w: wmd_mat_path(w.dataset, config),
    script:
        "../scripts/text_store.py"


rule struc2vec:
    input:
        manifest=f"{RAW_DIR}/{{dataset}}.sources.json",
    output:
        embedding="data/embed/{dataset}.struc2vec.npy",
    log:
        "logs/embed/{dataset}.struc2vec.log",
    benchmark:
        "benchmarks/embed/{dataset}.struc2vec.tsv"
    threads: ALL_CORES
    conda:
        "../envs/data.yaml"
    params:
        raw_dir=lambda w, input: Path(input.manifest).parent,
        options=lambda w: struc2vec_options(w.dataset, config),
        seed=config["seed"],
    script:
        "../scripts/struc2vec.py"


rule graph_store:
    input:
        manifest=f"{RAW_DIR}/{{dataset}}.sources.json",
        embedding="data/embed/{dataset}.struc2vec.npy",
    output:
        store="data/sets/{dataset}.struc2vec.npz",
        meta="data/sets/{dataset}.struc2vec.json",
    log:
        "logs/preprocess/{dataset}.struc2vec.log",
    conda:
        "../envs/data.yaml"
    params:
        raw_dir=lambda w, input: Path(input.manifest).parent,
        val_fraction=config["data"]["val_fraction"],
        seed=config["seed"],
        options=lambda w: struc2vec_options(w.dataset, config),
    script:
        "../scripts/graph_store.py"


rule dataset_table:
    input:
        # text: the built stores (counts after preprocessing); graphs: the raw files (no embedding needed)
        stores=[store_path(d, config) if d in TEXT else f"{RAW_DIR}/{d}.sources.json" for d in DATASETS],
    output:
        md="results/tables/datasets.md",
        text_csv="results/tables/datasets_text.csv",
        graph_csv="results/tables/datasets_graphs.csv",
    log:
        "logs/tables/datasets.log",
    conda:
        "../envs/data.yaml"
    params:
        datasets=DATASETS,
    script:
        "../scripts/dataset_table.py"


rule embedding_table:
    input:
        embeddings=expand("data/embed/{dataset}.struc2vec.npy", dataset=GRAPHS),
        manifests=expand(f"{RAW_DIR}/{{dataset}}.sources.json", dataset=GRAPHS),
    output:
        md="results/tables/embeddings.md",
        tex="results/tables/embeddings.tex",
        csv="results/tables/embeddings.csv",
    log:
        "logs/tables/embeddings.log",
    conda:
        "../envs/data.yaml"
    params:
        datasets=GRAPHS,
        # written by the struc2vec jobs (their benchmark: files); "-" in the table where absent
        benchmarks=expand("benchmarks/embed/{dataset}.struc2vec.tsv", dataset=GRAPHS),
        options=[struc2vec_options(d, config) for d in GRAPHS],
        seed=config["seed"],
    script:
        "../scripts/embedding_table.py"
