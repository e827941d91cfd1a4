"""components/pools/join.py: which pools join, the scaler tag, the join secret's name and the boot
script's refusals, outside any stack."""

from __future__ import annotations

import re

import pytest
import yaml

from gpufleet.components.pools.aws_join import group_tags, join_user_data
from gpufleet.components.pools.join import (
    CLUSTER_AUTOSCALER,
    PoolJoin,
    plan_joins,
    render_join,
    scaler_tags,
    secret_name,
)
from gpufleet.components.spec import parse_fleet
from tests.cli.helpers import ROOT

JOIN = PoolJoin(
    cluster="lab",
    api_server="192.168.16.10:6443",
    site="aws:us-east-1",
    flavor="aws-us-east-1",
    node_labels={"gpufleet.io/site": "aws-us-east-1"},
    taint={"key": "gpufleet.io/site", "value": "aws-us-east-1", "effect": "NoSchedule"},
    gpus_per_instance=4,
)


def test_a_fleet_without_the_scheduler_joins_nothing() -> None:
    config = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())["config"]
    assert plan_joins(parse_fleet(config["gpufleet:fleet"]), {"aws": "us-east-1"}, "gpufleet-dev") == {}


def test_the_scaler_tag_says_who_sizes_the_group() -> None:
    assert scaler_tags(JOIN) == {"gpufleet:scaler": CLUSTER_AUTOSCALER}
    assert scaler_tags(None) == {"gpufleet:scaler": "alarms"}
    assert group_tags(None) == {"gpufleet:scaler": "alarms"}
    assert group_tags(JOIN)["k8s.io/cluster-autoscaler/lab"] == "owned"


def test_a_join_secret_name_every_store_takes() -> None:
    assert secret_name("fleet-pool-gpu", "gpu") == "fleet-pool-gpu-join"
    with pytest.raises(ValueError) as error:
        secret_name("x" * 130, "gpu")
    assert str(error.value).startswith("pools.gpu: the join secret's name 'xxx")
    assert str(error.value).endswith(
        "must be letters, digits, '-' or '_' and at most 128 characters: shorten the pool's name"
    )


def test_a_pool_join_without_its_flavor_is_refused() -> None:
    with pytest.raises(ValueError) as error:
        PoolJoin(
            cluster="lab",
            api_server="apiserver:6443",
            site="aws:us-east-1",
            flavor="aws-us-east-1",
            node_labels={},
            taint={"key": "k"},
            gpus_per_instance=0,
        )
    assert str(error.value) == (
        "PoolJoin: api_server: 'apiserver:6443' is not address:port; taint: needs key, value and effect; "
        "node_labels: the flavor's labels are needed; gpus_per_instance: 0 (a GPU pool has at least one)"
    )


def test_the_script_stops_on_a_placeholder_and_never_echoes_the_token() -> None:
    script = render_join(JOIN, identity="ZONE=z\n", read_secret="cat /dev/null", secret="s")
    assert script.startswith("#!/bin/bash\n")
    assert "set -euo pipefail\n" in script
    # The token and hash stay in variables and a 0600 file, which is shredded after the join.
    assert not re.search(r"echo .*\$TOKEN|log .*\$TOKEN", script)
    assert "umask 077\n" in script
    assert "shred -u /run/gpufleet/kubeadm-join.yaml" in script
    assert 'log "the join secret s holds no join command' in script
    assert len(join_user_data(JOIN, "s", "us-east-1")) < 16_384
