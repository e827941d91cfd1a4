"""The vCPU quotas a GPU pool draws on at its maximum size, per cloud, region and purchase option.

- AWS (Service Quotas, service code `ec2`, in vCPUs per region): G and VT families draw on "Running
  On-Demand G and VT instances" (L-DB2E81BA) and "All G and VT Spot Instance Requests" (L-3819A6DF);
  P families on "Running On-Demand P instances" (L-417A185B) and "All P Spot Instance Requests"
  (L-7212CCBC). https://docs.aws.amazon.com/ec2/latest/instancetypes/ec2-instance-quotas.html
- Alibaba Cloud: vCPUs of the GPU instance family per region and billing method, as the Quota Center
  lists them for ECS; keyed here `<family>/on-demand` and `<family>/spot` (`gn7i/spot`).
- Tencent Cloud: vCPUs of the CVM instance family per region and billing method; keyed here the same
  way (`GN7/spot`).

`needs` sums every pool of the stack; a pool whose types the catalogue does not know (no vCPU count)
is named in `unsized`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gpufleet.components.clouds import CLOUD_NAMES
from gpufleet.policies.cost.pools import Pool
from gpufleet.policies.fit._facts import entries, split_at_max
from gpufleet.policies.gpu import CatalogLike

AWS_QUOTAS = {
    ("G", "on-demand"): ("L-DB2E81BA", "Running On-Demand G and VT instances"),
    ("G", "spot"): ("L-3819A6DF", "All G and VT Spot Instance Requests"),
    ("P", "on-demand"): ("L-417A185B", "Running On-Demand P instances"),
    ("P", "spot"): ("L-7212CCBC", "All P Spot Instance Requests"),
}


def quota_of(cloud: str, instance_type: str, family: str | None, purchase: str) -> tuple[str, str] | None:
    """(quota code, its name) a type draws on when bought `purchase` ("on-demand" | "spot")."""
    if cloud == "aws":
        letter = instance_type[:1].lower()
        key = "P" if letter == "p" else "G" if letter in ("g", "v") else None
        return AWS_QUOTAS.get((key, purchase)) if key else None
    if family is None:
        return None
    label = CLOUD_NAMES.get(cloud, cloud)
    return f"{family}/{purchase}", f"{label} {family} {purchase} vCPUs"


@dataclass
class Need:
    cloud: str
    region: str
    code: str
    name: str
    vcpus: int = 0
    pools: list[str] = field(default_factory=list)

    @property
    def site(self) -> str:
        return f"{self.cloud}:{self.region}"


def _family(cloud: str, name: str, entry: Any) -> str | None:
    if entry is not None:
        return str(entry.family)
    if cloud == "alicloud" and name.startswith("ecs."):
        return name[4:].split("-", 1)[0].split(".", 1)[0]
    if cloud == "tencentcloud":
        return name.split(".", 1)[0]
    return None


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
            quota = quota_of(pool.cloud, name, _family(pool.cloud, name, entry), purchase)
            if quota is None:
                continue
            key = (pool.cloud, pool.region, quota[0])
            need = found.setdefault(key, Need(pool.cloud, pool.region, quota[0], quota[1]))
            need.vcpus += count * int(entry.vcpu)
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
