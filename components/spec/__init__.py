"""The typed fleet spec, parsed from the stack's structured config key ``gpufleet:fleet``.

``parse_fleet`` reports every problem at once: pydantic's field errors (rephrased to say what is allowed)
plus the cross-field and catalogue checks, each with its full field path, so one run of ``gpufleet plan``
shows everything a stack file gets wrong.

The parts, one a file: `values` (config keys, SpecError, durations, networks, the base model), `checks`
(the cross-field checks), `account` (account baseline switches and images), `settings` (budget,
storage, access, audit, network), `pool` (a pool and its parts: queue, workload), `onprem` (the on-prem
baseline), `addresses` (the address plan: overlaps, carving), `links` (private links), `specs`
(FleetSpec and AccountBaselineSpec), `messages` (pydantic's errors rephrased), `parsing` (parse_fleet
and friends) and `sites` (the site plan: which cloud and region each pool runs in, and every site's
network).
"""

from __future__ import annotations

from gpufleet.components.spec.account import Account, Image
from gpufleet.components.spec.links import Link, Links
from gpufleet.components.spec.onprem import (
    ClusterAccess,
    GpuNamespace,
    GpuNodes,
    Images,
    OnPrem,
    OwnedHardware,
    Priorities,
    QueueScaler,
)
from gpufleet.components.spec.parsing import (
    load_fleet_from_config,
    parse_account_baseline,
    parse_fleet,
    provider_regions,
)
from gpufleet.components.spec.pool import (
    Container,
    Fit,
    OffHours,
    Pool,
    PoolQueue,
    PoolWorkload,
    ReferenceWorker,
    Scaling,
    Size,
    Transfer,
    Usage,
    UsageStep,
)
from gpufleet.components.spec.settings import (
    Access,
    Audit,
    BucketSpec,
    Budget,
    Network,
    RegionNetwork,
    Storage,
)
from gpufleet.components.spec.sites import provider_region_problems, site_plans
from gpufleet.components.spec.specs import AccountBaselineSpec, FleetSpec
from gpufleet.components.spec.values import (
    ACCOUNT_CONFIG_KEY,
    CONFIG_KEY,
    NO_SSH_MESSAGE,
    REQUIRED_COST_TAGS,
    Duration,
    Ipv4Net,
    SpecError,
    duration_seconds,
)

__all__ = [
    "ACCOUNT_CONFIG_KEY",
    "CONFIG_KEY",
    "NO_SSH_MESSAGE",
    "REQUIRED_COST_TAGS",
    "Access",
    "Account",
    "AccountBaselineSpec",
    "Audit",
    "BucketSpec",
    "Budget",
    "ClusterAccess",
    "Container",
    "Duration",
    "Fit",
    "FleetSpec",
    "GpuNamespace",
    "GpuNodes",
    "Image",
    "Images",
    "Ipv4Net",
    "Link",
    "Links",
    "Network",
    "OffHours",
    "OnPrem",
    "OwnedHardware",
    "Pool",
    "PoolQueue",
    "PoolWorkload",
    "Priorities",
    "QueueScaler",
    "ReferenceWorker",
    "RegionNetwork",
    "Scaling",
    "Size",
    "SpecError",
    "Storage",
    "Transfer",
    "Usage",
    "UsageStep",
    "duration_seconds",
    "load_fleet_from_config",
    "parse_account_baseline",
    "parse_fleet",
    "provider_region_problems",
    "provider_regions",
    "site_plans",
]
