"""The latent-set tables of every init of the study, side by side."""
from repset.pipeline.init_study import latent_sets_side_by_side
from repset.pipeline.joblog import job_log

with job_log(snakemake.log[0]):
    latent_sets_side_by_side(dict(zip(snakemake.params.inits, snakemake.input.csv)),
                             snakemake.output.table[0].rsplit(".", 1)[0])
