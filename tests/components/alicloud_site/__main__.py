"""The Alibaba Cloud site alone, under the offline engine: what the policy pack judges in the tests.

The stack config ``variant`` picks the spec: ``byok`` (imported material), ``pending`` (the first BYOK
deploy), ``nat`` (egress through a NAT gateway), ``existing`` (existing vSwitches); none: the dev spec.
"""

import pulumi

from tests.components.alicloud_builders import build_site, plan_of, spec_of

variant = pulumi.Config().get("variant") or ""
checkpoints = {"encryption": "byok", "byok_material": variant} if variant in ("imported", "pending") else None
spec = spec_of(
    **({"storage": {"checkpoints": checkpoints}} if checkpoints else {}),
    **({"network": {"vpc_cidr": "10.60.0.0/16", "egress": "nat"}} if variant == "nat" else {}),
)
plan = (
    plan_of(subnet_ids=("vsw-existing-a", "vsw-existing-b"), vpc_cidr=None)
    if variant == "existing"
    else plan_of()
)
site = build_site(spec, plan)
pulumi.export("key_id", site.outputs.key_id)
