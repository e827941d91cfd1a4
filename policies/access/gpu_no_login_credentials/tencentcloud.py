"""GF-ACC-002 on Tencent Cloud: `keyIds`/`keyName`/`password` on CVM instances, `keyName`/`password` on
instance sets, `keyIds`/`password` on AS launch configurations, `loginSettings.keyIds`/
`loginSettings.password` on CVM launch templates, and `autoScalingConfig.keyIds`/
`autoScalingConfig.password` on TKE node pools.

A CVM instance, AS launch configuration or CVM launch template given neither gets a random login
password from CVM: it passes only with `keepImageLogin` (`loginSettings.keepImageLogin` on a launch
template: the image's own, hardened login settings) or with user data (`userData`, base64, or
`userDataRaw`) that locks the root password (`passwd -l root`, `passwd --lock root`, `usermod -L root`
or `usermod --lock root`).
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.access import compute as c
from gpufleet.policies.access.gpu_no_login_credentials.words import KEY, PASSWORD
from gpufleet.policies.access.tencentcloud import (
    TC_INSTANCE,
    TC_INSTANCE_SET,
    TC_LAUNCH_TEMPLATE,
    TC_NODE_POOL,
    TC_SCALING_CONFIG,
)
from gpufleet.policies.props import is_unknown

# (prop path, what it is, whether its value may be shown), of instances and what launches them
CREDENTIALS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    TC_INSTANCE: (("keyIds", KEY, True), ("keyName", KEY, True), ("password", PASSWORD, False)),
    TC_INSTANCE_SET: (("keyName", KEY, True), ("password", PASSWORD, False)),
    TC_SCALING_CONFIG: (("keyIds", KEY, True), ("password", PASSWORD, False)),
    TC_LAUNCH_TEMPLATE: (
        ("loginSettings.keyIds", KEY, True),
        ("loginSettings.password", PASSWORD, False),
    ),
}
# ... and of managed pools
POOL_CREDENTIALS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    TC_NODE_POOL: (
        ("autoScalingConfig.keyIds", KEY, True),
        ("autoScalingConfig.password", PASSWORD, False),
    ),
}
REMEDIATION = (
    "Tencent: unset `keyIds`, `keyName` and `password` on the Instance, As ScalingConfig, Cvm "
    "LaunchTemplate `loginSettings` or Kubernetes NodePool `autoScalingConfig`, and keep CVM's random "
    "password away: `keepImageLogin` with a hardened image, or user data that runs `passwd -l root`."
)

# What keeps CVM's random password away, per kind: (keepImageLogin path, user data paths).
_LOGIN: dict[str, tuple[str, tuple[str, ...]]] = {
    TC_INSTANCE: ("keepImageLogin", ("userData", "userDataRaw")),
    TC_SCALING_CONFIG: ("keepImageLogin", ("userData",)),
    TC_LAUNCH_TEMPLATE: ("loginSettings.keepImageLogin", ("userData",)),
}
# kinds given a login password when they name none
UNSET_LOGIN_TYPES = tuple(_LOGIN)
_LOCKS_ROOT = re.compile(r"\b(?:passwd\s+(?:-l|--lock)|usermod\s+(?:-L|--lock))\s+root\b")


def _script(value: Any) -> str:
    """User data as text: base64-decoded when it decodes, else as written."""
    text = str(value)
    try:
        return base64.b64decode(text, validate=True).decode("utf-8", errors="replace")
    except (binascii.Error, ValueError):
        return text


def unset_login(index: c.ComputeIndex, resource: Any) -> str | None:
    """Why a GPU launcher without key or password still gets a login password, or None."""
    keep_path, data_paths = _LOGIN[resource.resource_type]
    props = index.p(resource)
    keep = c.values_at(props, keep_path)
    if keep and is_unknown(keep[0]):
        raise UnknownValueError(str(keep[0]), keep_path.split("."))
    if keep and keep[0] is True:
        return None
    for path in data_paths:
        for value in c.values_at(props, path):
            if is_unknown(value):
                raise UnknownValueError(str(value), [path])
            if _LOCKS_ROOT.search(_script(value)):
                return None
    return (
        f"neither a key nor a password, so CVM sets a random login password, and it neither keeps the "
        f"image's login ({keep_path}) nor locks the root password in its user data "
        f"({' or '.join(data_paths)})"
    )
