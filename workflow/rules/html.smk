# HTML pages of REPORT.md and of every Markdown table, for `snakemake --report`: its HTML report shows
# images, HTML and PDF inline and offers every other file as a download only.


rule report_html:
    input:
        md=rules.report.output.report,
        cells=rules.report.output.cells,    # REPORT.md's links to it become links inside the one page
    output:
        html=report("results/html/REPORT.html", caption="../report/report.rst", category="Report"),
    log:
        "logs/html/REPORT.log",
    conda:
        "../envs/core.yaml"
    script:
        "../scripts/html_page.py"


rule table_html:
    input:
        md=lambda w: HTML_TABLES[w.page],
    output:
        html=report("results/html/{page}.html", caption="../report/table_page.rst", category="Tables",
                    labels={"table": "{page}"}),
    wildcard_constraints:
        page="|".join(HTML_TABLES) or "-",
    log:
        "logs/html/{page}.log",
    conda:
        "../envs/core.yaml"
    script:
        "../scripts/html_page.py"
