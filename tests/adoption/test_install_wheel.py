"""On your own project: gpufleet built as a wheel, installed into another project's environment, checks
that project's stacks and serves the policy pack from the installed package (README "In your own
Pulumi project").

The wheel is built with pip from this checkout (the build backend, setuptools>=77, comes from the
index unless the environment already has it); the fresh virtualenv takes gpufleet from the wheel alone
and its third-party dependencies from the test's own environment (a path entry, so nothing of this
checkout leaks in). About 30 s, most of it the build."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str | Path, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    source = tmp_path_factory.mktemp("src") / "gpufleet"
    # A clean copy: the build must not pick up caches or the checkov environment.
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(".venv*", ".git", "__pycache__", "*.egg-info", "build", ".*_cache"),
    )
    built = _run(
        sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", out, source, cwd=out, timeout=600
    )
    if built.returncode != 0:
        if "setuptools" in built.stderr and (
            "No matching distribution" in built.stderr or "Could not find" in built.stderr
        ):
            pytest.skip("the build backend (setuptools>=77) cannot be fetched: no package index reachable")
        pytest.fail(built.stdout + built.stderr)
    (found,) = out.glob("gpufleet-*.whl")
    return found


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("team") / "venv"
    made = _run(sys.executable, "-m", "venv", home, cwd=home.parent)
    assert made.returncode == 0, made.stderr
    python = home / "bin" / "python"
    purelib = Path(
        _run(
            python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=home.parent
        ).stdout.strip()
    )
    # The dependencies (pulumi and the providers, about 1 GB) from this environment, after the venv's own.
    (purelib / "deps-of-the-test-environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    installed = _run(python, "-m", "pip", "install", "--no-deps", "--no-index", wheel, cwd=home.parent)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return home


def _sample_project(target: Path) -> Path:
    """A team's own Pulumi project: its program uses our components; no gpufleet sources beside it."""
    (target / "stacks").mkdir(parents=True)
    shutil.copy(ROOT / "Pulumi.yaml", target / "Pulumi.yaml")
    shutil.copy(ROOT / "policy-config.json", target / "policy-config.json")
    shutil.copytree(ROOT / "infra", target / "infra", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "stacks" / "Pulumi.dev.yaml", target / "stacks" / "Pulumi.dev.yaml")
    return target


def test_the_wheel_carries_the_policy_pack_components_and_schema(venv: Path) -> None:
    probe = _run(
        venv / "bin" / "python",
        "-c",
        "import gpufleet, gpufleet.components as c, gpufleet.policies as p, importlib.util as u, "
        "importlib.resources as r, json; print(json.dumps({"
        "'gpufleet': gpufleet.__file__, 'components': c.__file__, 'policies': p.__file__, "
        "'top_level': [n for n in ('components', 'policies') if u.find_spec(n)], "
        "'pack': r.files('gpufleet.policies').joinpath('PulumiPolicy.yaml').is_file(), "
        "'catalog': r.files('gpufleet.components.catalog').joinpath('gpus.yaml').is_file(), "
        "'schema': r.files('gpufleet').joinpath('schemas', 'gpufleet-stack.schema.json').is_file(), "
        "'templates': sorted(p.name for p in r.files('gpufleet.templates').iterdir() "
        "if p.name.endswith('.yaml'))}))",
        cwd=venv.parent,
    )
    assert probe.returncode == 0, probe.stderr
    found = json.loads(probe.stdout)
    for package in ("gpufleet", "components", "policies"):
        assert Path(found[package]).is_relative_to(venv), found  # from the wheel, not this checkout
    # Everything installs under gpufleet: nothing takes the names a team's own packages use.
    assert found["top_level"] == []
    assert found["pack"] and found["catalog"] and found["schema"]
    assert "dev-sandbox.yaml" in found["templates"]


def test_check_judges_a_project_with_its_own_components_and_policies(venv: Path, tmp_path: Path) -> None:
    project = _sample_project(tmp_path / "team-fleet")
    # The team's own packages, named as ours are in this repository; its program uses both.
    for package, body in (
        ("components", "def gpu_box_name(stack: str) -> str:\n    return f'gpu-box-{stack}'\n"),
        ("policies", "TEAM_RULES = ('no-public-buckets',)\n"),
    ):
        (project / package).mkdir()
        (project / package / "__init__.py").write_text(body)
    main = project / "infra" / "__main__.py"
    main.write_text(
        "import sys\nfrom pathlib import Path\n\n"
        "sys.path.insert(0, str(Path(__file__).resolve().parents[1]))\n"
        "from components import gpu_box_name  # the team's own\nfrom policies import TEAM_RULES\n\n"
        "assert gpu_box_name('dev') == 'gpu-box-dev' and TEAM_RULES\n\n"
        + main.read_text().replace("from __future__ import annotations\n", "")
    )
    run = _run(venv / "bin" / "gpufleet", "check", "-s", "dev", "--no-checkov", cwd=project)
    assert run.returncode == 0, run.stdout + run.stderr
    [stack] = json.loads(run.stdout)["stacks"]
    assert (stack["stack"], stack["violations"]) == ("dev", [])
    assert stack["resources"] > 50


def test_check_runs_on_a_sample_project_from_the_installed_wheel(venv: Path, tmp_path: Path) -> None:
    project = _sample_project(tmp_path / "vision-fleet")
    run = _run(venv / "bin" / "gpufleet", "check", "-s", "dev", "--no-checkov", cwd=project)
    assert run.returncode == 0, run.stdout + run.stderr
    [stack] = json.loads(run.stdout)["stacks"]
    assert (stack["stack"], stack["violations"]) == ("dev", [])
    assert stack["resources"] > 50
    assert stack["cost"]["monthly_estimate"] > 0
    broken = (
        (project / "stacks" / "Pulumi.dev.yaml").read_text().replace("spot_percent: 100", "spot_percent: 0")
    )
    (project / "stacks" / "Pulumi.dev.yaml").write_text(broken)
    failed = _run(venv / "bin" / "gpufleet", "check", "-s", "dev", "--no-checkov", "-f", "text", cwd=project)
    assert failed.returncode == 1
    assert "fix: in stacks/Pulumi.dev.yaml set pools.experiments.spot_percent: 100" in failed.stdout


def test_the_policy_pack_serves_from_the_installed_package(venv: Path, tmp_path: Path) -> None:
    # The two files README tells a team to add for `pulumi preview --policy-pack gpufleet-pack`.
    pack = tmp_path / "gpufleet-pack"
    pack.mkdir()
    (pack / "PulumiPolicy.yaml").write_text(
        textwrap.dedent("""\
            description: gpufleet guardrails, from the installed gpufleet package
            runtime:
              name: python
              options:
                virtualenv: ../venv
            version: 0.1.0
        """)
    )
    (pack / "__main__.py").write_text(
        'import runpy\n\nrunpy.run_module("gpufleet.policies", run_name="__main__")\n'
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    process = subprocess.Popen(
        [str(venv / "bin" / "python"), "-u", str(pack / "__main__.py")],
        cwd=pack, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        port = process.stdout.readline().strip()
        # Started as the Pulumi CLI starts a pack: it prints the port of its Analyzer gRPC server first.
        assert port.isdigit(), port + (
            process.stderr.read() if process.poll() is not None and process.stderr else ""
        )
        assert 0 < int(port) < 65536
    finally:
        process.kill()
        process.wait(timeout=30)


def test_new_makes_a_project_that_checks_clean_from_the_installed_wheel(venv: Path, tmp_path: Path) -> None:
    # `gpufleet new` in an empty directory: the program, pack shim and policy config all come from the wheel.
    project = tmp_path / "vision-fleet"
    made = _run(
        venv / "bin" / "gpufleet", "new", "dev", "--from", "dev-sandbox", project, "--project", "vision",
        "--team", "ml-platform", "--cost-center", "cc-042", "--budget", "3000", "--region", "us-east-1",
        cwd=tmp_path,
    )  # fmt: skip
    assert made.returncode == 0, made.stdout + made.stderr
    # The team's own packages beside it, named as ours are in this repository.
    for package in ("components", "policies"):
        (project / package).mkdir()
        (project / package / "__init__.py").write_text("OURS = True\n")
    run = _run(venv / "bin" / "gpufleet", "check", "-s", "dev", "--no-checkov", cwd=project)
    assert run.returncode == 0, run.stdout + run.stderr
    [stack] = json.loads(run.stdout)["stacks"]
    assert (stack["project"], stack["violations"]) == ("vision", [])
    assert stack["cost"]["monthly_estimate"] > 0
