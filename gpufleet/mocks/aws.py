"""AWS resource answers: ids, ARNs and the outputs AWS fills in, in the formats AWS returns them.

Also the placeholders for outputs of the account stack (an AWS stack) that a stack reference reads
when its outputs are not given offline.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pulumi.runtime.mocks import MockResourceArgs

from gpufleet.components.clouds import AWS
from gpufleet.invokes.aws import ACCOUNT_ID
from gpufleet.mocks.common import kebab, sdk_output_names, split_token
from gpufleet.sdktypes import stable_hex, stable_uuid

if TYPE_CHECKING:
    from gpufleet.mocks import FleetMocks

CLOUD = AWS.key

# AWS type-token modules whose ARNs use another service name.
_ARN_SERVICE = {
    "cloudwatch": "logs",
    "vpc": "ec2",
    "ec2transitgateway": "ec2",
    "ec2clientvpn": "ec2",
    "lb": "elasticloadbalancing",
    "alb": "elasticloadbalancing",
    "elasticloadbalancingv2": "elasticloadbalancing",
    "cloudtrail": "cloudtrail",
    "cfg": "config",
    "appautoscaling": "application-autoscaling",
}

# AWS resource classes whose id has an EC2-style prefix.
_AWS_ID_PREFIX = {
    "ec2/instance": "i",
    "ec2/securityGroup": "sg",
    "ec2/vpc": "vpc",
    "ec2/subnet": "subnet",
    "ec2/launchTemplate": "lt",
    "ec2/internetGateway": "igw",
    "ec2/natGateway": "nat",
    "ec2/routeTable": "rtb",
    "ec2/eip": "eipalloc",
    "ec2/networkInterface": "eni",
    "ec2/vpcEndpoint": "vpce",
    "ec2/vpnGateway": "vgw",
    "ec2/customerGateway": "cgw",
    "ec2/vpnConnection": "vpn",
    "ec2/volume": "vol",
    "ec2/keyPair": "key",
    "ec2transitgateway/transitGateway": "tgw",
    "vpc/securityGroupIngressRule": "sgr",
    "vpc/securityGroupEgressRule": "sgr",
}

# AWS resources identified by their (auto-generated) name, and the input that carries it.
_AWS_NAME_PROPERTY = {
    "s3/bucket": "bucket",
    "s3/bucketV2": "bucket",
}

# AWS modules whose resources are named, for types the installed SDK does not describe.
_AWS_NAMED_MODULES = frozenset(
    {"iam", "cloudwatch", "sns", "sqs", "ssm", "budgets", "cloudtrail", "autoscaling"}
)

# AWS resources without an ARN of their own (for types the installed SDK does not describe).
_AWS_NO_ARN = frozenset(
    {
        "iam/rolePolicy",
        "iam/rolePolicyAttachment",
        "iam/userPolicy",
        "iam/userPolicyAttachment",
        "iam/policyAttachment",
        "ec2/routeTableAssociation",
        "ec2/route",
        "ec2/securityGroupRule",
        "autoscaling/attachment",
        "autoscaling/schedule",
        "autoscaling/lifecycleHook",
        "cloudwatch/logStream",
    }
)


def resource_id(mocks: FleetMocks, token: str, args: MockResourceArgs, out: dict[str, Any]) -> str:
    """The id AWS gives the resource; the outputs AWS fills in are added to `out`."""
    _pkg, module, resource = split_token(token)
    key = f"{module}/{resource}"
    region = mocks.region(CLOUD, args.provider)
    hexid = stable_hex(token, args.name)
    declared = sdk_output_names(token)
    autoname = f"{args.name}-{hexid[:7]}"
    # The provider auto-names resources that have a `name` and none was given; other resources
    # (ASG policies, alarms, schedules) refer to them by that name.
    if "name" not in out and (
        (declared is not None and "name" in declared) or (declared is None and module in _AWS_NAMED_MODULES)
    ):
        out["name"] = autoname
    found = _identify(token, args.name, key, autoname, out)
    has_arn = "arn" in declared if declared is not None else key not in _AWS_NO_ARN
    if module == "s3" and key not in _AWS_NAME_PROPERTY and isinstance(out.get("bucket"), str):
        # Bucket sub-resources (encryption, lifecycle, policy, ...) are identified by the bucket.
        found = out["bucket"]
    elif has_arn:
        out.setdefault("arn", _aws_arn(module, resource, region, found, out))
    _fill_outputs(key, region, hexid, found, out)
    return found


def _identify(token: str, name: str, key: str, autoname: str, out: dict[str, Any]) -> str:
    """The id: the name for named resources, an EC2-style id, a key's UUID, or the resource's name."""
    module, _, resource = key.partition("/")
    name_prop = _AWS_NAME_PROPERTY.get(key)
    if name_prop:
        out.setdefault(name_prop, autoname)
        return str(out[name_prop])
    if key in _AWS_ID_PREFIX:
        return f"{_AWS_ID_PREFIX[key]}-{stable_hex(token, name)}"
    if module == "kms" and resource in ("key", "externalKey"):
        key_id = stable_uuid(token, name)
        out.setdefault("keyId", key_id)
        return key_id
    if isinstance(out.get("name"), str):
        return str(out["name"])
    return autoname


def _fill_outputs(key: str, region: str, hexid: str, found: str, out: dict[str, Any]) -> None:
    """The outputs AWS computes for the resource (addresses, endpoints, default children, versions)."""
    module, _, resource = key.partition("/")
    if key == "ec2/instance":
        out.setdefault("privateIp", _private_ip(hexid))
        out.setdefault("primaryNetworkInterfaceId", f"eni-{stable_hex('eni', hexid)}")
    if key in _AWS_NAME_PROPERTY:
        out.setdefault("bucketDomainName", f"{found}.s3.amazonaws.com")
        out.setdefault("bucketRegionalDomainName", f"{found}.s3.{region}.amazonaws.com")
        out.setdefault("region", region)
    if module == "iam" and resource in ("role", "user", "policy", "instanceProfile"):
        out.setdefault("uniqueId", f"AROA{stable_hex('uid', hexid, length=17).upper()}")
    if module == "rds" and resource in ("instance", "cluster"):
        _fill_database_endpoint(region, found, out)
    if key == "ec2/launchTemplate":
        out.setdefault("latestVersion", 1)
        out.setdefault("defaultVersion", 1)
    if key == "ec2/vpc":
        # AWS creates these with every VPC; programs route and secure through them.
        out.setdefault("mainRouteTableId", f"rtb-{stable_hex('main-rtb', hexid)}")
        out.setdefault("defaultRouteTableId", out["mainRouteTableId"])
        out.setdefault("defaultSecurityGroupId", f"sg-{stable_hex('default-sg', hexid)}")
        out.setdefault("defaultNetworkAclId", f"acl-{stable_hex('default-acl', hexid)}")
    if isinstance(out.get("tags"), dict):
        out.setdefault("tagsAll", dict(out["tags"]))


def _fill_database_endpoint(region: str, found: str, out: dict[str, Any]) -> None:
    port = 5432 if "postgres" in str(out.get("engine", "")) else 3306
    host = f"{found}.c{stable_hex('rds', region, length=11)}.{region}.rds.amazonaws.com"
    out.setdefault("address", host)
    out.setdefault("port", port)
    out.setdefault("endpoint", f"{host}:{port}")


def _aws_arn(module: str, resource: str, region: str, resource_id: str, out: Mapping[str, Any]) -> str:
    service = _ARN_SERVICE.get(module, module)
    if module == "s3" and resource.startswith("bucket") and "/" not in resource:
        bucket = out.get("bucket", resource_id)
        return f"arn:aws:s3:::{bucket}"
    if module == "iam":
        kind = {"instanceProfile": "instance-profile", "openIdConnectProvider": "oidc-provider"}.get(
            resource, kebab(resource)
        )
        return f"arn:aws:iam::{ACCOUNT_ID}:{kind}/{out.get('name', resource_id)}"
    if module == "kms" and resource == "alias":
        return f"arn:aws:kms:{region}:{ACCOUNT_ID}:{out.get('name', resource_id)}"
    if module == "kms":
        return f"arn:aws:kms:{region}:{ACCOUNT_ID}:key/{resource_id}"
    if module == "cloudwatch" and resource == "logGroup":
        return f"arn:aws:logs:{region}:{ACCOUNT_ID}:log-group:{resource_id}"
    if module in ("sns", "sqs"):
        return f"arn:aws:{module}:{region}:{ACCOUNT_ID}:{resource_id}"
    if module == "budgets":
        return f"arn:aws:budgets::{ACCOUNT_ID}:budget/{resource_id}"
    if module == "cloudtrail":
        return f"arn:aws:cloudtrail:{region}:{ACCOUNT_ID}:trail/{resource_id}"
    if module == "autoscaling" and resource == "group":
        return (
            f"arn:aws:autoscaling:{region}:{ACCOUNT_ID}:autoScalingGroup:"
            f"{stable_uuid(resource_id)}:autoScalingGroupName/{resource_id}"
        )
    return f"arn:aws:{service}:{region}:{ACCOUNT_ID}:{kebab(resource)}/{resource_id}"


def _private_ip(hexid: str) -> str:
    n = int(hexid[:6], 16)
    return f"10.0.{(n >> 8) % 256}.{n % 250 + 4}"


# Id prefixes for stack outputs named after the thing they identify (`vpc_id`, `subnet_ids`, ...).
_OUTPUT_ID_PREFIX = {
    "vpc": "vpc",
    "subnet": "subnet",
    "private_subnet": "subnet",
    "public_subnet": "subnet",
    "security_group": "sg",
    "sg": "sg",
    "route_table": "rtb",
    "internet_gateway": "igw",
    "nat_gateway": "nat",
    "transit_gateway": "tgw",
    "instance": "i",
    "ami": "ami",
    "image": "ami",
    "volume": "vol",
    "eni": "eni",
    "network_interface": "eni",
    "vswitch": "vsw",
}


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).replace("-", "_").lower()


def stack_output_placeholder(stack: str, output: str, region: str) -> Any:
    """A value shaped by the output's name: `vpc_id` -> `vpc-...`, `subnet_ids` -> two subnet ids, ..."""
    key = _snake(output)
    hexid = stable_hex("stack-output", stack, output)

    def identifier(stem: str, index: int = 0) -> str:
        prefix = _OUTPUT_ID_PREFIX.get(
            stem, _OUTPUT_ID_PREFIX.get(stem.rsplit("_", 1)[-1], stem.replace("_", "-"))
        )
        return f"{prefix}-{stable_hex('stack-output', stack, output, str(index))}"

    if "cidr" in key:
        return ["10.0.0.0/16"] if key.endswith("s") else "10.0.0.0/16"
    if key.endswith("_ids") or key == "ids":
        stem = key[: -len("_ids")] or "resource"
        return [identifier(stem, i) for i in range(2)]
    if key.endswith("_id") or key == "id":
        return identifier(key[: -len("_id")] or "resource")
    if key.endswith("arns"):
        return [f"arn:aws:iam::{ACCOUNT_ID}:role/{key}-{hexid[:7]}-{i}" for i in range(2)]
    if key.endswith("arn"):
        stem = key[: -len("arn")].rstrip("_") or "resource"
        return f"arn:aws:{stem.split('_')[0]}:{region}:{ACCOUNT_ID}:{stem.replace('_', '-')}/{hexid[:12]}"
    if key.endswith(("url", "endpoint", "hostname", "host", "dns_name")):
        host = f"{key.replace('_', '-')}-{hexid[:7]}.placeholder.invalid"
        return f"https://{host}" if key.endswith("url") else host
    if key.endswith(("port", "count", "size")):
        return 443 if key.endswith("port") else 1
    if key.endswith("s") and not key.endswith(("ss", "us")):
        return [f"{key[:-1].replace('_', '-')}-{hexid[:7]}-{i}" for i in range(2)]
    return f"{key.replace('_', '-')}-{hexid[:7]}"


def placeholder_arn(module: str, resource: str, key: str, region: str, slug: str) -> str:
    """A typed placeholder's ARN (`resource` in kebab case, `key` the property name in lower case)."""
    service = "execute-api" if key == "executionarn" else (module if module != "index" else "iam")
    return f"arn:aws:{service}:{region}:{ACCOUNT_ID}:{resource}/{slug}"
