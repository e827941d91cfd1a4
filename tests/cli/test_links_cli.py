"""`links` in a stack file: a valid section plans (the fleet builds each link beside the on-prem
baseline); a bad one is exit 2 naming the file and the field, with no traceback, for every command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli.helpers import copy_project, invoke

ROOT = Path(__file__).resolve().parents[2]


def _stack(links: Any) -> str:
    config = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())["config"]
    hybrid = yaml.safe_load((ROOT / "stacks" / "Pulumi.hybrid.yaml").read_text())["config"]
    # Links join the on-prem network to the sites: the hybrid stack's on-prem side, its secrets in plain.
    config["gpufleet:fleet"]["onprem"] = hybrid["gpufleet:fleet"]["onprem"]
    config["gpufleet:onpremKubeconfig"] = "apiVersion: v1\nkind: Config\n"
    config["gpufleet:awsLinkPsk"] = "psk-for-the-test-only"
    config["gpufleet:fleet"]["links"] = links
    return yaml.safe_dump({"config": config}, sort_keys=False)


VPN = {"kind": "vpn", "gateway_ip": "198.51.100.20", "psk_config": "awsLinkPsk", "bgp_asn": 65010}


def test_plan_shows_the_links_of_the_spec(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project", {"qa": _stack({"aws:us-east-1": VPN})})
    result = invoke("plan", str(project), "-s", "qa")
    assert result.exit_code == 0, result.stderr
    assert "aws:us-east-1" in result.stdout
    assert "awsLinkPsk" in result.stdout
    assert "component gpufleet:links:AwsLink gpufleet-qa-aws-us-east-1-link" in " ".join(
        result.stdout.split()
    )
    assert "psk-for-the-test-only" not in result.stdout


@pytest.mark.parametrize("command", ["plan", "check", "cost"])
def test_bad_link_is_exit_2_naming_the_field(tmp_path: Path, command: str) -> None:
    bad = {"aws:us-east-1": {**VPN, "psk_config": "not a key name!"}}
    project = copy_project(tmp_path / "project", {"qa": _stack(bad)})
    result = invoke(command, str(project), "-s", "qa")
    assert result.exit_code == 2, result.stdout
    assert (
        "stacks/Pulumi.qa.yaml: gpufleet:fleet.links.aws:us-east-1.psk_config: must name a secret stack "
        "config key of the gpufleet namespace"
    ) in " ".join(result.stderr.split())
