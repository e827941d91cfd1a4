"""Reading the real quotas with the user's credentials, one reader per cloud, injectable.

`READERS` maps a cloud to a factory of a `QuotaReader`: each cloud module's `READER`
(gpufleet/preflight/<cloud>.py: AWS reads Service Quotas through boto3, Alibaba Cloud ECS
`DescribeAccountAttributes`, Tencent Cloud CVM `DescribeAccountQuota`, each through a caller-provided
call or the cloud's SDK when it is installed); tests (and other tools) replace an entry with a stub. The
answers are read by the cloud modules. A cloud whose SDK or credentials are missing raises
`NoCredentials`, which `gpufleet preflight` reports with exit status 2. Each reader class is also
reachable here by its name (`clients.TencentQuotas`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpufleet.components.clouds import cloud_parts, part_values
from gpufleet.preflight.reading import NoCredentials, QuotaReader
from gpufleet.preflight.reading import credentials as _credentials
from gpufleet.preflight.reading import missing as _missing

__all__ = ["READERS", "NoCredentials", "QuotaReader", "_credentials", "_missing"]

_READERS = part_values(cloud_parts("gpufleet.preflight"), "READER")
READERS: dict[str, Callable[[], QuotaReader]] = dict(_READERS.items())


def __getattr__(name: str) -> Any:
    """A cloud's reader class by its name (`AwsQuotas`, `AlicloudQuotas`, `TencentQuotas`)."""
    for reader in _READERS.values():
        if getattr(reader, "__name__", None) == name:
            return reader
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
