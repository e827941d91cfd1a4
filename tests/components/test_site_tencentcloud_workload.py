"""A Tencent pool's workload is told its queue and its region in Tencent Cloud's own variable."""

from __future__ import annotations

import base64
from types import SimpleNamespace
from typing import Any

from gpufleet.components.pools.tencentcloud import boot_script
from gpufleet.components.sites.tencentcloud import _workload
from gpufleet.components.spec.pool import PoolWorkload


def _args(workload: dict[str, Any]) -> Any:
    pool = SimpleNamespace(workload=PoolWorkload.model_validate(workload))
    return SimpleNamespace(spec=SimpleNamespace(pools={"t4": pool}))


def test_a_snippet_runs_with_its_queue_and_tencent_region() -> None:
    script = _workload(_args({"user_data": "python train.py"}), "t4", "gf-dev-t4", "ap-guangzhou")
    assert script == "export GPUFLEET_QUEUE_NAME=gf-dev-t4 TENCENTCLOUD_REGION=ap-guangzhou\npython train.py"
    booted = base64.b64decode(boot_script(script)).decode()
    assert booted.index("passwd -l root") < booted.index("export GPUFLEET_QUEUE_NAME=gf-dev-t4")
    assert "AWS_REGION" not in booted


def test_a_container_gets_the_queue_and_region_before_its_own_env() -> None:
    container = {
        "container": {"image": "ccr.ccs.tencentyun.com/acme/train:1", "env": {"Z": "1", "A": "it's"}}
    }
    assert _workload(_args(container), "t4", "gf-dev-t4", "ap-shanghai") == (
        "docker run -d --restart unless-stopped --gpus all --name gpufleet-workload "
        "-e GPUFLEET_QUEUE_NAME=gf-dev-t4 -e TENCENTCLOUD_REGION=ap-shanghai -e 'A=it'\"'\"'s' -e Z=1 "
        "ccr.ccs.tencentyun.com/acme/train:1"
    )
