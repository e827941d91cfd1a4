"""A Tencent pool's workload is told its queue and its region in Tencent Cloud's own variable."""

from __future__ import annotations

import base64
from types import SimpleNamespace
from typing import Any

from gpufleet.components.pools.tencentcloud import boot_script
from gpufleet.components.sites.tencentcloud import _workload
from gpufleet.components.spec.pool import PoolQueue, PoolWorkload


def _args(workload: dict[str, Any]) -> Any:
    pool = SimpleNamespace(
        workload=PoolWorkload.model_validate(workload), queue=PoolQueue(), cloud="tencentcloud"
    )
    return SimpleNamespace(spec=SimpleNamespace(pools={"t4": pool}))


def test_a_snippet_runs_with_its_queue_and_tencent_region() -> None:
    script = _workload(_args({"user_data": "python train.py"}), "t4", "gf-dev-t4", "ap-guangzhou")
    assert script is not None
    # The renderer every cloud's boot script uses: the snippet in a file of its own, run with its env.
    assert (
        "cat > /var/lib/gpufleet/workload.sh <<'GPUFLEET_WORKLOAD'\npython train.py\nGPUFLEET_WORKLOAD\n"
        in script
    )
    assert (
        "GPUFLEET_QUEUE_NAME=gf-dev-t4 TENCENTCLOUD_REGION=ap-guangzhou "
        "bash /var/lib/gpufleet/workload.sh \\\n"
        '  || log "the workload user_data exited with status $?"\n'
    ) in script
    booted = base64.b64decode(boot_script(script)).decode()
    # Logins locked first; the log function the workload's steps call is defined before them.
    assert booted.index("passwd -l root") < booted.index("bash /var/lib/gpufleet/workload.sh")
    assert booted.index("log() {") < booted.index("passwd -l root")
    assert "AWS_REGION" not in booted


def test_a_container_gets_the_queue_and_region_before_its_own_env() -> None:
    container = {
        "container": {"image": "ccr.ccs.tencentyun.com/acme/train:1", "env": {"Z": "1", "A": "it's"}}
    }
    script = _workload(_args(container), "t4", "gf-dev-t4", "ap-shanghai")
    assert script is not None
    assert (
        '  "$runtime" run -d --name gpufleet-workload --restart always --gpus all '
        "-e GPUFLEET_QUEUE_NAME=gf-dev-t4 -e TENCENTCLOUD_REGION=ap-shanghai -e Z=1 -e 'A=it'\"'\"'s' \\\n"
        "    ccr.ccs.tencentyun.com/acme/train:1 \\\n"
    ) in script
    # Docker, or nerdctl where the image has no docker; a failure to start is logged, the boot goes on.
    assert "elif command -v nerdctl >/dev/null 2>&1; then" in script
    assert '|| log "the container workload did not start"' in script


def test_a_boot_script_over_cvms_16_kb_of_base64_is_refused_with_its_size() -> None:
    from gpufleet.components.pools.tencentcloud import boot_script_problem

    assert boot_script_problem("echo " + "x" * 9_000) is None  # 12,000 base64 bytes and the setup: fits
    problem = boot_script_problem("echo " + "x" * 11_900)
    assert problem is not None
    size = len(boot_script("echo " + "x" * 11_900))
    assert size > 16_384
    assert problem == (
        f"the boot script would be {size} bytes base64-encoded; CVM takes at most 16384 (UserData, 16 KB): "
        "shorten the workload's user_data, command or env (keep large settings in COS)"
    )
