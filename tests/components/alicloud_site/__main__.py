"""The Alibaba Cloud site alone, under the offline engine: what the policy pack judges in the tests.

The stack config ``variant`` picks the test spec: ``imported`` or ``pending`` (BYOK), ``nat`` (egress
through a NAT gateway), ``existing`` (existing vSwitches); none: the dev spec. The shipped cn-dev stack
runs through the project's own program (stacks/Pulumi.cn-dev.yaml, infra/).
"""

import pulumi

from tests.components.alicloud_builders import build_site, plan_of, spec_of

variant = pulumi.Config().get("variant") or ""
byok = {"encryption": "byok", "byok_material": variant}
spec = spec_of(
    **({"storage": {"checkpoints": byok}} if variant in ("imported", "pending") else {}),
    **({"network": {"vpc_cidr": "10.60.0.0/16", "egress": "nat"}} if variant == "nat" else {}),
)
existing = variant == "existing"
plan = plan_of(subnet_ids=("vsw-existing-a", "vsw-existing-b"), vpc_cidr=None) if existing else plan_of()
site = build_site(spec, plan)
pulumi.export("key_id", site.outputs.key_id)
