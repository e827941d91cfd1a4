"""The Tencent Cloud site alone, built from ``gpufleet:fleet`` the way the fleet builds a site: the
site plan holds the spec's Tencent pools of the ``tencentcloud:region`` region, and that region is
the cloud's home site. The stack config ``mutate`` (``<resource name>.<dotted input>=<json value>``,
``;``-separated) rewrites inputs of the registered resources, so tests can break one setting."""

from __future__ import annotations

import json
from typing import Any

import pulumi

from gpufleet.components.sites.base import SiteArgs, SitePlan, site_name
from gpufleet.components.sites.tencentcloud import TencentSite
from gpufleet.components.spec import FleetSpec
from gpufleet.components.tags import STACK_TAG, current_stack

config = pulumi.Config("gpufleet")
region = pulumi.Config("tencentcloud").require("region")
spec = FleetSpec.model_validate(config.require_object("fleet"))
fleet = f"{pulumi.get_project()}-{pulumi.get_stack()}"
plan = SitePlan(
    cloud="tencentcloud",
    region=region,
    home=True,
    pools=tuple(
        n for n, p in spec.pools.items() if p.cloud == "tencentcloud" and (p.region or region) == region
    ),
    vpc_cidr=None if spec.network.subnet_ids else str(spec.network.vpc_cidr),
    availability_zones=spec.network.availability_zones,
    subnet_ids=tuple(spec.network.subnet_ids or ()),
)
mutations: dict[str, list[tuple[list[str], Any]]] = {}
for item in filter(None, (config.get("mutate") or "").split(";")):
    target, _, value = item.partition("=")
    resource, _, path = target.partition(".")
    mutations.setdefault(resource, []).append((path.split("."), json.loads(value)))


def _set(props: dict[str, Any], keys: list[str], value: Any) -> None:
    for key in keys[:-1]:
        props = props[int(key)] if isinstance(props, list) else props.setdefault(key, {})
    if value is None:
        props.pop(keys[-1], None)
    else:
        props[keys[-1]] = value


def mutate(args: pulumi.ResourceTransformationArgs) -> pulumi.ResourceTransformationResult | None:
    if args.name not in mutations:
        return None
    props = dict(args.props)
    for keys, value in mutations[args.name]:
        _set(props, keys, value)
    return pulumi.ResourceTransformationResult(props, args.opts)


site = TencentSite(
    site_name(fleet, plan),
    SiteArgs(
        fleet=fleet,
        spec=spec,
        plan=plan,
        tags={**spec.cost_tags, STACK_TAG: current_stack()},
        stack=current_stack(),
        byok_material_base64=config.get_secret("byokMaterial"),
    ),
    pulumi.ResourceOptions(transformations=[mutate]),
)
pulumi.export("bucket", site.outputs.bucket_name)
