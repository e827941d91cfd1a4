"""The Alibaba Cloud site alone, under the offline engine: what the policy pack judges in the tests.

With ``gpufleet:fleet`` in the config (a stack file's fleet, e.g. stacks/Pulumi.cn-dev.yaml), the site
is built from that spec, its plan made the way the fleet makes one (the spec's Alibaba pools, its
network). Otherwise the stack config ``variant`` picks the test spec: ``imported`` or ``pending``
(BYOK), ``nat`` (egress through a NAT gateway), ``existing`` (existing vSwitches); none: the dev spec.
"""

import pulumi

from components.sites.base import SitePlan
from components.spec import parse_fleet
from tests.components.alicloud_builders import REGION, build_site, plan_of, spec_of

fleet = pulumi.Config("gpufleet").get_object("fleet")
variant = pulumi.Config().get("variant") or ""
if fleet is not None:
    spec = parse_fleet(fleet)
    pools = tuple(name for name, pool in spec.pools.items() if pool.cloud == "alicloud")
    plan = SitePlan(
        cloud="alicloud",
        region=REGION,
        home=True,
        pools=pools,
        vpc_cidr=str(spec.network.vpc_cidr),
        availability_zones=spec.network.availability_zones,
    )
else:
    byok = {"encryption": "byok", "byok_material": variant}
    spec = spec_of(
        **({"storage": {"checkpoints": byok}} if variant in ("imported", "pending") else {}),
        **({"network": {"vpc_cidr": "10.60.0.0/16", "egress": "nat"}} if variant == "nat" else {}),
    )
    existing = variant == "existing"
    plan = plan_of(subnet_ids=("vsw-existing-a", "vsw-existing-b"), vpc_cidr=None) if existing else plan_of()
site = build_site(spec, plan)
pulumi.export("key_id", site.outputs.key_id)
