"""Plausible, deterministic answers for resources and invokes when no cloud is asked.

Every value here is synthetic: ids and ARNs are derived from the resource's name and type so that two
runs of the same program give the same graph, and so that a value passed from one resource to another
(a key's ARN into a bucket's encryption settings) is recognisable in the consumer's inputs.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import keyword
import re
import threading
from collections.abc import Mapping
from typing import Any

from pulumi import _types
from pulumi.runtime import Mocks
from pulumi.runtime.mocks import MockCallArgs, MockResourceArgs

ACCOUNT_ID = "123456789012"
ALICLOUD_ACCOUNT_ID = "1234567890123456"
TENCENT_APP_ID = "1250000000"
TENCENT_UIN = "100000000001"

DEFAULT_REGIONS = {"aws": "us-east-1", "alicloud": "cn-hangzhou", "tencentcloud": "ap-guangzhou"}

# Policy documents may be given as dicts (pulumi-aws accepts them) but providers return them as JSON
# strings, and the SDKs reject a dict where an output is typed `str`.
_DOCUMENT_MARKERS = frozenset({"Statement", "statement", "Version", "version"})

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

_ALICLOUD_ID_PREFIX = {
    "vpc/network": "vpc",
    "vpc/switch": "vsw",
    "ecs/securityGroup": "sg",
    "ecs/instance": "i",
    "ecs/ecsLaunchTemplate": "lt",
    "ecs/launchTemplate": "lt",
    "ecs/keyPair": "kp",
    "ess/scalingGroup": "asg",
    "ess/scalingConfiguration": "asc",
    "ess/scalingRule": "asr",
    "vpn/gateway": "vpn",
    "vpn/customerGateway": "cgw",
    "vpn/connection": "vco",
    "cen/instance": "cen",
    "ecs/command": "c",
}

_TENCENT_ID_PREFIX = {
    "Vpc/instance": "vpc",
    "Subnet/instance": "subnet",
    "Security/group": "sg",
    "Instance/instance": "ins",
    "As/scalingGroup": "asg",
    "As/scalingConfig": "asc",
    "Vpn/gateway": "vpngw",
    "Vpn/customerGateway": "cgw",
    "Vpn/connection": "vpnx",
    "Ccn/instance": "ccn",
    "Tat/command": "cmd",
}


_SDK_PACKAGES = {
    "aws": "pulumi_aws",
    "alicloud": "pulumi_alicloud",
    "tencentcloud": "tencentcloud_iac_pulumi",
    "kubernetes": "pulumi_kubernetes",
}


@functools.cache
def sdk_output_names(token: str) -> frozenset[str] | None:
    """Wire names of the properties the installed SDK declares for `token`, or None if unknown."""
    parts = token.split(":")
    if len(parts) != 3 or parts[0] not in _SDK_PACKAGES:
        return None
    package, module_path, class_name = parts
    if package == "kubernetes":
        group, _, version = module_path.partition("/")
        python_module = f"{group.split('.')[0]}.{version}" if version else group
    else:
        python_module = module_path.split("/")[0].lower()
        if keyword.iskeyword(python_module):
            python_module += "_"
    name = _SDK_PACKAGES[package] if python_module == "index" else f"{_SDK_PACKAGES[package]}.{python_module}"
    try:
        cls = getattr(importlib.import_module(name), class_name)
        return frozenset(_types.resource_types(cls))
    except (ImportError, AttributeError, TypeError):
        return None


def stable_hex(*parts: str, length: int = 17) -> str:
    digest = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()
    return digest[:length]


def stable_uuid(*parts: str) -> str:
    h = stable_hex(*parts, length=32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"


def _kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def split_token(token: str) -> tuple[str, str, str]:
    """`aws:s3/bucket:Bucket` -> (`aws`, `s3`, `bucket`)."""
    parts = token.split(":")
    if len(parts) != 3:
        return parts[0], "", token
    package, module_path, _cls = parts
    module, _, resource = module_path.partition("/")
    return package, module, resource or module


def is_policy_document(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and bool(_DOCUMENT_MARKERS & set(value))
        and any(k in value for k in ("Statement", "statement"))
    )


def encode_documents(value: Any) -> Any:
    """JSON-encode policy documents given as dicts, at any depth."""
    if is_policy_document(value):
        return json.dumps(value, separators=(",", ":"))
    if isinstance(value, dict):
        return {k: encode_documents(v) for k, v in value.items()}
    if isinstance(value, list):
        return [encode_documents(v) for v in value]
    return value


def _safe_to_return(value: Any) -> bool:
    """Values the SDK can take back whatever the output's declared type.

    Structured inputs are left out of the mock's answer: for those the SDK falls back to the input
    value itself, and tolerates a shape that does not match the output type.
    """
    if isinstance(value, dict):
        return False
    if isinstance(value, list):
        return all(not isinstance(v, dict | list) for v in value)
    return True


class FleetMocks(Mocks):
    """Resource and invoke answers for aws, alicloud, tencentcloud and kubernetes programs."""

    def __init__(
        self,
        config: Mapping[str, str] | None = None,
        stack_references: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        self._config = dict(config or {})
        self._stack_references = dict(stack_references or {})
        self._provider_regions: dict[str, str] = {}
        self._lock = threading.Lock()
        self.notes: list[str] = []

    # -- helpers ---------------------------------------------------------------------------------

    def note(self, message: str) -> None:
        with self._lock:
            if message not in self.notes:
                self.notes.append(message)

    def region(self, package: str, provider_ref: str | None = None) -> str:
        if provider_ref:
            provider_id = provider_ref.rsplit("::", 1)[-1]
            if provider_id in self._provider_regions:
                return self._provider_regions[provider_id]
        configured = self._config.get(f"{package}:region")
        if configured:
            return configured
        fallback = DEFAULT_REGIONS.get(package, "local")
        self.note(f"{package}:region is not set in the stack config; {fallback} is assumed for ids and ARNs")
        return fallback

    # -- resources -------------------------------------------------------------------------------

    def new_resource(self, args: MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        token = args.typ
        inputs = dict(args.inputs or {})
        if token == "pulumi:pulumi:StackReference":
            return self._stack_reference(args, inputs)
        outputs: dict[str, Any] = encode_documents(inputs)
        if token.startswith("pulumi:providers:"):
            provider_id = stable_uuid("provider", token, args.name)
            region = inputs.get("region")
            if isinstance(region, str):
                with self._lock:
                    self._provider_regions[provider_id] = region
            return provider_id, self.answer(inputs, outputs)
        if args.custom is False:
            return None, self.answer(inputs, outputs)
        package = token.split(":", 1)[0]
        if args.resource_id:
            resource_id = args.resource_id
        elif package == "aws":
            resource_id = self._aws(token, args, outputs)
        elif package == "alicloud":
            resource_id = self._alicloud(token, args, outputs)
        elif package == "tencentcloud":
            resource_id = self._tencentcloud(token, args, outputs)
        elif package == "kubernetes":
            resource_id = self._kubernetes(token, args, outputs)
        else:
            resource_id = f"{args.name}-{stable_hex(token, args.name, length=8)}"
        outputs.setdefault("id", resource_id)
        return resource_id, self.answer(inputs, outputs)

    @staticmethod
    def answer(inputs: Mapping[str, Any], outputs: dict[str, Any]) -> dict[str, Any]:
        """What goes back to the SDK: every synthetic or rewritten value, and inputs safe to echo."""
        return {k: v for k, v in outputs.items() if k not in inputs or inputs[k] != v or _safe_to_return(v)}

    def _stack_reference(self, args: MockResourceArgs, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        name = str(inputs.get("name") or args.resource_id or args.name)
        known = self._stack_references.get(name)
        if known is None:
            self.note(
                f"stack reference {name!r} has no outputs offline (give them with --stack-refs FILE): "
                "every output read from it is a synthetic placeholder"
            )
        return name, {"name": name, "outputs": dict(known or {}), "secretOutputNames": []}

    def has_stack_reference(self, stack: str) -> bool:
        return stack in self._stack_references

    def stack_output_placeholder(self, stack: str, output: str) -> Any:
        """A plausible stand-in for output `output` of a stack whose outputs are not known offline."""
        value = stack_output_placeholder(stack, output, self.region("aws"))
        self.note(f"stack reference {stack!r}: output {output!r} read as the placeholder {json.dumps(value)}")
        return value

    def _aws(self, token: str, args: MockResourceArgs, out: dict[str, Any]) -> str:
        _pkg, module, resource = split_token(token)
        key = f"{module}/{resource}"
        region = self.region("aws", args.provider)
        hexid = stable_hex(token, args.name)
        declared = sdk_output_names(token)
        name_prop = _AWS_NAME_PROPERTY.get(key)
        autoname = f"{args.name}-{hexid[:7]}"
        # The provider auto-names resources that have a `name` and none was given; other resources
        # (ASG policies, alarms, schedules) refer to them by that name.
        if "name" not in out and (
            (declared is not None and "name" in declared)
            or (declared is None and module in _AWS_NAMED_MODULES)
        ):
            out["name"] = autoname
        if name_prop:
            out.setdefault(name_prop, autoname)
            resource_id = str(out[name_prop])
        elif key in _AWS_ID_PREFIX:
            resource_id = f"{_AWS_ID_PREFIX[key]}-{hexid}"
        elif module == "kms" and resource in ("key", "externalKey"):
            resource_id = stable_uuid(token, args.name)
            out.setdefault("keyId", resource_id)
        elif isinstance(out.get("name"), str):
            resource_id = out["name"]
        else:
            resource_id = autoname
        has_arn = "arn" in declared if declared is not None else key not in _AWS_NO_ARN
        if module == "s3" and key not in _AWS_NAME_PROPERTY and isinstance(out.get("bucket"), str):
            # Bucket sub-resources (encryption, lifecycle, policy, ...) are identified by the bucket.
            resource_id = out["bucket"]
        elif has_arn:
            out.setdefault("arn", self._aws_arn(module, resource, region, resource_id, out))
        if module == "ec2" and resource == "instance":
            out.setdefault("privateIp", _private_ip(hexid))
            out.setdefault("primaryNetworkInterfaceId", f"eni-{stable_hex('eni', hexid)}")
        if key in _AWS_NAME_PROPERTY:
            out.setdefault("bucketDomainName", f"{resource_id}.s3.amazonaws.com")
            out.setdefault("bucketRegionalDomainName", f"{resource_id}.s3.{region}.amazonaws.com")
            out.setdefault("region", region)
        if module == "iam" and resource in ("role", "user", "policy", "instanceProfile"):
            out.setdefault("uniqueId", f"AROA{stable_hex('uid', hexid, length=17).upper()}")
        if module == "rds" and resource in ("instance", "cluster"):
            port = 5432 if "postgres" in str(out.get("engine", "")) else 3306
            host = f"{resource_id}.c{stable_hex('rds', region, length=11)}.{region}.rds.amazonaws.com"
            out.setdefault("address", host)
            out.setdefault("port", port)
            out.setdefault("endpoint", f"{host}:{port}")
        if module == "ec2" and resource == "launchTemplate":
            out.setdefault("latestVersion", 1)
            out.setdefault("defaultVersion", 1)
        if module == "ec2" and resource == "vpc":
            # AWS creates these with every VPC; programs route and secure through them.
            out.setdefault("mainRouteTableId", f"rtb-{stable_hex('main-rtb', hexid)}")
            out.setdefault("defaultRouteTableId", out["mainRouteTableId"])
            out.setdefault("defaultSecurityGroupId", f"sg-{stable_hex('default-sg', hexid)}")
            out.setdefault("defaultNetworkAclId", f"acl-{stable_hex('default-acl', hexid)}")
        if isinstance(out.get("tags"), dict):
            out.setdefault("tagsAll", dict(out["tags"]))
        return resource_id

    @staticmethod
    def _aws_arn(module: str, resource: str, region: str, resource_id: str, out: Mapping[str, Any]) -> str:
        service = _ARN_SERVICE.get(module, module)
        if module == "s3" and resource.startswith("bucket") and "/" not in resource:
            bucket = out.get("bucket", resource_id)
            return f"arn:aws:s3:::{bucket}"
        if module == "iam":
            kind = {"instanceProfile": "instance-profile", "openIdConnectProvider": "oidc-provider"}.get(
                resource, _kebab(resource)
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
        return f"arn:aws:{service}:{region}:{ACCOUNT_ID}:{_kebab(resource)}/{resource_id}"

    def _alicloud(self, token: str, args: MockResourceArgs, out: dict[str, Any]) -> str:
        _pkg, module, resource = split_token(token)
        key = f"{module}/{resource}"
        region = self.region("alicloud", args.provider)
        hexid = stable_hex(token, args.name, length=20)
        if module == "oss" and resource == "bucket":
            out.setdefault("bucket", f"{args.name}-{hexid[:7]}")
            out.setdefault("extranetEndpoint", f"oss-{region}.aliyuncs.com")
            out.setdefault("intranetEndpoint", f"oss-{region}-internal.aliyuncs.com")
            return str(out["bucket"])
        if module == "kms" and resource == "key":
            key_id = stable_uuid(token, args.name)
            out.setdefault("arn", f"acs:kms:{region}:{ALICLOUD_ACCOUNT_ID}:key/{key_id}")
            return key_id
        if module == "ram":
            out.setdefault("name", out.get("roleName") or out.get("policyName") or f"{args.name}-{hexid[:7]}")
            kind = "role" if resource == "role" else "policy" if "olicy" in resource else _kebab(resource)
            out.setdefault("arn", f"acs:ram::{ALICLOUD_ACCOUNT_ID}:{kind}/{out['name']}")
            return str(out["name"])
        if key in _ALICLOUD_ID_PREFIX:
            return f"{_ALICLOUD_ID_PREFIX[key]}-bp1{hexid}"
        if module == "log" and resource in ("project", "store"):
            out.setdefault("name", f"{args.name}-{hexid[:7]}")
            return str(out["name"])
        return f"{args.name}-{hexid[:8]}"

    def _tencentcloud(self, token: str, args: MockResourceArgs, out: dict[str, Any]) -> str:
        _pkg, module, resource = split_token(token)
        key = f"{module}/{resource}"
        hexid = stable_hex(token, args.name, length=8)
        if module == "Cos" and resource == "bucket":
            bucket = str(out.get("bucket") or f"{args.name}-{TENCENT_APP_ID}")
            out["bucket"] = bucket
            region = self.region("tencentcloud", args.provider)
            out.setdefault("cosBucketUrl", f"{bucket}.cos.{region}.myqcloud.com")
            return bucket
        if module == "Kms":
            return stable_uuid(token, args.name)
        if module == "Cam" and resource in ("role", "policy"):
            return str(int(stable_hex(token, args.name, length=10), 16) % 10**11)
        if key in _TENCENT_ID_PREFIX:
            return f"{_TENCENT_ID_PREFIX[key]}-{hexid}"
        return f"{args.name}-{hexid}"

    @staticmethod
    def _kubernetes(token: str, args: MockResourceArgs, out: dict[str, Any]) -> str:
        metadata = out.get("metadata")
        if not isinstance(metadata, dict):
            metadata = {}
            out["metadata"] = metadata
        name = metadata.get("name") or f"{args.name}-{stable_hex(token, args.name, length=8)}"
        metadata.setdefault("name", name)
        metadata.setdefault("uid", stable_uuid(token, args.name))
        namespace = metadata.get("namespace")
        return f"{namespace}/{name}" if namespace else str(name)

    # -- invokes ---------------------------------------------------------------------------------

    def call(self, args: MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        token = args.token
        a = dict(args.args or {})
        package = token.split(":", 1)[0]
        region = self.region(package, args.provider) if package in DEFAULT_REGIONS else ""
        handler = _INVOKES.get(token)
        if handler is not None:
            return handler(self, a, region), []
        if package != "kubernetes":
            self.note(f"invoke {token} has no offline answer: the program got an empty result")
        return {}, []


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


def _private_ip(hexid: str) -> str:
    n = int(hexid[:6], 16)
    return f"10.0.{(n >> 8) % 256}.{n % 250 + 4}"


def _aws_caller_identity(_m: FleetMocks, _a: dict[str, Any], _region: str) -> dict[str, Any]:
    return {
        "accountId": ACCOUNT_ID,
        "arn": f"arn:aws:iam::{ACCOUNT_ID}:user/offline",
        "userId": "AIDAOFFLINEOFFLINE0000",
        "id": ACCOUNT_ID,
    }


def _aws_region(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    name = a.get("region") or a.get("name") or region
    return {
        "name": name,
        "region": name,
        "id": name,
        "description": name,
        "endpoint": f"ec2.{name}.amazonaws.com",
    }


def _aws_partition(_m: FleetMocks, _a: dict[str, Any], _region: str) -> dict[str, Any]:
    return {
        "partition": "aws",
        "dnsSuffix": "amazonaws.com",
        "reverseDnsPrefix": "com.amazonaws",
        "id": "aws",
    }


def _aws_azs(_m: FleetMocks, _a: dict[str, Any], region: str) -> dict[str, Any]:
    names = [f"{region}{s}" for s in "abc"]
    return {
        "names": names,
        "zoneIds": [f"use1-az{i}" if region == "us-east-1" else f"{region}-az{i}" for i in (1, 2, 3)],
        "groupNames": [region] * 3,
        "id": region,
        "state": "available",
    }


def _aws_instance_type_offerings(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    """Every instance type the filters name, offered in each zone `_aws_azs` lists (or in the region,
    for location type "region")."""
    wanted = [
        str(value)
        for item in a.get("filters") or []
        if isinstance(item, dict) and item.get("name") == "instance-type"
        for value in item.get("values") or []
    ]
    location_type = str(a.get("locationType") or "region")
    places = _aws_azs(_m, a, region)["names"] if location_type == "availability-zone" else [region]
    pairs = [(kind, place) for place in places for kind in wanted]
    return {
        "instanceTypes": [kind for kind, _ in pairs],
        "locations": [place for _, place in pairs],
        "locationTypes": [location_type] * len(pairs),
        "locationType": location_type,
        "id": region,
    }


def _aws_vpc_endpoint_service(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    """An AWS interface endpoint service available in every zone `_aws_azs` lists."""
    name = str(a.get("serviceName") or f"com.amazonaws.{region}.{a.get('service') or 'offline'}")
    return {
        "serviceName": name,
        "serviceType": str(a.get("serviceType") or "Interface"),
        "availabilityZones": _aws_azs(_m, a, region)["names"],
        "acceptanceRequired": False,
        "owner": "amazon",
        "privateDnsName": name.removeprefix("com.amazonaws.").split(".", 1)[-1] + f".{region}.amazonaws.com",
        "serviceId": f"vpce-svc-{stable_hex('vpce-svc', name)}",
        "id": name,
    }


def _aws_kms_alias(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    name = str(a.get("name") or "alias/offline")
    key_id = stable_uuid("kms-alias", region, name)
    return {
        "name": name,
        "arn": f"arn:aws:kms:{region}:{ACCOUNT_ID}:{name}",
        "targetKeyId": key_id,
        "targetKeyArn": f"arn:aws:kms:{region}:{ACCOUNT_ID}:key/{key_id}",
        "id": name,
    }


def _aws_ami(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    ami = f"ami-{stable_hex('ami', json.dumps(a, sort_keys=True, default=str))}"
    return {
        "id": ami,
        "imageId": ami,
        "arn": f"arn:aws:ec2:{region}::image/{ami}",
        "name": "offline-image",
        "architecture": "x86_64",
        "rootDeviceName": "/dev/xvda",
        "rootDeviceType": "ebs",
        "virtualizationType": "hvm",
        "ownerId": ACCOUNT_ID,
        "owners": a.get("owners") or [],
        "mostRecent": bool(a.get("mostRecent")),
        "blockDeviceMappings": [],
        "filters": a.get("filters") or [],
        "tags": {},
        "state": "available",
    }


def _aws_ami_ids(_m: FleetMocks, a: dict[str, Any], _region: str) -> dict[str, Any]:
    seed = json.dumps(a, sort_keys=True, default=str)
    return {
        "ids": [f"ami-{stable_hex('ami', seed, str(i))}" for i in range(2)],
        "id": stable_hex("amiids", seed, length=8),
        "owners": a.get("owners") or [],
        "filters": a.get("filters") or [],
    }


def _aws_ssm_parameter(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    name = str(a.get("name", "offline"))
    # Public AMI parameters (/aws/service/.../image_id) are the common use in fleet programs.
    value = f"ami-{stable_hex('ssm', name)}" if re.search(r"(?i)ami|image", name) else "offline-value"
    return {
        "name": name,
        "value": value,
        "insecureValue": value,
        "type": "String",
        "version": 1,
        "arn": f"arn:aws:ssm:{region}:{ACCOUNT_ID}:parameter/{name.lstrip('/')}",
        "id": name,
        "withDecryption": a.get("withDecryption", True),
    }


def _one_or_list(values: Any) -> Any:
    items = list(values or [])
    return items[0] if len(items) == 1 else items


def render_policy_statement(st: Mapping[str, Any]) -> dict[str, Any]:
    """One `getPolicyDocument` statement (wire names) as IAM JSON, as the provider renders it."""
    out: dict[str, Any] = {}
    if st.get("sid"):
        out["Sid"] = st["sid"]
    out["Effect"] = st.get("effect") or "Allow"
    for src, dst in (
        ("actions", "Action"),
        ("notActions", "NotAction"),
        ("resources", "Resource"),
        ("notResources", "NotResource"),
    ):
        if st.get(src):
            out[dst] = _one_or_list(sorted(set(st[src])) if len(st[src]) > 1 else st[src])
    for src, dst in (("principals", "Principal"), ("notPrincipals", "NotPrincipal")):
        principals = st.get(src) or []
        if principals:
            rendered: dict[str, Any] = {}
            for p in principals:
                ptype, ids = p.get("type"), list(p.get("identifiers") or [])
                if ptype == "*" and ids == ["*"]:
                    rendered = {"*": "*"}
                    break
                rendered.setdefault(ptype, []).extend(ids)
            out[dst] = "*" if rendered == {"*": "*"} else {k: _one_or_list(v) for k, v in rendered.items()}
    conditions = st.get("conditions") or []
    if conditions:
        cond: dict[str, dict[str, Any]] = {}
        for c in conditions:
            cond.setdefault(c["test"], {})[c["variable"]] = _one_or_list(c.get("values"))
        out["Condition"] = cond
    return out


def _aws_policy_document(_m: FleetMocks, a: dict[str, Any], _region: str) -> dict[str, Any]:
    statements: list[dict[str, Any]] = []
    for source in a.get("sourcePolicyDocuments") or []:
        try:
            doc = json.loads(source)
        except (TypeError, ValueError):
            continue
        found = doc.get("Statement") or []
        statements.extend(found if isinstance(found, list) else [found])
    own = [render_policy_statement(st) for st in a.get("statements") or []]
    by_sid = {st.get("Sid"): i for i, st in enumerate(statements) if st.get("Sid")}
    for st in own:
        sid = st.get("Sid")
        if sid and sid in by_sid:
            statements[by_sid[sid]] = st
        else:
            statements.append(st)
    for override in a.get("overridePolicyDocuments") or []:
        try:
            doc = json.loads(override)
        except (TypeError, ValueError):
            continue
        for st in doc.get("Statement") or []:
            sid = st.get("Sid")
            index = next((i for i, s in enumerate(statements) if sid and s.get("Sid") == sid), None)
            if index is None:
                statements.append(st)
            else:
                statements[index] = st
    document: dict[str, Any] = {"Version": a.get("version") or "2012-10-17"}
    if a.get("policyId"):
        document["Id"] = a["policyId"]
    document["Statement"] = statements
    text = json.dumps(document, indent=2)
    return {
        "json": text,
        "minifiedJson": json.dumps(document, separators=(",", ":")),
        "id": stable_hex("policy", text, length=10),
        "statements": a.get("statements") or [],
        "version": document["Version"],
    }


def _aws_vpc(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    vpc_id = a.get("id") or f"vpc-{stable_hex('vpc', json.dumps(a, sort_keys=True, default=str))}"
    return {
        "id": vpc_id,
        "arn": f"arn:aws:ec2:{region}:{ACCOUNT_ID}:vpc/{vpc_id}",
        "cidrBlock": "10.0.0.0/16",
        "default": bool(a.get("default", False)),
        "state": "available",
        "ownerId": ACCOUNT_ID,
        "tags": a.get("tags") or {},
        "cidrBlockAssociations": [],
    }


def _aws_subnets(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    seed = json.dumps(a, sort_keys=True, default=str)
    return {
        "ids": [f"subnet-{stable_hex('subnet', seed, str(i))}" for i in range(3)],
        "id": region,
        "filters": a.get("filters") or [],
        "tags": a.get("tags") or {},
    }


def _alicloud_zones(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    ids = [f"{region}-{s}" for s in ("h", "i", "j")]
    return {
        "ids": ids,
        "id": region,
        "zones": [
            {
                "id": z,
                "localName": z,
                "availableInstanceTypes": [],
                "availableResourceCreations": ["Instance", "VSwitch", "IoOptimized"],
                "availableDiskCategories": ["cloud_essd", "cloud_efficiency"],
                "multiZoneIds": [],
                "slbSlaveZoneIds": [],
            }
            for z in ids
        ],
    }


def _alicloud_images(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    image = f"m-bp1{stable_hex('image', region, json.dumps(a, sort_keys=True, default=str), length=17)}"
    return {
        "ids": [image],
        "id": image,
        "images": [
            {
                "id": image,
                "imageId": image,
                "name": a.get("nameRegex") or "offline-gpu-image",
                "osType": "linux",
                "osName": "Alibaba Cloud Linux 3",
                "architecture": "x86_64",
                "status": "Available",
                "imageOwnerAlias": a.get("owners") or "system",
                "size": 40,
            }
        ],
    }


def _alicloud_instance_types(_m: FleetMocks, a: dict[str, Any], _region: str) -> dict[str, Any]:
    family = a.get("instanceTypeFamily") or "ecs.gn7i"
    return {
        "ids": [f"{family}-c8g1.2xlarge"],
        "id": family,
        "instanceTypes": [],
    }


def _tencent_zones(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    zones = [f"{region}-{i}" for i in (3, 4, 6)]
    return {
        "id": region,
        "product": a.get("product", "cvm"),
        "zones": [
            {"id": str(100000 + i), "name": z, "description": z, "state": "AVAILABLE"}
            for i, z in enumerate(zones)
        ],
    }


def _tencent_images(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    image = f"img-{stable_hex('image', region, json.dumps(a, sort_keys=True, default=str), length=8)}"
    return {
        "id": image,
        "imageId": image,
        "imageName": "offline-gpu-image",
        "osName": a.get("osName") or "TencentOS Server 3.1",
        "images": [
            {
                "imageId": image,
                "imageName": "offline-gpu-image",
                "osName": "TencentOS Server 3.1",
                "imageType": "PUBLIC_IMAGE",
                "architecture": "x86_64",
                "platform": "TencentOS",
                "imageSize": 50,
                "imageCreator": "",
                "imageDescription": "",
                "imageState": "NORMAL",
                "createdTime": "2025-01-01T00:00:00Z",
                "snapshots": [],
                "support_cloud_init": True,
                "supportCloudInit": True,
                "syncPercent": 100,
                "isSupportCloudinit": True,
            }
        ],
    }


_INVOKES = {
    "aws:index/getCallerIdentity:getCallerIdentity": _aws_caller_identity,
    "aws:index/getRegion:getRegion": _aws_region,
    "aws:index/getPartition:getPartition": _aws_partition,
    "aws:index/getAvailabilityZones:getAvailabilityZones": _aws_azs,
    "aws:ec2/getAmi:getAmi": _aws_ami,
    "aws:ec2/getInstanceTypeOfferings:getInstanceTypeOfferings": _aws_instance_type_offerings,
    "aws:kms/getAlias:getAlias": _aws_kms_alias,
    "aws:ec2/getVpcEndpointService:getVpcEndpointService": _aws_vpc_endpoint_service,
    "aws:ec2/getAmiIds:getAmiIds": _aws_ami_ids,
    "aws:ssm/getParameter:getParameter": _aws_ssm_parameter,
    "aws:iam/getPolicyDocument:getPolicyDocument": _aws_policy_document,
    "aws:ec2/getVpc:getVpc": _aws_vpc,
    "aws:ec2/getSubnets:getSubnets": _aws_subnets,
    "alicloud:index/getZones:getZones": _alicloud_zones,
    "alicloud:ecs/getImages:getImages": _alicloud_images,
    "alicloud:ecs/getInstanceTypes:getInstanceTypes": _alicloud_instance_types,
    "tencentcloud:Availability/getZonesByProduct:getZonesByProduct": _tencent_zones,
    "tencentcloud:Images/getInstance:getInstance": _tencent_images,
    "tencentcloud:Image/getInstance:getInstance": _tencent_images,
}
