"""The policy hunks the Tencent site needed: GF-ACC-002 on CVM's random password, GF-OPS-001 on
CMQ's own metrics."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from gpufleet.policies.access.gpu_no_login_credentials import POLICY as LOGIN_POLICY
from gpufleet.policies.ops.scaling_metric_published import POLICY as METRIC_POLICY
from tests.policies.support import UNKNOWN_STRING_VALUE, res, run_stack, urn_of

TAIL = "GPU instances carry no SSH key or login password: connect through a session manager"
TC_INSTANCE = "tencentcloud:Instance/instance:Instance"
TC_CONFIG = "tencentcloud:As/scalingConfig:ScalingConfig"
TC_LT = "tencentcloud:Cvm/launchTemplate:LaunchTemplate"
LOCK = base64.b64encode(b"#!/bin/bash\npasswd -l root\n").decode()


def _random(keep: str, data: str) -> str:
    return (
        "neither a key nor a password, so CVM sets a random login password, and it neither keeps the image's "
        f"login ({keep}) nor locks the root password in its user data ({data})"
    )


@pytest.mark.parametrize(
    ("token", "props", "label", "keep", "data"),
    [
        (
            TC_INSTANCE,
            {"instanceType": "GN7.2XLARGE32"},
            "CVM instance",
            "keepImageLogin",
            "userData or userDataRaw",
        ),
        (
            TC_CONFIG,
            {"instanceTypes": ["GN7.2XLARGE32"]},
            "AS launch configuration",
            "keepImageLogin",
            "userData",
        ),
        (
            TC_LT,
            {"instanceType": "GN7.2XLARGE32", "loginSettings": {"keepImageLogin": False}},
            "CVM launch template",
            "loginSettings.keepImageLogin",
            "userData",
        ),
    ],
)
def test_neither_key_nor_password_nor_lock_gets_a_random_password(
    token: str, props: dict[str, Any], label: str, keep: str, data: str
) -> None:
    assert run_stack(LOGIN_POLICY, [res(token, "x", props)]) == [
        (f"{label} 'x' (GN7.2XLARGE32) has {_random(keep, data)}; {TAIL}", urn_of(token, "x"))
    ]


@pytest.mark.parametrize(
    ("token", "props"),
    [
        (TC_INSTANCE, {"instanceType": "GN7.2XLARGE32", "keepImageLogin": True}),
        (TC_INSTANCE, {"instanceType": "GN7.2XLARGE32", "userDataRaw": "#!/bin/sh\nusermod --lock root\n"}),
        (TC_INSTANCE, {"instanceType": "GN7.2XLARGE32", "userData": LOCK}),
        (TC_CONFIG, {"instanceTypes": ["GN7.2XLARGE32"], "userData": LOCK}),
        (TC_CONFIG, {"instanceTypes": ["GN7.2XLARGE32"], "keepImageLogin": True}),
        (TC_LT, {"instanceType": "GN7.2XLARGE32", "loginSettings": {"keepImageLogin": True}}),
        (
            TC_LT,
            {"instanceType": "GN7.2XLARGE32", "userData": base64.b64encode(b"passwd --lock root").decode()},
        ),
        # Not a GPU: not judged.
        (TC_INSTANCE, {"instanceType": "S5.MEDIUM4"}),
    ],
)
def test_kept_image_login_or_locked_root_passes(token: str, props: dict[str, Any]) -> None:
    assert run_stack(LOGIN_POLICY, [res(token, "x", props)]) == []


def test_user_data_that_locks_another_user_or_mentions_root_only_does_not_pass() -> None:
    for script in (b"passwd -l ubuntu\n", b"echo root\n", b"# passwd -l rootless\n"):
        props = {"instanceTypes": ["GN7.2XLARGE32"], "userData": base64.b64encode(script).decode()}
        [(message, _)] = run_stack(LOGIN_POLICY, [res(TC_CONFIG, "x", props)])
        assert "CVM sets a random login password" in message


def test_unknown_user_data_cannot_be_judged() -> None:
    props = {"instanceTypes": ["GN7.2XLARGE32"], "userData": UNKNOWN_STRING_VALUE}
    [(message, _)] = run_stack(LOGIN_POLICY, [res(TC_CONFIG, "x", props)])
    assert message.startswith("could not be judged")


def _queue_alarm(namespace: str) -> list[Any]:
    config = res(TC_CONFIG, "gpu-config", {"configurationName": "gpu"})
    group = res(
        "tencentcloud:As/scalingGroup:ScalingGroup",
        "gpu-group",
        {"configurationId": "asc-1", "scalingGroupName": "gpu-group"},
        prop_deps={"configurationId": [config]},
    )
    alarm = res(
        "tencentcloud:Monitor/alarmPolicy:AlarmPolicy",
        "queue-deep",
        {
            "namespace": namespace,
            "conditions": {"rules": [{"metricName": "visibleMsgNum", "operator": "gt", "value": "0"}]},
            "triggerTasks": [{"type": "AS", "taskConfig": json.dumps({"Group": "gpu-group"})}],
        },
        prop_deps={"triggerTasks": [group]},
    )
    return [config, group, alarm]


def test_cmq_queue_metrics_are_published_by_cmq() -> None:
    assert run_stack(METRIC_POLICY, _queue_alarm("QCE/CMQ")) == []
    [(message, _)] = run_stack(METRIC_POLICY, _queue_alarm("QCE/CKAFKA"))
    assert message.startswith("could not be judged: alarm policy 'queue-deep' scales on namespace QCE/CKAFKA")
