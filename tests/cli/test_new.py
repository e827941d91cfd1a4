"""`gpufleet new`: golden templates render to valid, guardrail-clean stacks; bad input writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from gpufleet.components.spec import load_fleet_from_config, parse_account_baseline
from gpufleet.new import list_templates, render
from tests.cli.helpers import copy_project, invoke

TEAM = ("--project", "vision", "--team", "ml-platform", "--cost-center", "cc-042")
WHERE = ("--region", "us-east-1")
REQUIRED = (*TEAM, "--budget", "60000", *WHERE)
TRAINING = (*REQUIRED, "--replica-region", "us-west-2")
OPTIONS = {"dev-sandbox": REQUIRED, "training": TRAINING, "inference": TRAINING}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path / "fleet", stacks={})


def _stack_dir(project: Path) -> list[str]:
    return sorted(p.name for p in (project / "stacks").iterdir())


def test_list_names_every_template_with_its_description_and_options() -> None:
    result = invoke("new", "--list")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines if not line.startswith(" ")] == [
        "account-baseline",
        "alicloud-dev",
        "dev-sandbox",
        "hybrid",
        "inference",
        "tencent-dev",
        "training",
    ]
    assert lines[0].startswith("account-baseline  the account's once-only resources (Session Manager")
    assert lines[1].strip() == "needs --project, --team, --cost-center, --region"
    assert lines[2].startswith("alicloud-dev      Alibaba Cloud only: one A10 on preemptible instances")
    assert lines[3].strip() == "needs --project, --team, --cost-center, --budget, --region"
    assert lines[4].startswith("dev-sandbox       small T4/A10G all-spot pool")
    assert lines[5].strip() == "needs --project, --team, --cost-center, --budget, --region"
    assert lines[6].startswith("hybrid            hybrid: an on-prem DGX baseline bursting into AWS, Alibaba")
    assert lines[7].strip() == "needs --project, --team, --cost-center, --budget, --region"
    assert lines[10].startswith("tencent-dev       Tencent Cloud only: small T4 all-spot AS pool")
    assert lines[13].strip() == "needs --project, --team, --cost-center, --budget, --region, --replica-region"


@pytest.mark.parametrize("template", ["dev-sandbox", "training", "inference"])
def test_each_template_writes_a_stack_that_check_passes(project: Path, template: str) -> None:
    result = invoke("new", "team-a", "--from", template, str(project), *OPTIONS[template])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == f"wrote stacks/Pulumi.team-a.yaml from template {template}"
    assert f"gpufleet plan {project} -s team-a" in result.stdout
    assert f"gpufleet check {project} -s team-a" in result.stdout
    assert f"pulumi stack init team-a --cwd {project}" in result.stdout
    assert _stack_dir(project) == ["Pulumi.team-a.yaml"]  # no temporary file left behind

    text = (project / "stacks" / "Pulumi.team-a.yaml").read_text()
    # The schema comment for the team's editor (tests/adoption/test_schema.py), then the file's own header.
    assert text.split("\n", 1)[1].startswith("# stacks/Pulumi.team-a.yaml: the ml-platform team's ")
    assert "{{" not in text
    config = yaml.safe_load(text)["config"]
    assert config["aws:region"] == "us-east-1"
    spec = load_fleet_from_config(config)
    assert spec.tags == {"project": "vision", "team": "ml-platform", "cost-center": "cc-042"}
    assert spec.budget.monthly == 60000
    assert spec.budget.alert_percent == 80

    checked = invoke("check", str(project), "-s", "team-a")
    document = json.loads(checked.stdout)
    mandatory = [v for v in document["stacks"][0]["violations"] if v["enforcement"] == "mandatory"]
    assert mandatory == []
    assert checked.exit_code == 0
    assert document["stacks"][0]["cost"]["budget"] == 60000


def test_tencent_template_writes_a_tencent_only_stack(project: Path) -> None:
    result = invoke(
        "new",
        "tc",
        "--from",
        "tencent-dev",
        str(project),
        *TEAM,
        "--budget",
        "8000",
        "--region",
        "ap-guangzhou",
    )
    assert result.exit_code == 0, result.stderr
    config = yaml.safe_load((project / "stacks" / "Pulumi.tc.yaml").read_text())["config"]
    assert config["tencentcloud:region"] == "ap-guangzhou"
    assert [key for key in config if key.startswith("aws:")] == []
    spec = load_fleet_from_config(config)
    assert (spec.budget.monthly, spec.budget.currency) == (8000, "CNY")
    [pool] = spec.pools.values()
    assert (pool.cloud, pool.instance_types, pool.spot_percent) == ("tencentcloud", ["GN7.2XLARGE32"], 100)
    assert pool.off_hours is not None and pool.off_hours.timezone == "Asia/Shanghai"


def test_tencent_template_refuses_an_aws_region_and_an_unpriced_one(project: Path) -> None:
    aws = invoke("new", "tc", "--from", "tencent-dev", str(project), *TEAM, "--budget", "8000", *WHERE)
    assert aws.exit_code == 2
    assert "--region 'us-east-1': a Tencent Cloud region name like ap-guangzhou" in aws.stderr
    unpriced = invoke(
        "new",
        "tc",
        "--from",
        "tencent-dev",
        str(project),
        *TEAM,
        "--budget",
        "8000",
        "--region",
        "eu-frankfurt",
    )
    assert unpriced.exit_code == 2
    assert "pools.t4-dev: GN7.2XLARGE32 is not offered in eu-frankfurt" in unpriced.stderr
    assert _stack_dir(project) == []


def test_templates_carry_what_their_kind_of_fleet_needs(project: Path) -> None:
    """The shape each template promises: what makes it a sandbox, a training or a serving fleet."""
    values = {
        "project": "vision",
        "team": "ml",
        "cost_center": "cc-1",
        "budget": 5000.0,
        "region": "us-east-1",
        "replica_region": "us-west-2",
        "timezone": "America/New_York",
        "stack_file": "stacks/Pulumi.x.yaml",
        "stack_name": "x",
    }
    specs = {
        t.name: load_fleet_from_config(yaml.safe_load(render(t, values))["config"])
        for t in list_templates()
        if t.name not in ("account-baseline", "alicloud-dev", "tencent-dev")
    }
    # A pool whose queue the fleet creates says what reads it (docs/fleet-spec.md).
    for name, spec in specs.items():
        for pool_name, pool in spec.pools.items():
            assert pool.queue.existing or pool.workload is not None, (name, pool_name)
    sandbox = specs["dev-sandbox"]
    assert sandbox.environment == "dev"
    (pool,) = sandbox.pools.values()
    assert pool.instance_types == ["g4dn.xlarge", "g5.xlarge"]
    assert pool.spot_percent == 100
    assert pool.off_hours is not None
    assert pool.off_hours.timezone == "America/New_York"

    training = specs["training"]
    assert training.environment == "prod"
    assert training.storage.checkpoints.encryption == "byok"
    assert training.storage.checkpoints.classification == "restricted"
    assert training.storage.checkpoints.replicate_to == "us-west-2"
    # The default, imported: the first deploy stops at the keys, and the estimate prices the whole fleet.
    assert training.storage.checkpoints.material == "imported"
    pool, burst = training.pools.values()
    assert pool.instance_types == ["p4d.24xlarge"]
    assert pool.on_demand_base == 1
    # Production keeps a second location (GF-DR-002): a burst pool in the replica's region.
    assert (burst.region, burst.size.min) == ("us-west-2", 0)

    inference = specs["inference"]
    assert inference.storage.checkpoints.replicate_to == "us-west-2"  # GF-DR-001
    pool, failover = inference.pools.values()
    assert (failover.region, failover.size.min) == ("us-west-2", 0)  # GF-DR-002
    assert pool.instance_types == ["g5.12xlarge", "g6.12xlarge"]
    assert (pool.size.min, pool.on_demand_base, pool.spot_percent) == (2, 2, 30)
    assert pool.usage is not None
    assert [(s.size, s.hours_per_day) for s in pool.usage.steps] == [(6, 10), (3, 14)]


def test_account_baseline_template_writes_the_baseline_stack_that_check_passes(project: Path) -> None:
    result = invoke("new", "acct", "--from", "account-baseline", str(project), *TEAM, *WHERE)
    assert result.exit_code == 0, result.stderr
    config = yaml.safe_load((project / "stacks" / "Pulumi.acct.yaml").read_text())["config"]
    assert config["pulumi:tags"] == {"gpufleet:account-baseline": "acct"}
    spec = parse_account_baseline(config["gpufleet:account"])
    assert (spec.regions, spec.service_linked_roles, spec.session_log_retention_days) == (
        ["us-east-1"],
        "create",
        180,
    )
    checked = invoke("check", str(project), "-s", "acct")
    document = json.loads(checked.stdout)
    assert document["stacks"][0]["violations"] == []
    assert checked.exit_code == 0
    # Fleet templates leave the account's singletons to it.
    assert invoke("new", "team-a", "--from", "dev-sandbox", str(project), *REQUIRED).exit_code == 0
    fleet = yaml.safe_load((project / "stacks" / "Pulumi.team-a.yaml").read_text())["config"]
    assert fleet["gpufleet:fleet"]["account"] == {"baseline": "separate"}
    assert fleet["pulumi:tags"] == {"gpufleet:account-baseline-stack": "account"}


def test_account_baseline_template_refuses_a_bad_region(project: Path) -> None:
    result = invoke("new", "acct", "--from", "account-baseline", str(project), *TEAM, "--region", "moon")
    assert result.exit_code == 2
    assert "--region 'moon': an AWS region name like us-east-1" in result.stderr
    assert _stack_dir(project) == []


def test_off_hours_zone_follows_the_region_unless_given(project: Path) -> None:
    opts = (*TEAM, "--budget", "3000", "--region", "ap-northeast-1")
    assert invoke("new", "a", "--from", "dev-sandbox", str(project), *opts).exit_code == 0
    assert "timezone: Asia/Tokyo," in (project / "stacks" / "Pulumi.a.yaml").read_text()
    given = (*opts, "--timezone", "Asia/Shanghai")
    assert invoke("new", "b", "--from", "dev-sandbox", str(project), *given).exit_code == 0
    assert "timezone: Asia/Shanghai," in (project / "stacks" / "Pulumi.b.yaml").read_text()


def test_values_that_yaml_would_misread_are_quoted(project: Path) -> None:
    opts = ("--project", "yes", "--team", "ml: core", "--cost-center", "042", "--budget", "3000", *WHERE)
    assert invoke("new", "q", "--from", "dev-sandbox", str(project), *opts).exit_code == 0
    config = yaml.safe_load((project / "stacks" / "Pulumi.q.yaml").read_text())["config"]
    assert config["gpufleet:fleet"]["tags"] == {"project": "yes", "team": "ml: core", "cost-center": "042"}


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ("new", "x", "--from", "training", "--team", "ml"),
            "error: template 'training' needs --project, --cost-center, --budget, --region, "
            "--replica-region: pass each as an option\n",
        ),
        (
            ("new", "x", "--from", "nope", *REQUIRED),
            "error: unknown template 'nope'; known templates: account-baseline, alicloud-dev, dev-sandbox, "
            "hybrid, inference, tencent-dev, training\n",
        ),
        (
            ("new", "x", *REQUIRED),
            "error: pass --from TEMPLATE; known templates: account-baseline, alicloud-dev, dev-sandbox, "
            "hybrid, inference, tencent-dev, training\n",
        ),
        (
            ("new", "a b", "--from", "dev-sandbox", *REQUIRED),
            "error: invalid stack name 'a b': use 1-100 letters, digits, '-', '_' or '.' "
            "(the stack file is named Pulumi.<stack>.yaml)\n",
        ),
        (
            ("new", "dev\n", "--from", "dev-sandbox", *REQUIRED),
            "error: invalid stack name 'dev\\n': use 1-100 letters, digits, '-', '_' or '.' "
            "(the stack file is named Pulumi.<stack>.yaml)\n",
        ),
        (
            ("new", "a/b", "--from", "dev-sandbox", *REQUIRED),
            "error: invalid stack name 'a/b': use 1-100 letters, digits, '-', '_' or '.' "
            "(the stack file is named Pulumi.<stack>.yaml)\n",
        ),
        (
            ("new", "x", "--from", "dev-sandbox", *TEAM, "--budget", "0", *WHERE),
            "error: template 'dev-sandbox' with these options is not a valid fleet (1 problem); "
            "nothing written:\n"
            "  stacks/Pulumi.x.yaml: gpufleet:fleet.budget.monthly: must be > 0, got 0\n",
        ),
        (
            (
                "new",
                "x",
                "--from",
                "inference",
                *TEAM,
                "--budget",
                "10",
                "--region",
                "eu-west-1",
                "--replica-region",
                "us-west-2",
            ),
            "error: template 'inference' does not fit region eu-west-1; nothing written:\n"
            "  pools.serve: g6.12xlarge is not offered in eu-west-1 (the catalogue prices it in "
            "ap-northeast-1, ap-northeast-2, ap-south-1, ap-southeast-2, ca-central-1, eu-central-1, "
            "eu-north-1, eu-west-2, eu-west-3, us-east-1, us-east-2, us-west-2)\n",
        ),
        (
            # The budget must hold the estimate GF-COST-002 holds it against, or check would fail it.
            (
                "new",
                "x",
                "--from",
                "inference",
                *TEAM,
                "--budget",
                "5000",
                *WHERE,
                "--replica-region",
                "us-west-2",
            ),
            "error: --budget 5000 USD is below the monthly estimate of template 'inference', 16,772.41 USD "
            "(as `gpufleet cost` prices it: usage profile and schedules), and GF-COST-002 would fail the "
            "stack; nothing written. Pass --budget 16800 or more\n",
        ),
        (
            ("new", "x", "--from", "training", *REQUIRED, "--replica-region", "us-east-1"),
            "error: cannot render template 'training':\n"
            "  --replica-region 'us-east-1': must differ from --region, the replica is the copy that "
            "survives the loss of the first region\n",
        ),
        (
            (
                "new",
                "x",
                "--from",
                "dev-sandbox",
                "--project",
                "a$",
                "--team",
                "ml",
                "--cost-center",
                "c",
                "--budget",
                "5",
                "--region",
                "us-east",
            ),
            "error: cannot render template 'dev-sandbox':\n"
            "  --project 'a$': a tag value holds 1-256 letters, digits, spaces and _ . : / = + - @\n"
            "  --region 'us-east': an AWS region name like us-east-1\n",
        ),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(project: Path, args: tuple[str, ...], expected: str) -> None:
    # The project directory goes right after the stack name, where the command reads it.
    result = invoke(*args[:2], str(project), *args[2:])
    assert result.exit_code == 2, result.stdout
    assert result.stderr == expected
    assert result.stdout == ""
    assert _stack_dir(project) == []


def test_an_existing_stack_file_is_kept_unless_force(project: Path) -> None:
    existing = project / "stacks" / "Pulumi.dev.yaml"
    existing.write_text("config: {}\n")
    result = invoke("new", "dev", str(project), "--from", "dev-sandbox", *REQUIRED)
    assert result.exit_code == 2
    assert result.stderr == "error: stacks/Pulumi.dev.yaml already exists; pass --force to overwrite it\n"
    assert existing.read_text() == "config: {}\n"

    forced = invoke("new", "dev", str(project), "--from", "dev-sandbox", *REQUIRED, "--force")
    assert forced.exit_code == 0, forced.stderr
    assert "gpufleet:fleet:" in existing.read_text()
    assert _stack_dir(project) == ["Pulumi.dev.yaml"]


def test_stack_files_go_to_the_projects_stack_config_dir(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "fleet", stacks={})
    pulumi_yaml = project / "Pulumi.yaml"
    pulumi_yaml.write_text(pulumi_yaml.read_text().replace("stackConfigDir: stacks", "stackConfigDir: env"))
    result = invoke("new", "dev", str(project), "--from", "dev-sandbox", *REQUIRED)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == "wrote env/Pulumi.dev.yaml from template dev-sandbox"
    assert (project / "env" / "Pulumi.dev.yaml").is_file()


def test_a_file_is_not_a_project_directory(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    result = invoke("new", "dev", str(tmp_path / "notes.txt"), "--from", "dev-sandbox", *REQUIRED)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: project directory {tmp_path / 'notes.txt'} is a file")
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_the_alibaba_template_writes_an_alibaba_only_stack(project: Path) -> None:
    where = ("--region", "cn-hangzhou")
    result = invoke(
        "new", "cn-dev", "--from", "alicloud-dev", str(project), *TEAM, "--budget", "20000", *where
    )
    assert result.exit_code == 0, result.stderr
    config = yaml.safe_load((project / "stacks" / "Pulumi.cn-dev.yaml").read_text())["config"]
    assert config["alicloud:region"] == "cn-hangzhou"
    assert not [key for key in config if key.startswith("aws:")]
    spec = load_fleet_from_config(config)
    assert (spec.budget.monthly, spec.budget.currency) == (20000, "CNY")
    (pool,) = spec.pools.values()
    assert (pool.cloud, pool.region, pool.spot_percent) == ("alicloud", "cn-hangzhou", 100)
    assert pool.off_hours is not None
    assert pool.off_hours.timezone == "Asia/Shanghai"  # the region's zone, not UTC


@pytest.mark.parametrize(
    ("region", "error"),
    [
        ("Hangzhou", "--region 'Hangzhou': an Alibaba Cloud region name like cn-hangzhou"),
        ("eu-west-1", "pools.a10-dev: ecs.gn7i-c8g1.2xlarge is not offered in eu-west-1"),
    ],
)
def test_the_alibaba_template_refuses_a_region_it_cannot_price(
    project: Path, region: str, error: str
) -> None:
    result = invoke(
        "new", "cn", "--from", "alicloud-dev", str(project), *TEAM, "--budget", "1", "--region", region
    )
    assert result.exit_code == 2
    assert error in result.stderr
    assert _stack_dir(project) == []
