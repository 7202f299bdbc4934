"""One Markdown file (a table, REPORT.md) as an HTML page for the Snakemake report."""
from repset.pipeline.joblog import job_log
from repset.report.html import write_markdown_page

with job_log(snakemake.log[0]):
    write_markdown_page(snakemake.input.md, snakemake.output.html)
