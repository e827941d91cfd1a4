"""Reading the real quotas with the user's credentials, one reader per cloud, injectable.

`READERS` maps a cloud to a factory of a `QuotaReader`: each cloud module's `READER`
(gpufleet/preflight/<cloud>.py: AWS reads Service Quotas through boto3, Alibaba Cloud ECS
`DescribeAccountAttributes`, Tencent Cloud CVM `DescribeAccountQuota`, each through a caller-provided
call or the cloud's SDK when it is installed); tests (and other tools) replace an entry with a stub. The
answers are read by the cloud modules. A cloud whose SDK or credentials are missing raises
`NoCredentials`, which `gpufleet preflight` reports with exit status 2. A reader class is imported
from its cloud's module.
"""

from __future__ import annotations

from collections.abc import Callable

from gpufleet.components.clouds import cloud_parts, part_values
from gpufleet.preflight.reading import NoCredentials, QuotaReader
from gpufleet.preflight.reading import credentials as _credentials
from gpufleet.preflight.reading import missing as _missing

__all__ = ["READERS", "NoCredentials", "QuotaReader", "_credentials", "_missing"]

READERS: dict[str, Callable[[], QuotaReader]] = dict(
    part_values(cloud_parts("gpufleet.preflight"), "READER").items()
)
