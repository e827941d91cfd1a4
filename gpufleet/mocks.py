"""Plausible, deterministic answers for resources and invokes when no cloud is asked.

Every value here is synthetic: ids and ARNs are derived from the resource's name and type so that two
runs of the same program give the same graph, and so that a value passed from one resource to another
(a key's ARN into a bucket's encryption settings) is recognisable in the consumer's inputs.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping
from typing import Any

from pulumi.runtime import Mocks
from pulumi.runtime.mocks import MockCallArgs, MockResourceArgs

from gpufleet import sdktypes
from gpufleet.components.clouds import DEFAULT_REGIONS
from gpufleet.graph import SECRET_SIG_KEY
from gpufleet.invokes import INVOKES, YAML_DECODE, decode_yaml, render_policy_statement
from gpufleet.sdktypes import ACCOUNT_ID, ALICLOUD_ACCOUNT_ID, stable_hex, stable_uuid

TENCENT_APP_ID = "1250000000"

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


def sdk_output_names(token: str) -> frozenset[str] | None:
    """Wire names of the properties the installed SDK declares for `token`, or None if unknown."""
    cls = sdktypes.resource_class(token)
    return None if cls is None else frozenset(sdktypes.declared_types(cls))


class MockAnswer(dict[str, Any]):
    """The outputs given back to the SDK; `placeholders` names those that are typed placeholders.

    The graph records the inputs and the modelled outputs only (`recorded_outputs`): a placeholder is
    there for the program to run on, not a value a policy should judge.
    """

    placeholders: frozenset[str] = frozenset()


def recorded_outputs(state: Mapping[str, Any]) -> dict[str, Any]:
    """The outputs of a mock answer without its typed placeholders."""
    skip = state.placeholders if isinstance(state, MockAnswer) else frozenset()
    return {k: v for k, v in state.items() if k not in skip}


def _answer(values: dict[str, Any], placeholders: frozenset[str]) -> MockAnswer:
    answer = MockAnswer(values)
    answer.placeholders = placeholders
    return answer


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


def _is_secret_wire(value: Any) -> bool:
    return isinstance(value, dict) and SECRET_SIG_KEY in value and "value" in value


def unwrap_secrets(value: Any) -> Any:
    """`value` with each secret's wire wrapper (`{<sig>: ..., "value": v}`) replaced by `v`."""
    if _is_secret_wire(value):
        return unwrap_secrets(value["value"])
    if isinstance(value, dict):
        return {key: unwrap_secrets(item) for key, item in value.items()}
    if isinstance(value, list):
        return [unwrap_secrets(item) for item in value]
    return value


def keep_secrets(original: Any, derived: Any) -> Any:
    """`derived` (the outputs, secrets unwrapped and derived values added) with every value that was a
    secret in `original` wrapped again."""
    if _is_secret_wire(original):
        return original
    if isinstance(original, dict) and isinstance(derived, dict):
        return {
            key: keep_secrets(original[key], item) if key in original else item
            for key, item in derived.items()
        }
    if isinstance(original, list) and isinstance(derived, list) and len(original) == len(derived):
        return [keep_secrets(o, d) for o, d in zip(original, derived, strict=True)]
    return derived


def _scalar_or_list(value: Any) -> bool:
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
            return provider_id, self.answer(token, args, outputs)
        if args.custom is False:
            return None, self.answer(token, args, outputs)
        package = token.split(":", 1)[0]
        # Ids, ARNs and names are derived from the secret's value, not its wire wrapper; the echoed
        # inputs keep their wrappers so the program still sees secrets (redaction hides the values).
        derived = unwrap_secrets(outputs)
        if args.resource_id:
            resource_id = args.resource_id
        elif package == "aws":
            resource_id = self._aws(token, args, derived)
        elif package == "alicloud":
            resource_id = self._alicloud(token, args, derived)
        elif package == "tencentcloud":
            resource_id = self._tencentcloud(token, args, derived)
        elif package == "kubernetes":
            resource_id = self._kubernetes(token, args, derived)
        else:
            resource_id = f"{args.name}-{stable_hex(token, args.name, length=8)}"
        outputs = keep_secrets(outputs, derived)
        outputs.setdefault("id", resource_id)
        return resource_id, self.answer(token, args, outputs)

    def placeholder_region(self, package: str, provider_ref: str | None = None) -> str:
        """The region placeholders name, without a note when a package has no region setting."""
        if package in DEFAULT_REGIONS:
            return self.region(package, provider_ref)
        return str(self._config.get(f"{package}:region") or "local")

    def answer(self, token: str, args: MockResourceArgs, outputs: dict[str, Any]) -> MockAnswer:
        """What goes back to the SDK: the inputs echoed and the modelled outputs, each in the shape of
        the output's declared type, and a typed placeholder for every other declared output.

        In a preview the SDK fills nothing from the inputs, and leaves unknown what is not returned."""
        region = self.placeholder_region(token.split(":", 1)[0], args.provider)
        cls = sdktypes.resource_class(token)
        if cls is None:
            # No SDK class describes the outputs (a program's own component, a package not installed):
            # structured values are left out, as a class's annotations may declare another shape.
            return _answer({k: v for k, v in outputs.items() if _scalar_or_list(v)}, frozenset())
        values, filled = sdktypes.complete(cls, sdktypes.Owner(token, args.name, region), outputs)
        return _answer(values, filled)

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
        if key == "ess/scalingRule":
            # The rule's ari, as the provider returns it (``ari:acs:ess:<region>:<uid>:scalingrule/<id>``):
            # what ESS alarm tasks name. CloudMonitor alarm targets name the rule by another ARN
            # (``acs:ess:...:scalingGroupId/<group>:scalingRuleId/<rule>``), which programs build.
            rule_id = f"asr-bp1{hexid}"
            out.setdefault("ari", f"ari:acs:ess:{region}:{ALICLOUD_ACCOUNT_ID}:scalingrule/{rule_id}")
            return rule_id
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
        if token == YAML_DECODE:
            return decode_yaml(a.get("text"))
        handler = INVOKES.get(token)
        result_class = sdktypes.invoke_result_class(token)
        if handler is not None:
            result = handler(self, a, region)
        else:
            if result_class is not None:
                self.note(
                    f"invoke {token} has no offline answer: the program got typed placeholders "
                    "(synthetic values of the declared result types)"
                )
            elif package != "kubernetes":
                self.note(f"invoke {token} has no offline answer: the program got an empty result")
            result = {}
        if result_class is None:
            return result, []
        # A provider echoes the arguments it was given (`get_subnet(id=...)` has that `id`).
        declared = sdktypes.declared_types(result_class)
        given = {k: v for k, v in a.items() if k in declared and v is not None}
        name = token.rsplit(":", 1)[-1]
        owner = sdktypes.Owner(token, name, region or self.placeholder_region(package))
        values, _filled = sdktypes.complete(result_class, owner, {**given, **result})
        return values, []


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


__all__ = [
    "ACCOUNT_ID",
    "ALICLOUD_ACCOUNT_ID",
    "FleetMocks",
    "MockAnswer",
    "decode_yaml",
    "encode_documents",
    "recorded_outputs",
    "render_policy_statement",
    "stable_hex",
    "stable_uuid",
    "stack_output_placeholder",
]
