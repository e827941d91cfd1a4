"""`gpufleet plan -s hybrid` shows the fleet as one (baseline, sites, links with their crypto), and
`gpufleet new --from hybrid` writes a stack that `gpufleet check` passes."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from rich.console import Console
from typer.testing import CliRunner

from gpufleet.cli import app
from gpufleet.components.spec import FleetSpec, parse_fleet, site_plans
from gpufleet.graph import ResourceGraph
from gpufleet.hybrid_view import crypto_summary, link_line, print_hybrid, site_line
from tests.cli.helpers import copy_project
from tests.hybrid.conftest import FLEET, ONPREM_NODES, ROOT
from tests.project_policy import judged

ONPREM_DATA = "192.168.32.0/24"
ROUTES = f"{ONPREM_NODES}, {ONPREM_DATA}"

runner = CliRunner()
REGIONS = {"aws": "us-east-1", "alicloud": "cn-hangzhou", "tencentcloud": "ap-guangzhou"}


def _spec_of(graph: ResourceGraph) -> FleetSpec:
    return parse_fleet(graph.config["gpufleet:fleet"])


def test_the_section_lists_the_baseline_every_site_and_every_link(hybrid: ResourceGraph) -> None:
    console = Console(width=400, record=True, color_system=None)
    print_hybrid(_spec_of(hybrid), hybrid, console)
    lines = [line.rstrip() for line in console.export_text().splitlines()]
    assert lines == [
        "hybrid fleet: the on-prem baseline, 4 cloud sites and 3 private links",
        "├── baseline (on-prem, owned)",
        "│   ├── cluster: secret kubeconfig gpufleet:onpremKubeconfig",
        "│   ├── GPUs: 16 (2 nodes x 8 A100)",
        "│   ├── namespaces (GPU quota): training 12, inference 4",
        "│   ├── priority: baseline 100000 > burst 1000 (burst preemption Never)",
        "│   ├── KEDA: gpu-worker in training on aws-sqs-queue "
        "https://sqs.us-east-1.amazonaws.com/123456789012/gpu-jobs, 10 messages per worker, cooldown 5m, "
        "0-16 replicas",
        f"│   ├── ranges: nodes {ONPREM_NODES}, pods 10.244.0.0/16, services 10.96.0.0/16, "
        "data 192.168.32.0/24",
        f"│   └── burst nodes may open: ingress tcp/443 to {ONPREM_NODES}; storage tcp/443, tcp/2049 to "
        "192.168.32.0/24; kube-apiserver tcp/6443 to 192.168.16.10/32 (nothing else on-prem)",
        "├── sites (burst pools)",
        "│   ├── aws:us-east-1  VPC 10.43.0.0/16  pools burst-aws (g5.12xlarge, 0-4, 70% spot)  "
        "[private link]",
        # The AWS bucket's replica (storage.checkpoints.replicate_to): a site with a key and a bucket only.
        "│   ├── aws:us-west-2  no network  no pools (keys and replica only)  [no link]",
        "│   ├── alicloud:cn-hangzhou  VPC 10.50.0.0/16  pools burst-alicloud (ecs.gn7i-c8g1.2xlarge, 0-8, "
        "100% spot)  [private link]",
        "│   └── tencentcloud:ap-guangzhou  VPC 10.52.0.0/16  pools burst-tencent (GN7.2XLARGE32, 0-8, "
        "100% spot)  [private link]",
        "├── links",
        f"│   ├── aws:us-east-1  vpn to 198.51.100.20, BGP (on-prem ASN 65010)  routes {ROUTES}  "
        "ike=ikev2 enc=AES256-GCM-16 integrity=SHA2-384 dh=20,21 pfs=20,21 both tunnels",
        f"│   ├── alicloud:cn-hangzhou  vpn to 198.51.100.20, static routes  routes {ROUTES}  "
        "ike=ikev2 enc=aes256 integrity=sha256 dh=group14 pfs=group14",
        f"│   └── tencentcloud:ap-guangzhou  vpn to 198.51.100.20, static routes  routes {ROUTES}  "
        "ike=IKEV2 enc=AES-CBC-256 integrity=SHA-256 dh=GROUP14 pfs=DH-GROUP14",
        "├── scheduler (Kueue enforces the burst order: a workload is admitted to the first flavor with "
        "quota left)",
        "│   ├── burst nodes join 192.168.16.10:6443 over their site's link (kubeadm join, the token from "
        "each pool's join secret: docs/hybrid.md); kubelets admit 10250 from 192.168.16.10/32 only",
        "│   ├── 0. flavor onprem: 16 GPUs, 256 CPUs, 2048 GiB; always first, no autoscaler",
        "│   ├── 1. flavor aws-us-east-1: 16 GPUs, 192 CPUs, 768 GiB; cluster-autoscaler "
        "--cloud-provider=aws, scale-down after 30m unneeded, not within 300s of a scale-up",
        "│   ├── 2. flavor alicloud-cn-hangzhou: 8 GPUs, 64 CPUs, 240 GiB; cluster-autoscaler "
        "--cloud-provider=alicloud, scale-down after 30m unneeded, not within 300s of a scale-up",
        "│   └── 3. flavor tencentcloud-ap-guangzhou: 8 GPUs, 64 CPUs, 256 GiB; cluster-autoscaler "
        "--cloud-provider=tencentcloud, scale-down after 30m unneeded, not within 300s of a scale-up; but "
        "the Tencent provider requires TKE: it does not size these groups (docs/hybrid.md)",
        "└── queue-fed pools outside the cluster (their own alarms, not the scheduler: docs/burst-order.md)",
        "    └── none: every burst pool joins the cluster, and cluster-autoscaler alone sizes it",
    ]
    # The Alibaba algorithms sit beside the pre-shared key in a secret block: the key never shows.
    assert "[secret" not in console.export_text()


def test_the_crypto_is_read_from_what_was_built(hybrid: ResourceGraph) -> None:
    (vpn,) = hybrid.of_type("aws:ec2/vpnConnection:VpnConnection")
    weakened = ResourceGraph.from_json(hybrid.to_json()).get(vpn.urn)
    assert weakened is not None
    weakened.inputs["tunnel2IkeVersions"] = ["ikev1", "ikev2"]
    assert crypto_summary(weakened).endswith("pfs=20,21 tunnel 2 differs")
    assert crypto_summary(None) == "crypto: not recorded"


def test_a_dedicated_link_says_it_has_no_ipsec() -> None:
    fleet = yaml.safe_load((ROOT / "stacks" / "Pulumi.hybrid.yaml").read_text())["config"]["gpufleet:fleet"]
    fleet["links"]["tencentcloud:ap-guangzhou"] = {
        "kind": "dedicated",
        "connection_id": "dc-kax48sg7",
        "vlan": 301,
        "cloud_address": "169.254.40.1/30",
        "onprem_address": "169.254.40.2/30",
    }
    spec = parse_fleet(fleet)
    plan = site_plans(spec, dict(REGIONS))[3]  # after aws:us-east-1, aws:us-west-2 (the replica), alicloud
    assert site_line(spec, plan).startswith("tencentcloud:ap-guangzhou  VPC 10.52.0.0/16")
    assert link_line(plan.key, spec.links[plan.key], plan.onprem_ranges, None) == (
        f"tencentcloud:ap-guangzhou  dedicated dc-kax48sg7 VLAN 301, static routes  routes {ROUTES}  "
        "private line, no IPsec"
    )


def test_plan_prints_the_section_and_exits_0() -> None:
    result = runner.invoke(app, ["plan", str(ROOT), "-s", "hybrid"], prog_name="gpufleet")
    assert result.exit_code == 0, result.output
    assert "hybrid fleet: the on-prem baseline, 4 cloud sites and 3 private links" in result.stdout
    assert f"component gpufleet:links:AwsLink {FLEET}-aws-us-east-1-link" in " ".join(result.stdout.split())


def test_plan_of_a_fleet_without_onprem_or_links_has_no_section() -> None:
    result = runner.invoke(app, ["plan", str(ROOT), "-s", "dev"], prog_name="gpufleet")
    assert result.exit_code == 0, result.output
    assert "hybrid fleet" not in result.stdout


def test_new_from_hybrid_writes_a_stack_that_check_passes(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project", stacks={})
    options = ["--project", "vision", "--team", "ml", "--cost-center", "cc-1", "--budget", "30000"]
    made = runner.invoke(
        app,
        ["new", "h", "--from", "hybrid", str(project), *options, "--region", "us-west-2"],
        prog_name="gpufleet",
    )
    assert made.exit_code == 0, made.output
    config = yaml.safe_load((project / "stacks" / "Pulumi.h.yaml").read_text())["config"]
    assert config["aws:region"] == "us-west-2"
    assert (config["alicloud:region"], config["tencentcloud:region"]) == ("cn-hangzhou", "ap-guangzhou")
    assert sorted(config["gpufleet:fleet"]["links"]) == [
        "alicloud:cn-hangzhou",
        "aws:us-west-2",
        "tencentcloud:ap-guangzhou",
    ]
    assert all(set(config[f"gpufleet:{key}"]) == {"secure"} for key in ("onpremKubeconfig", "awsLinkPsk"))
    checked = runner.invoke(app, ["check", str(project), "-s", "h", "--format", "json"], prog_name="gpufleet")
    assert checked.exit_code == 0, checked.output
    (stack,) = json.loads(checked.stdout)["stacks"]
    assert judged(stack["violations"]) == []


def test_new_from_hybrid_names_the_exporter_as_the_fleet_does_for_any_stack_name(tmp_path: Path) -> None:
    # The fleet lower-cases the stack and turns `_` into `-` (components/naming.py); the template's
    # trusted service account must follow, or `check` refuses the mismatch.
    project = copy_project(tmp_path / "project", stacks={})
    options = ["--project", "vision", "--team", "ml", "--cost-center", "cc-1", "--budget", "30000"]
    made = runner.invoke(
        app,
        ["new", "Lab_1", "--from", "hybrid", str(project), *options, "--region", "us-east-1"],
        prog_name="gpufleet",
    )
    assert made.exit_code == 0, made.output
    fleet = yaml.safe_load((project / "stacks" / "Pulumi.Lab_1.yaml").read_text())["config"]["gpufleet:fleet"]
    publisher = fleet["burst"]["publishers"]["alicloud"]
    assert publisher["service_account"] == "gpufleet-system/gpufleet-lab-1-signal-exporter"
    checked = runner.invoke(app, ["check", str(project), "-s", "Lab_1", "--no-checkov"], prog_name="gpufleet")
    assert checked.exit_code == 0, checked.output


def test_new_from_hybrid_refuses_a_non_aws_region(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project", stacks={})
    options = ["--project", "vision", "--team", "ml", "--cost-center", "cc-1", "--budget", "30000"]
    made = runner.invoke(
        app,
        ["new", "h", "--from", "hybrid", str(project), *options, "--region", "cn-hangzhou"],
        prog_name="gpufleet",
    )
    assert made.exit_code == 2
    assert "--region 'cn-hangzhou': an AWS region name like us-east-1" in made.stderr
    assert not (project / "stacks" / "Pulumi.h.yaml").exists()
