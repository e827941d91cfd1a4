"""A recording Pulumi mock for component tests: every registration is kept with its camelCase inputs."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pulumi
import pytest

ACCOUNT = "123456789012"
REGION = "us-east-1"
# Inputs whose values are JSON documents: the SDK declares them as strings.
DOCUMENT_INPUTS = ("policy", "assumeRolePolicy", "content")


@dataclass
class Registration:
    type: str
    name: str
    inputs: dict[str, Any]
    custom: bool
    parent: str | None = None


KEY_TYPES = (
    "aws:kms/key:Key",
    "aws:kms/externalKey:ExternalKey",
    "aws:kms/replicaExternalKey:ReplicaExternalKey",
)


def _arn(typ: str, name: str, region: str = REGION) -> str:
    module = typ.split(":")[1].split("/", maxsplit=1)[0]
    service = {"cloudwatch": "logs" if "logGroup" in typ else "cloudwatch"}.get(module, module)
    return f"arn:aws:{service}:{region}:{ACCOUNT}:{typ.rsplit(':', maxsplit=1)[-1].lower()}/{name}"


ALICLOUD_ACCOUNT = "1234567890123456"
ALICLOUD_REGION = "cn-hangzhou"


def _alicloud_outputs(typ: str, name: str, outputs: dict[str, Any]) -> None:
    """What pulumi-alicloud returns that the Alibaba components read: names, ids and ARNs."""
    if typ == "alicloud:oss/bucket:Bucket":
        outputs.setdefault("bucket", f"{name}-0a1b2c3")
    if typ == "alicloud:kms/key:Key":
        outputs["arn"] = f"acs:kms:{ALICLOUD_REGION}:{ALICLOUD_ACCOUNT}:key/{name}-key-id"
    if typ == "alicloud:ram/role:Role":
        outputs["arn"] = f"acs:ram::{ALICLOUD_ACCOUNT}:role/{outputs.get('roleName', name)}"
    if typ == "alicloud:ess/scalingRule:ScalingRule":
        # As the provider returns it; CloudMonitor targets name the rule by another ARN.
        outputs["ari"] = f"ari:acs:ess:{ALICLOUD_REGION}:{ALICLOUD_ACCOUNT}:scalingrule/{name}-id"
    if typ == "alicloud:vpc/network:Network":
        outputs["routeTableId"] = f"vtb-{name}"
        outputs["routerId"] = f"vrt-{name}"
    if typ == "alicloud:vpc/natGateway:NatGateway":
        outputs["snatTableIds"] = f"stb-{name}"
    if typ == "alicloud:ecs/eipAddress:EipAddress":
        outputs["ipAddress"] = "203.0.113.7"


def _vswitch(vswitch_id: str) -> dict[str, Any]:
    return {
        "availableIpAddressCount": 250,
        "cidrBlock": "10.50.0.0/24",
        "creationTime": "2025-01-01T00:00:00Z",
        "description": "",
        "enableIpv6": False,
        "id": vswitch_id,
        "ipv6CidrBlock": "",
        "isDefault": False,
        "name": vswitch_id,
        "resourceGroupId": "rg-default",
        "routeTableId": "vtb-existing",
        "status": "Available",
        "tags": {},
        "vpcId": "vpc-existing",
        "vswitchId": vswitch_id,
        "vswitchName": vswitch_id,
        "zoneId": ALICLOUD_ZONES[0],
    }


# Zones of the Alibaba region that do not sell an instance type: {type: {zones}}.
ALICLOUD_ZONES = ["cn-hangzhou-h", "cn-hangzhou-i", "cn-hangzhou-j", "cn-hangzhou-k"]


class RecordingMocks(pulumi.runtime.Mocks):
    def __init__(self) -> None:
        self.missing_offerings = {}
        self.missing_endpoints: dict[str, set[str]] = {}
        self.alicloud_unsold: dict[str, set[str]] = {}
        self.registrations: list[Registration] = []
        self.calls: list[tuple[str, dict[str, Any]]] = []
        # keyState a BYOK key comes up in, by resource name (unset: the provider's value is not given).
        self.key_states: dict[str, str] = {}

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        self.registrations.append(Registration(args.typ, args.name, dict(args.inputs), bool(args.custom)))
        outputs: dict[str, Any] = dict(args.inputs)
        for key in DOCUMENT_INPUTS:
            if isinstance(outputs.get(key), dict | list):
                outputs[key] = json.dumps(outputs[key])
        physical = outputs.get("name") or f"{args.name}-0a1b2c3"
        # v7 regional resources say where they live through their ``region`` input.
        region = str(args.inputs.get("region") or REGION)
        outputs.setdefault("name", physical)
        outputs.setdefault("arn", _arn(args.typ, physical, region))
        if args.typ == "aws:s3/bucket:Bucket":
            outputs.setdefault("bucket", physical)
            outputs["arn"] = f"arn:aws:s3:::{physical}"
        if args.typ == "aws:cloudwatch/logGroup:LogGroup":
            outputs["arn"] = f"arn:aws:logs:{region}:{ACCOUNT}:log-group:{physical}"
        if args.typ in KEY_TYPES:
            outputs["keyId"] = f"{args.name}-key-id"
            outputs["arn"] = f"arn:aws:kms:{region}:{ACCOUNT}:key/{args.name}-key-id"
            if args.name in self.key_states:
                outputs["keyState"] = self.key_states[args.name]
        if args.typ == "aws:ec2/launchTemplate:LaunchTemplate":
            outputs["latestVersion"] = 1
        if args.typ == "aws:ec2/vpcEndpoint:VpcEndpoint":
            outputs["prefixListId"] = "pl-63a5400a"
        if args.typ.startswith("alicloud:"):
            _alicloud_outputs(args.typ, args.name, outputs)
        return f"{args.name}-id", outputs

    # Zones that do not offer an instance type, per region: {region: {zone: {types}}}.
    missing_offerings: dict[str, dict[str, set[str]]]

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        self.calls.append((args.token, dict(args.args)))
        region = str(args.args.get("region") or REGION)
        zones = [f"{region}a", f"{region}b", f"{region}c"]
        wanted = [
            v for f in args.args.get("filters") or [] if f.get("name") == "instance-type" for v in f["values"]
        ]
        gaps = getattr(self, "missing_offerings", {}).get(region, {})
        offered = [(t, z) for z in zones for t in wanted if t not in gaps.get(z, set())]
        answers: dict[str, dict[str, Any]] = {
            "aws:index/getCallerIdentity:getCallerIdentity": {
                "accountId": ACCOUNT,
                "arn": f"arn:aws:iam::{ACCOUNT}:user/ci",
                "userId": "AIDA",
                "id": ACCOUNT,
            },
            "aws:index/getPartition:getPartition": {
                "partition": "aws",
                "dnsSuffix": "amazonaws.com",
                "id": "aws",
            },
            "aws:index/getRegion:getRegion": {"name": REGION, "region": REGION, "id": REGION},
            "aws:index/getAvailabilityZones:getAvailabilityZones": {
                "names": [f"{region}a", f"{region}b", f"{region}c"],
                "zoneIds": ["az1", "az2", "az4"],
                "id": region,
            },
            "aws:ec2/getAmi:getAmi": {"id": "ami-0dlami000000000", "name": "Deep Learning Base AMI"},
            "aws:ec2/getSubnet:getSubnet": {"id": args.args.get("id", "subnet-1"), "vpcId": "vpc-existing"},
            "aws:ec2/getInstanceTypeOfferings:getInstanceTypeOfferings": {
                "instanceTypes": [t for t, _ in offered],
                "locations": [z for _, z in offered],
                "locationTypes": ["availability-zone"] * len(offered),
                "id": region,
            },
            "aws:ec2/getVpcEndpointService:getVpcEndpointService": {
                "serviceName": args.args.get("serviceName"),
                "availabilityZones": [
                    z
                    for z in zones
                    if args.args.get("serviceName") not in self.missing_endpoints.get(z, set())
                ],
                "id": args.args.get("serviceName"),
            },
            "aws:kms/getAlias:getAlias": {
                "name": args.args.get("name"),
                "targetKeyArn": f"arn:aws:kms:{region}:{ACCOUNT}:key/baseline-{region}",
                "targetKeyId": f"baseline-{region}",
                "arn": f"arn:aws:kms:{region}:{ACCOUNT}:{args.args.get('name')}",
                "id": args.args.get("name"),
            },
        }
        if args.token.startswith("alicloud:"):
            return self._alicloud_call(args.token, dict(args.args)), []
        return answers.get(args.token, {}), []

    def _alicloud_call(self, token: str, given: dict[str, Any]) -> dict[str, Any]:
        wanted = given.get("availableInstanceType")
        zones = [z for z in ALICLOUD_ZONES if z not in self.alicloud_unsold.get(str(wanted), set())]
        answers: dict[str, dict[str, Any]] = {
            "alicloud:index/getZones:getZones": {"ids": zones, "zones": [], "id": ALICLOUD_REGION},
            "alicloud:index/getCallerIdentity:getCallerIdentity": {
                "accountId": ALICLOUD_ACCOUNT,
                "arn": f"acs:ram::{ALICLOUD_ACCOUNT}:root",
                "identityType": "Account",
                "id": ALICLOUD_ACCOUNT,
            },
            "alicloud:ecs/getImages:getImages": {
                "ids": ["aliyun_3_x64_20G_alibase_20250101.vhd"],
                "images": [],
                "id": "images",
            },
            "alicloud:vpc/getSwitches:getSwitches": {
                "ids": list(given.get("ids") or []),
                "vswitches": [_vswitch(v) for v in given.get("ids") or []],
                "id": "switches",
            },
        }
        return answers.get(token, {})

    # Lookups used by the assertions.
    def custom(self) -> list[Registration]:
        return [r for r in self.registrations if r.custom]

    def of_type(self, typ: str) -> list[Registration]:
        return [r for r in self.registrations if r.type == typ]

    def one(self, typ: str, name: str) -> Registration:
        found = [r for r in self.registrations if r.type == typ and r.name == name]
        assert len(found) == 1, f"expected one {typ} named {name}, found {len(found)}: " + ", ".join(
            f"{r.type} {r.name}" for r in self.registrations
        )
        return found[0]

    def names_by_type(self) -> list[tuple[str, str]]:
        return sorted((r.type, r.name) for r in self.registrations)


Runner = Callable[[Callable[[], Any]], RecordingMocks]


class MonitorExecutor(ThreadPoolExecutor):
    """pulumi's MockMonitor serves each registration and invoke in the loop's default executor and, in a
    thread without an event loop, makes one (`pulumi.runtime.sync_await._ensure_event_loop`) that it
    never closes: collected later, each is an "unclosed event loop" ResourceWarning raised in
    `BaseEventLoop.__del__`, which pytest reports as a PytestUnraisableExceptionWarning. This executor
    gives its one worker a loop from the start, so the SDK uses that one, and closes it when the
    executor shuts down with `wait=True` (as `loop.shutdown_default_executor()` does)."""

    def __init__(self, thread_name_prefix: str = "test-monitor") -> None:
        self._loops: list[asyncio.AbstractEventLoop] = []
        self._loops_lock = threading.Lock()
        super().__init__(max_workers=1, thread_name_prefix=thread_name_prefix, initializer=self._own_loop)

    def _own_loop(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        with self._loops_lock:
            self._loops.append(loop)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        super().shutdown(wait=wait, cancel_futures=cancel_futures)
        if not wait:
            return
        with self._loops_lock:
            loops, self._loops = self._loops, []
        for loop in loops:
            loop.close()


def fresh_loop() -> asyncio.AbstractEventLoop:
    """A new current event loop whose executor (where the mock monitor serves registrations) gives its
    worker a loop of its own; without one, pulumi's MockMonitor makes a loop it never closes."""
    loop = asyncio.new_event_loop()
    loop.set_default_executor(MonitorExecutor("test-monitor"))
    asyncio.set_event_loop(loop)
    return loop


def close_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Shut the executor down (closing its worker's loop), then close `loop` and unset it."""
    loop.run_until_complete(loop.shutdown_default_executor())
    loop.close()
    asyncio.set_event_loop(None)


@pytest.fixture
def run_pulumi() -> Iterator[Runner]:
    """Run ``build`` under fresh mocks and a fresh event loop, draining every registration."""
    loop = fresh_loop()
    mocks = RecordingMocks()
    pulumi.runtime.set_mocks(mocks, project="gpufleet", stack="test", preview=False)
    pulumi.runtime.set_config("aws:region", REGION)

    def run(build: Callable[[], Any]) -> RecordingMocks:
        build()
        loop.run_until_complete(pulumi.runtime.stack.wait_for_rpcs())
        return mocks

    yield run
    # Outputs created outside ``run`` are tracked globally; leaving them would hang the next test's drain.
    loop.run_until_complete(pulumi.runtime.stack.wait_for_rpcs())
    close_loop(loop)


def document(inputs: dict[str, Any], key: str = "policy") -> dict[str, Any]:
    value = inputs[key]
    parsed: dict[str, Any] = json.loads(value) if isinstance(value, str) else value
    return parsed


def statements_by_sid(inputs: dict[str, Any], key: str = "policy") -> dict[str, dict[str, Any]]:
    return {s["Sid"]: s for s in document(inputs, key)["Statement"]}


class OptionsRecorder:
    """A transformation that keeps each child's resource options, so tests can read ``depends_on``
    and ``retain_on_delete`` (the mocks see only inputs). Pass ``recorder.opts()`` to the component."""

    def __init__(self) -> None:
        self.by_name: dict[str, pulumi.ResourceOptions] = {}
        self._names: dict[int, str] = {}

    def __call__(self, args: pulumi.ResourceTransformationArgs) -> None:
        self.by_name[args.name] = args.opts
        self._names[id(args.resource)] = args.name

    def opts(self) -> pulumi.ResourceOptions:
        return pulumi.ResourceOptions(transformations=[self])

    def depends_on(self, name: str) -> list[str]:
        found = self.by_name[name].depends_on or []
        items = found if isinstance(found, list) else [found]
        return [self._names.get(id(item), "?") for item in items]
