"""Tencent Cloud's cluster-autoscaler provider (see :mod:`gpufleet.components.baseline.autoscalers`).

Its node groups are the fleet's scaling groups by id (``--nodes``; a pool's spot and on-demand groups
each). tencentcloud_manager.go builds its credential from os.Getenv("SECRET_ID") and
os.Getenv("SECRET_KEY") and reads nothing else: the keys are environment variables taken from the
operator's Secret (``scheduler.credentials.tencentcloud``), and checkov's CKV_K8S_35 is skipped with
:data:`KEYS_FROM_ENV`.

Endpoints: the provider's AS, CVM and VPC clients (cloudprovider/tencentcloud/tencentcloud_manager.go,
CreateTencentcloudManager: cvmClient, vpcClient, asClient), each pinned to ASHttpEndpoint,
CVMHttpEndpoint and VPCHttpEndpoint (the provider's client profiles).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpufleet.components.baseline.autoscaler_common import nodes_command as command
from gpufleet.components.baseline.autoscaler_common import secret_env

if TYPE_CHECKING:
    from gpufleet.components.baseline.autoscaler import SiteAutoscaler
    from gpufleet.components.baseline.scheduling import BurstSchedulingArgs

PROVIDER = "tencentcloud"
ENDPOINTS = ("as.tencentcloudapi.com", "cvm.tencentcloudapi.com", "vpc.tencentcloudapi.com")
KEYS_FROM_ENV = (
    "the Tencent provider of cluster-autoscaler reads its keys only from the environment (SECRET_ID "
    "and SECRET_KEY, tencentcloud_manager.go); the values come from the operator's Secret by "
    "secretKeyRef, never inline, and the CAM user may scale the fleet's groups only"
)

# The variables the provider reads its keys from, each with the item of the operator's Secret that
# holds it; and the variable it reads the region from.
SECRET_KEYS = {"SECRET_ID": "tencentcloud_secret_id", "SECRET_KEY": "tencentcloud_secret_key"}
REGION_VARIABLE = "REGION"


def env(args: BurstSchedulingArgs, site: SiteAutoscaler) -> list[dict[str, Any]]:
    """The keys from the operator's Secret, and the region."""
    return secret_env(args.scheduler.credentials.tencentcloud, SECRET_KEYS, REGION_VARIABLE, site.region)


__all__ = ["ENDPOINTS", "KEYS_FROM_ENV", "PROVIDER", "REGION_VARIABLE", "SECRET_KEYS", "command", "env"]
