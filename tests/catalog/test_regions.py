"""An `aws:region` outside the regions AWS has is a spec error naming the file and field; a real region
the catalogue does not price is not (the estimate names it "unpriced")."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpufleet.components.catalog.aws import REGIONS as AWS_REGIONS
from gpufleet.components.spec import SpecError, load_fleet_from_config
from tests.cli.helpers import DEV_STACK, copy_project, invoke, replace_once


def _dev_config(region: str) -> dict[str, object]:
    config: dict[str, object] = yaml.safe_load(DEV_STACK)["config"]
    config["aws:region"] = region
    return config


def test_the_list_is_the_providers_own() -> None:
    from pulumi_aws import Region

    assert sorted(AWS_REGIONS) == sorted(region.value for region in Region)


def test_unknown_region_is_a_spec_error_naming_the_field() -> None:
    with pytest.raises(SpecError) as excinfo:
        load_fleet_from_config(_dev_config("us-east-7"), "stacks/Pulumi.dev.yaml")
    assert excinfo.value.errors[0][0] == "aws:region"
    assert str(excinfo.value).startswith(
        "stacks/Pulumi.dev.yaml: aws:region: unknown AWS region 'us-east-7'; use one of af-south-1, "
    )


def test_a_real_region_the_catalogue_does_not_price_is_accepted() -> None:
    spec = load_fleet_from_config(_dev_config("il-central-1"), "stacks/Pulumi.dev.yaml")
    assert spec.environment == "dev"


def test_check_exits_2_with_one_message(tmp_path: Path) -> None:
    stack = replace_once(DEV_STACK, "aws:region: us-east-1", "aws:region: us-eats-1")
    project = copy_project(tmp_path / "project", {"dev": stack})
    run = invoke("check", str(project), "--stack", "dev")
    assert run.exit_code == 2
    assert "stacks/Pulumi.dev.yaml: aws:region: unknown AWS region 'us-eats-1'" in run.stderr
    assert run.stdout == ""
