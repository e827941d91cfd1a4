"""Alibaba Cloud's cluster-autoscaler provider (see :mod:`gpufleet.components.baseline.autoscalers`).

Its node groups are the fleet's scaling groups by id (``--nodes``). alicloud_cloud_config.go reads
ACCESS_KEY_ID, ACCESS_KEY_SECRET and REGION_ID with os.Getenv (its --cloud-config file is read by gcfg
into a struct without sections, so it cannot carry them; the one file it reads is an RRSA OIDC token,
which needs a RAM OIDC provider and role for the autoscaler): the keys are environment variables taken
from the operator's Secret (``scheduler.credentials.alicloud``), and checkov's CKV_K8S_35 is skipped with
:data:`KEYS_FROM_ENV`.

Endpoints: the provider's ESS and ECS clients (cloudprovider/alicloud/alicloud_auto_scaling.go,
alicloud_instance_types.go). Its vendored SDK's endpoint table (alibaba-cloud-sdk-go/sdk/endpoints/
endpoints_config.go) gives ESS the pattern ess.[RegionId].aliyuncs.com and ECS none, so the ECS host is
asked of the Location service (location_resolver.go: DescribeEndpoints on location.aliyuncs.com, HTTPS),
which answers the region's ECS endpoint (ecs-<region>.aliyuncs.com, Alibaba's endpoint list).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpufleet.components.baseline.autoscaler_common import nodes_command as command
from gpufleet.components.baseline.autoscaler_common import secret_env

if TYPE_CHECKING:
    from gpufleet.components.baseline.autoscaler import SiteAutoscaler
    from gpufleet.components.baseline.scheduling import BurstSchedulingArgs

PROVIDER = "alicloud"
ENDPOINTS = ("ess.{region}.aliyuncs.com", "location.aliyuncs.com", "ecs-{region}.aliyuncs.com")
KEYS_FROM_ENV = (
    "the Alibaba provider of cluster-autoscaler reads its AccessKey only from the environment "
    "(ACCESS_KEY_ID and ACCESS_KEY_SECRET, alicloud_cloud_config.go); the values come from the "
    "operator's Secret by secretKeyRef, never inline, and the RAM user may scale the fleet's groups only"
)

# The variables the provider reads its keys from, each with the item of the operator's Secret that
# holds it; and the variable it reads the region from.
SECRET_KEYS = {"ACCESS_KEY_ID": "access-key-id", "ACCESS_KEY_SECRET": "access-key-secret"}
REGION_VARIABLE = "REGION_ID"


def env(args: BurstSchedulingArgs, site: SiteAutoscaler) -> list[dict[str, Any]]:
    """The AccessKey from the operator's Secret, and the region."""
    return secret_env(args.scheduler.credentials.alicloud, SECRET_KEYS, REGION_VARIABLE, site.region)


__all__ = ["ENDPOINTS", "KEYS_FROM_ENV", "PROVIDER", "REGION_VARIABLE", "SECRET_KEYS", "command", "env"]
