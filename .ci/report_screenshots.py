"""Screenshots of every result page of a Snakemake HTML report, or of one HTML page, as a reader sees it, in
headless Chromium.

    python .ci/report_screenshots.py report.html out_dir [--chromium chromium]
    python .ci/report_screenshots.py results/html/REPORT.html out_dir [--fragment mutag-repset ...] [--name report]

For each result of a Snakemake report (its global ``results``), a copy of the report opens that result's view on
load (the same ``app.setView`` call its view button makes) and Chromium saves a PNG screenshot
``out_dir/<result>.png``; the landing page too (``out_dir/_report.png``). A page that is no Snakemake report
(REPORT.md rendered with its cell page, :func:`repset.report.html.write_markdown_page`) gives its first screen
(``out_dir/<name>.png``) and, for each ``--fragment``, a copy that starts at that heading
(``out_dir/<name>_<fragment>.png``). Needs Debian's ``chromium``.
"""
import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

OPEN = """<script>
window.addEventListener("load", function () {{ setTimeout(function () {{
  var path = {path}; var entry = results[path]; var mime = entry.mime_type || "";
  var kind = mime === "text/html" ? "html" : mime.indexOf("image/") === 0 ? "img" : mime === "application/pdf" ? "pdf" : null;
  for (var cat in categories) {{ for (var sub in categories[cat]) {{
    if (JSON.stringify(categories[cat][sub]).indexOf(path) >= 0) {{ app.showCategory(cat); }} }} }}
  if (kind) {{ app.setView({{content: kind, contentPath: entry.data_uri, resultPath: path}}); }}
  else {{ app.showResultInfo(path); }}
}}, 300); }});
</script>"""

#: a plain page's copy that starts at one heading: what precedes it is removed on load (Chromium's headless screenshot
#: follows neither a URL's #fragment nor a scroll: the page would come out blank)
SCROLL = """<script>
window.addEventListener("load", function () {{
  var here = document.getElementById({fragment});
  while (here.previousElementSibling) {{ here.previousElementSibling.remove(); }}
}});
</script>"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report")
    parser.add_argument("out_dir")
    parser.add_argument("--chromium", default="chromium")
    parser.add_argument("--size", default="1500,1000")
    parser.add_argument("--fragment", action="append", default=[], help="a plain page: a heading's id to start a screenshot at")
    parser.add_argument("--name", default=None, help="a plain page: the screenshots' name (default: the file's stem)")
    args = parser.parse_args()
    html = Path(args.report).read_text(encoding="utf-8")
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    head, _, tail = html.rpartition("</body>")        # the page's own closing tag (scripts quote others)
    found = re.search(r"var results = (\{.*?\});\s*\n", html, re.S)
    if found:
        paths = list(json.loads(found.group(1)))
        pages = [("_report", html)] + [(Path(p).name.replace(".", "_"),
                                        head + OPEN.format(path=json.dumps(p)) + "</body>" + tail) for p in paths]
    else:
        name = args.name or Path(args.report).stem
        missing = [f for f in args.fragment if f'id="{f}"' not in html]
        if missing:
            sys.exit(f"{args.report}: no heading with the id {', '.join(missing)}")
        pages = [(name, html)] + [(f"{name}_{f}", head + SCROLL.format(fragment=json.dumps(f)) + "</body>" + tail)
                                  for f in args.fragment]
    for name, page in pages:
        src = out / f"{name}.html"
        src.write_text(page, encoding="utf-8")
        subprocess.run([args.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--window-size={args.size}", "--virtual-time-budget=5000",
                        f"--screenshot={out / (name + '.png')}", src.resolve().as_uri()],
                       check=True, capture_output=True, timeout=120)
        src.unlink()
        print(out / f"{name}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
