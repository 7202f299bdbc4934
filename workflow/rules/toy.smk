rule toy:
    output:
        pdf="figures/toy.pdf",
        png=report("figures/toy.png", caption="../report/toy.rst", category="Figures"),
        record="results/toy/record.json",
    log:
        "logs/toy.log",
    conda:
        "../envs/core.yaml"
    params:
        toy=config["toy"],
        solver=config["solver"],
        seed=config["seed"],
    script:
        "../scripts/toy.py"
