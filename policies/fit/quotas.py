"""The quotas (vCPUs, or instances) a GPU pool draws on at its maximum size, per cloud, region and
purchase option.

- AWS (Service Quotas, service code `ec2`, in vCPUs per region): G and VT families draw on "Running
  On-Demand G and VT instances" (L-DB2E81BA) and "All G and VT Spot Instance Requests" (L-3819A6DF);
  P families on "Running On-Demand P instances" (L-417A185B) and "All P Spot Instance Requests"
  (L-7212CCBC). https://docs.aws.amazon.com/ec2/latest/instancetypes/ec2-instance-quotas.html
- Alibaba Cloud (ECS `DescribeAccountAttributes`, in vCPUs per region, every instance family together):
  pay-as-you-go instances draw on `max-postpaid-instance-vcpu-count`, preemptible (spot) instances on
  `max-spot-instance-vcpu-count`. https://www.alibabacloud.com/help/en/ecs/developer-reference/api-ecs-2014-05-26-describeaccountattributes
- Tencent Cloud (CVM `DescribeAccountQuota`, in instances per availability zone): pay-as-you-go
  instances draw on `PostPaidQuotaSet`, spot instances on `SpotPaidQuotaSet`; a region's quota here is
  the sum of its zones' `TotalQuota` (a pool may spread over them), so a need above it fails whatever
  the zones. https://cloud.tencent.com/document/api/213/55628

`needs` sums every pool of the stack; a pool whose types the catalogue does not know (no vCPU count)
is named in `unsized`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gpufleet.policies.cost.pools import Pool
from gpufleet.policies.fit._facts import entries, part, split_at_max
from gpufleet.policies.gpu import CatalogLike


def quota_of(cloud: str, instance_type: str, purchase: str) -> tuple[str, str] | None:
    """(quota code, its name) a type draws on when bought `purchase` ("on-demand" | "spot"): the cloud
    module's `quota_of` (AWS by family, the others one quota per purchase option)."""
    lookup = getattr(part(cloud), "quota_of", None)
    return lookup(instance_type, purchase) if lookup is not None else None


def unit_of(cloud: str) -> str:
    """What a cloud's GPU quotas count: vCPUs, or what its module's `QUOTA_UNIT` says (Tencent Cloud:
    instances)."""
    return str(getattr(part(cloud), "QUOTA_UNIT", "vCPUs"))


@dataclass
class Need:
    cloud: str
    region: str
    code: str
    name: str
    vcpus: int = 0  # what the quota counts: vCPUs, or instances where `unit` says so
    pools: list[str] = field(default_factory=list)
    unit: str = "vCPUs"

    @property
    def site(self) -> str:
        return f"{self.cloud}:{self.region}"


def needs(pools: Iterable[Pool], catalog: CatalogLike | None) -> tuple[list[Need], list[str]]:
    """The vCPUs each quota must allow with every pool at its maximum, and the pools that could not be
    sized (a type without a catalogue vCPU count, an unknown region)."""
    found: dict[tuple[str, str, str], Need] = {}
    unsized: list[str] = []
    for pool in pools:
        if "max_size" in pool.unknown or not pool.max_size:
            continue
        if pool.region is None:
            unsized.append(f"{pool.name}: its region is unknown")
            continue
        typed = entries(pool, catalog)
        known = [(name, entry) for name, entry in typed if entry is not None]
        if not known:
            unsized.append(f"{pool.name}: {', '.join(pool.instance_types) or 'no type'} not in the catalogue")
            continue
        # A pool of several types may be filled with its largest: the quota must allow that.
        name, entry = max(known, key=lambda item: int(item[1].vcpu))
        on_demand, spot = split_at_max(pool)
        for purchase, count in (("on-demand", on_demand), ("spot", spot)):
            if count <= 0:
                continue
            quota = quota_of(pool.cloud, name, purchase)
            if quota is None:
                continue
            key = (pool.cloud, pool.region, quota[0])
            unit = unit_of(pool.cloud)
            need = found.setdefault(key, Need(pool.cloud, pool.region, quota[0], quota[1], unit=unit))
            need.vcpus += count * (1 if unit == "instances" else int(entry.vcpu))
            need.pools.append(f"{pool.name} {count} x {name} ({entry.vcpu} vCPUs) {purchase}")
    return sorted(found.values(), key=lambda n: (n.cloud, n.region, n.code)), unsized


def declared(value: Any) -> dict[tuple[str, str], float]:
    """`{"aws:us-east-1": {"L-DB2E81BA": 64}}` -> {("aws:us-east-1", "L-DB2E81BA"): 64.0}; entries that
    are not numbers are left out."""
    out: dict[tuple[str, str], float] = {}
    if not isinstance(value, Mapping):
        return out
    for site, codes in value.items():
        if not isinstance(codes, Mapping):
            continue
        for code, amount in codes.items():
            if isinstance(amount, int | float) and not isinstance(amount, bool):
                out[(str(site), str(code))] = float(amount)
    return out
