"""Offline answers to AWS invokes (`aws.get_*` data sources), in the shapes AWS returns them."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gpufleet.invokes.base import Invoke
from gpufleet.invokes.images import record_image
from gpufleet.sdktypes import stable_hex, stable_uuid

if TYPE_CHECKING:
    from gpufleet.mocks import FleetMocks

# The offline AWS account: every ARN the mocks and invokes write names it.
ACCOUNT_ID = "123456789012"


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


# AWS-managed policies by name, with their path: `get_policy(name=...)` of one of these is the AWS
# policy (arn:aws:iam::aws:policy/<path><name>), never a policy of the account. The broad ones
# GF-IAM-003 judges are all here, with the common narrow ones a fleet attaches.
AWS_MANAGED_POLICIES: dict[str, str] = {
    name: path
    for path, names in (
        (
            "",
            "AdministratorAccess AdministratorAccess-Amplify AdministratorAccess-AWSElasticBeanstalk "
            "PowerUserAccess IAMFullAccess ReadOnlyAccess SecurityAudit AmazonS3FullAccess "
            "AmazonS3ReadOnlyAccess AmazonEC2FullAccess AmazonEC2ReadOnlyAccess AmazonVPCFullAccess "
            "AmazonRDSFullAccess AmazonDynamoDBFullAccess AWSLambda_FullAccess CloudWatchFullAccess "
            "CloudWatchFullAccessV2 CloudWatchLogsFullAccess AWSCloudTrail_FullAccess "
            "AmazonSageMakerFullAccess AmazonSSMFullAccess AWSKeyManagementServicePowerUser "
            "AmazonEKSClusterPolicy AmazonEKSWorkerNodePolicy "
            "AmazonEKS_CNI_Policy AmazonEC2ContainerRegistryReadOnly AmazonEC2ContainerRegistryFullAccess "
            "AmazonSSMManagedInstanceCore CloudWatchAgentServerPolicy IAMReadOnlyAccess",
        ),
        (
            "job-function/",
            "SystemAdministrator NetworkAdministrator DatabaseAdministrator Billing DataScientist "
            "ViewOnlyAccess SupportUser",
        ),
        (
            "service-role/",
            "AWSLambdaBasicExecutionRole AWSLambdaVPCAccessExecutionRole AmazonEC2ContainerServiceforEC2Role",
        ),
    )
    for name in names.split()
}
_AWS_MANAGED_BY_LOWER = {name.lower(): name for name in AWS_MANAGED_POLICIES}
_POLICY_ARN = re.compile(
    r"^arn:(?P<partition>[a-z-]+):iam::(?P<account>aws|\d{12}):policy(?P<path>/(?:.*/)?)(?P<name>[^/]+)$"
)
_ADMINISTRATOR_DOCUMENT = json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
)


def _aws_policy(m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    """`aws.iam.get_policy`: by `arn`, or by `name` (an AWS-managed name is the AWS policy, whose ARN
    every policy rule knows); a name of the account's own is a customer-managed policy, said in a note."""
    partition = "aws-cn" if region.startswith("cn-") else "aws"
    arn = a.get("arn")
    name = a.get("name")
    if isinstance(arn, str) and arn:
        match = _POLICY_ARN.match(arn)
        name = match.group("name") if match else arn.rsplit("/", 1)[-1]
        path = match.group("path") if match else "/"
    elif isinstance(name, str) and name:
        known = _AWS_MANAGED_BY_LOWER.get(name.lower())
        if known is not None:
            name, path = known, f"/{AWS_MANAGED_POLICIES[known]}"
            arn = f"arn:{partition}:iam::aws:policy{path}{name}"
        else:
            prefix = str(a.get("pathPrefix") or "/")
            path = prefix if prefix.endswith("/") else f"{prefix}/"
            arn = f"arn:{partition}:iam::{ACCOUNT_ID}:policy{path}{name}"
            m.note(
                f"invoke aws:iam/getPolicy:getPolicy: {name!r} is no AWS-managed policy known offline; the "
                f"program got the placeholder {arn} (a customer-managed policy of the account), and a "
                "policy judging what it attaches judges that placeholder"
            )
    else:
        return {}
    policy_id = f"ANPA{stable_hex('iam-policy', arn, length=17).upper()}"
    result: dict[str, Any] = {"arn": arn, "id": arn, "name": name, "path": path, "policyId": policy_id}
    if arn.endswith(":policy/AdministratorAccess"):
        result["policy"] = _ADMINISTRATOR_DOCUMENT
    return result


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
    arch = record_image(_m, ami, a, "ec2.getAmi")
    return {
        "id": ami,
        "imageId": ami,
        "arn": f"arn:aws:ec2:{region}::image/{ami}",
        "name": "offline-image",
        "architecture": arch or "x86_64",
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
    if value.startswith("ami-"):
        record_image(_m, value, {"name": name}, f"ssm.getParameter {name}")
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


INVOKES: dict[str, Invoke] = {
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
    "aws:iam/getPolicy:getPolicy": _aws_policy,
    "aws:ec2/getVpc:getVpc": _aws_vpc,
    "aws:ec2/getSubnets:getSubnets": _aws_subnets,
}
