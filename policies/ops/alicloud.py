"""Alibaba Cloud's facts and checks for the operability rules (GF-OPS-*).

GF-OPS-001, who publishes the metric a scaling alarm watches. ESS alarms (`alicloud:ess/alarm:Alarm`):
`metricType` `system` metrics come from CloudMonitor; the ones read from the CloudMonitor agent inside
the instance (names ending in `Agent`, such as `GpuUtilizationAgent`, and `MemoryUtilization`,
`LoadAverage`) need the agent, which CloudMonitor installs on new instances of Alibaba's public images;
a custom image (`m-...`) may not have it, so unless its user data installs the agent the alarm could
not be judged. A `alicloud:cloudmonitor/serviceAgentConfig:ServiceAgentConfig` with
`enableInstallAgentNewEcs: false` turns that automatic install off: then an instance of a public image
whose user data does not install the agent publishes none of its metrics, a finding naming the config.
`custom` metrics are uploaded by a program: a RAM policy of the stack must allow
`cms:PutCustomMetric`. The burst order's gate (`GatedBacklog`, published by the on-prem exporter) needs
more: a RAM role of the stack with an attached policy that allows it (the exporter's publisher
role), since a policy attached to nothing publishes nothing. Without it the gated alarm never fires;
the message says whether a raw MNS queue alarm on the same scaling rule still bursts the pool.

GF-OPS-003 (ESS scaling rules' cooldowns) and GF-OPS-005 (KMS keys of origin EXTERNAL and their users)
read their Alibaba Cloud facts from here too.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from gpufleet.components.keys.material import MATERIAL_TAG
from gpufleet.policies.context import tags_of
from gpufleet.policies.cost.pools import ResourceIndex, ResourceView
from gpufleet.policies.cost.pools.tokens.alicloud import (
    ALI_ESS_ALARM,
    ALI_SCALING_CONFIGURATION,
    ALI_SCALING_GROUP,
    ALI_SCALING_RULE,
)
from gpufleet.policies.documents import DocumentError, parse_document
from gpufleet.policies.ops._common import DEFAULT_COOLDOWN_S, known_str, number, quoted, unknown, value_at
from gpufleet.policies.ops._cooldown import (
    fired_step_problem,
    policy_kind,
    sets_a_size,
    short_cooldown,
)
from gpufleet.policies.props import as_list, get_ref, is_unknown, truthy
from gpufleet.policies.rule import CannotTell

# --- GF-OPS-001: scaling metrics --------------------------------------------------------------------------

RAM_POLICY = "alicloud:ram/policy:Policy"
RAM_ROLE = "alicloud:ram/role:Role"
ALI_CMS_ALARM_TYPE = "alicloud:cms/alarm:Alarm"
RAM_ROLE_ATTACHMENT = "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment"
PUT_CUSTOM_METRIC = "cms:PutCustomMetric"
GATED_METRIC = "GatedBacklog"  # components.pools.burst_custom.GATED_METRIC (policies import no components)
ALI_LAUNCH_TEMPLATE = "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate"
ALI_AGENT_CONFIG = "alicloud:cloudmonitor/serviceAgentConfig:ServiceAgentConfig"
ALI_AGENT_METRICS = frozenset({"MemoryUtilization", "LoadAverage"})
_AGENT_INSTALL = re.compile(r"cloudmonitor|argusagent|cms_go_agent|cloud-monitor|cms-agent-", re.IGNORECASE)
MNS_PROJECT = "acs_mns_new"
MNS_QUEUES = ("alicloud:message/serviceQueue:ServiceQueue", "alicloud:mns/queue:Queue")


def alicloud_problems(index: ResourceIndex, alarm: ResourceView, listed: list[str]) -> list[str]:
    label = f"ESS alarm '{alarm.name}'"
    metric = str(value_at(alarm, "metricName") or "CpuUtilization")
    metric_type = str(value_at(alarm, "metricType") or "system").lower()
    if metric in listed:
        return []
    if metric_type == "custom":
        if _ram_allows(index, "cms:PutCustomMetric"):
            return []
        return [
            f"{label} scales on custom metric {metric}, which nothing in the stack may upload (no RAM "
            "policy allows cms:PutCustomMetric): the alarm never fires; grant the uploader "
            f"cms:PutCustomMetric, or list '{metric}' in published_namespaces if it is published outside"
        ]
    if not (metric.endswith("Agent") or metric in ALI_AGENT_METRICS):
        return []
    return _agent_on_images(index, label, metric, index.refs(alarm, "scalingGroupId", (ALI_SCALING_GROUP,)))


def _agent_on_images(index: ResourceIndex, label: str, metric: str, groups: list[ResourceView]) -> list[str]:
    """The CloudMonitor agent reads `metric` inside the instances: every image the groups launch must
    ship it (CloudMonitor installs it on public images unless a ServiceAgentConfig turns that off) or
    install it in user data; otherwise it cannot be told."""
    sources = [
        config
        for config in index.of_type(ALI_SCALING_CONFIGURATION)
        if {g.urn for g in index.refs(config, "scalingGroupId", (ALI_SCALING_GROUP,))}
        & {g.urn for g in groups}
    ]
    for group in groups:
        sources += index.refs(group, "launchTemplateId", (ALI_LAUNCH_TEMPLATE,))
    if not sources:
        raise CannotTell(
            f"{label} scales on {metric}, read by the CloudMonitor agent, but the image of its group is "
            "not in the stack",
            "scalingGroupId",
        )
    off = [
        config.name
        for config in index.of_type(ALI_AGENT_CONFIG)
        if (enabled := value_at(config, "enableInstallAgentNewEcs")) is not None and not truthy(enabled)
    ]
    bare = [source for source in sources if not _AGENT_INSTALL.search(_user_data(source))]
    public = [s.name for s in bare if not str(value_at(s, "imageId") or "").startswith("m-")]
    if off and public:
        return [
            f"{label} scales on {metric}, read by the CloudMonitor agent, but CloudMonitor agent config "
            f"{quoted(off)} turns off installing the agent on new ECS instances (enableInstallAgentNewEcs "
            f"false) and the user data of {quoted(public)} does not install it: {metric} is never "
            "published and the alarm never fires; turn the automatic install on or install the agent in "
            "user data"
        ]
    for source in sources:
        image = value_at(source, "imageId")
        user_data = _user_data(source)
        if isinstance(image, str) and image.startswith("m-") and not _AGENT_INSTALL.search(user_data):
            raise CannotTell(
                f"{label} scales on {metric}, read by the CloudMonitor agent; whether custom image "
                f"'{image}' of '{source.name}' runs the agent cannot be told from the stack: install it in "
                f"user data or list '{metric}' in published_namespaces",
                "imageId",
            )
    return []


def _user_data(source: ResourceView) -> str:
    """The source's user data as text: ECS takes it base64-encoded (launch templates, scaling
    configurations), and some programs pass it plain."""
    for prop in ("userData", "userdata"):
        text = known_str(get_ref(source.props, prop))
        if text is None:
            continue
        try:
            return base64.b64decode(text, validate=True).decode("utf-8", errors="replace")
        except (binascii.Error, ValueError):
            return text
    return ""


_ESS_TARGET = re.compile(r"^acs:ess:[^:]*:[^:]*:scalingGroupId/([^:]+):scalingRuleId/")
# A scaling rule's own `ari` (`ari:acs:ess:<region>:<uid>:scalingrule/<id>`), which ESS alarm tasks take.
# CloudMonitor wants the ARN above, but a program that names the rule by its ari still means to scale
# its group: the rule, and through it the group, is found the same way.
_ESS_RULE_ARI = re.compile(r"^ari:acs:ess:[^:]*:[^:]*:scalingrule/(.+)$")


def cms_groups(index: ResourceIndex, alarm: ResourceView) -> list[ResourceView] | None:
    """The scaling groups a CloudMonitor alarm rule scales through its `targets` (None: it scales none)."""
    groups: dict[str, ResourceView] = {}
    scales = False
    for target in as_list(get_ref(alarm.props, "targets")):
        arn = get_ref(target, "arn") if isinstance(target, Mapping) else None
        if is_unknown(arn):
            scales = scales or bool(index.refs(alarm, "targets", (ALI_SCALING_GROUP, ALI_SCALING_RULE)))
            continue
        match = _ESS_TARGET.match(arn) if isinstance(arn, str) else None
        if match:
            scales = True
            found = index.refs(alarm, "targets", (ALI_SCALING_GROUP,), value=match.group(1))
            groups.update((g.urn, g) for g in found)
        ari = _ESS_RULE_ARI.match(arn) if isinstance(arn, str) else None
        if ari:
            scales = True
            for rule in index.refs(alarm, "targets", (ALI_SCALING_RULE,), value=ari.group(1)):
                groups.update((g.urn, g) for g in index.refs(rule, "scalingGroupId", (ALI_SCALING_GROUP,)))
    return list(groups.values()) if scales else None


def cms_problems(index: ResourceIndex, alarm: ResourceView, listed: list[str]) -> list[str]:
    """A CloudMonitor alarm rule (`alicloud:cms/alarm:Alarm`) whose target is a scaling rule."""
    label = f"CloudMonitor alarm '{alarm.name}'"
    project = str(value_at(alarm, "project") or "")
    metric = str(value_at(alarm, "metric") or "")
    if project in listed or metric in listed:
        return []
    if project.startswith("acs_customMetric") and metric == GATED_METRIC:
        return [] if _role_allows(index, PUT_CUSTOM_METRIC) else [_gate_unpublished(index, alarm, label)]
    if project.startswith("acs_customMetric"):
        if _ram_allows(index, "cms:PutCustomMetric"):
            return []
        return [
            f"{label} scales on custom metric {metric}, which nothing in the stack may upload (no RAM "
            "policy allows cms:PutCustomMetric): the alarm never fires; grant the uploader "
            f"cms:PutCustomMetric, or list '{metric}' in published_namespaces if it is published outside"
        ]
    if project == MNS_PROJECT:
        return _mns_queue(index, alarm, label, metric)
    if project != "acs_ecs_dashboard":
        raise CannotTell(
            f"{label} scales on {project} {metric}; who publishes {project} is not known to the pack: list "
            f"'{project}' in published_namespaces if something publishes it",
            "project",
        )
    # The agent's metrics are lower_snake_case (cpu_total, gpu_gpu_usedutilization); the hypervisor's
    # are CamelCase (CPUUtilization, IntranetInRate).
    if metric != metric.lower():
        return []
    groups = cms_groups(index, alarm) or []
    return _agent_on_images(index, label, metric, groups)


def _dimensions(alarm: ResourceView) -> dict[str, Any]:
    """The alarm's dimensions: `metricDimensions` (a JSON list of maps) or the older `dimensions` map."""
    found: dict[str, Any] = {}
    raw = get_ref(alarm.props, "metricDimensions")
    if is_unknown(raw):
        raise unknown(raw, "metricDimensions")
    if isinstance(raw, str) and raw:
        try:
            loaded = json.loads(raw)
        except json.JSONDecodeError:
            loaded = []
        for item in loaded if isinstance(loaded, list) else [loaded]:
            if isinstance(item, Mapping):
                found.update(item)
    older = get_ref(alarm.props, "dimensions")
    if isinstance(older, Mapping):
        found.update(older)
    return found


def _mns_queue(index: ResourceIndex, alarm: ResourceView, label: str, metric: str) -> list[str]:
    """MNS publishes `acs_mns_new` metrics for a queue that exists: the one the `queue` dimension names."""
    queue = _dimensions(alarm).get("queue")
    queues = index.of_type(*MNS_QUEUES)
    if queue is None:
        return [] if queues else [f"{label} scales on {MNS_PROJECT} {metric} but the stack has no MNS queue"]
    if is_unknown(queue):
        # A queue name computed from a queue of the stack (unknown at preview) is that queue's.
        if {q.urn for q in queues} & set(alarm.dependency_urns.get("metricDimensions", ())):
            return []
        raise unknown(queue, "metricDimensions.queue")
    if any(queue in (get_ref(q.props, "queueName"), get_ref(q.props, "name")) for q in queues):
        return []
    return [
        f"{label} scales on {MNS_PROJECT} {metric} of queue '{queue}', which the stack does not create: MNS "
        f"publishes metrics only for a queue that exists; create the queue in the stack or list "
        f"'{MNS_PROJECT}' in published_namespaces"
    ]


def _policy_allows(policy: ResourceView, action: str) -> bool:
    for prop in ("policyDocument", "document"):
        try:
            document = parse_document(get_ref(policy.props, prop), prop, cloud="alicloud")
        except DocumentError:
            continue
        if document and any(s.is_allow and s.grants(action) for s in document.statements):
            return True
    return False


def _ram_allows(index: ResourceIndex, action: str) -> bool:
    return any(_policy_allows(policy, action) for policy in index.of_type(RAM_POLICY))


def _role_allows(index: ResourceIndex, action: str) -> bool:
    """A RAM role of the stack holds, through a `ram.RolePolicyAttachment`, a policy allowing `action`."""
    for attachment in index.of_type(RAM_ROLE_ATTACHMENT):
        if not index.refs(attachment, "roleName", (RAM_ROLE,)):
            continue
        if any(_policy_allows(p, action) for p in index.refs(attachment, "policyName", (RAM_POLICY,))):
            return True
    return False


def _targets(alarm: ResourceView) -> tuple[set[str], set[str]]:
    """The scaling-rule ARNs an alarm rule targets (those known) and the resources they come from."""
    arns = {
        arn
        for target in as_list(get_ref(alarm.props, "targets"))
        if isinstance(target, Mapping)
        for arn in [get_ref(target, "arn")]
        if isinstance(arn, str)
        and not is_unknown(arn)
        and (_ESS_TARGET.match(arn) or _ESS_RULE_ARI.match(arn))
    }
    return arns, set(alarm.dependency_urns.get("targets", ()))


def _gate_unpublished(index: ResourceIndex, alarm: ResourceView, label: str) -> str:
    """The gated alarm never fires; say exactly what still scales the pool out on its queue."""
    arns, sources = _targets(alarm)
    fallbacks = []
    for other in index.of_type(ALI_CMS_ALARM_TYPE):
        if other.urn == alarm.urn or get_ref(other.props, "project") != MNS_PROJECT:
            continue
        other_arns, other_sources = _targets(other)
        if arns & other_arns or sources & other_sources:
            period = get_ref(other.props, "period")
            # A bounded backlog band counts its periods in its composite expression.
            times = get_ref(other.props, "escalationsCritical.times")
            if times is None:
                times = get_ref(other.props, "compositeExpression.times")
            window = (
                f" after {int(period) * int(times)}s of backlog"
                if isinstance(period, (int, float)) and isinstance(times, (int, float))
                else ""
            )
            fallbacks.append(f"'{other.name}'{window}")
    still = (
        f"the pool still scales out on its raw queue through {', '.join(sorted(fallbacks))}, regardless of "
        "the sites ahead"
        if fallbacks
        else "no other alarm scales the pool out on its queue, so a backlog never bursts it"
    )
    return (
        f"{label} scales out on the burst gate {GATED_METRIC}, which no RAM role of the stack may publish "
        f"(no role has an attached policy allowing {PUT_CUSTOM_METRIC}): the alarm never fires and the "
        f"burst order is not enforced; {still}. Build the exporter's publisher role "
        f"(burst.publishers.alicloud), or list '{GATED_METRIC}' in published_namespaces if it is published "
        "outside the stack"
    )


# --- GF-OPS-003: scale-in cooldown ------------------------------------------------------------------------

COOLDOWN_TYPES = (ALI_SCALING_RULE,)
# (alarm type, policy type): the alarms whose actions fire a scaling rule.
COOLDOWN_FIRES = (ALI_ESS_ALARM, ALI_SCALING_RULE)
COOLDOWN_EXAMPLE = "Alibaba ess.ScalingRule scaling_rule_type='SimpleScalingRule' with cooldown=300"


def cooldown_problem(
    index: ResourceIndex, view: ResourceView, fired: Mapping[str, list[str]], minimum: int
) -> str | None:
    """An ESS step rule fired by an alarm that scales in, or a simple rule with a short cooldown."""
    rule_type = policy_kind(view, "scalingRuleType", "SimpleScalingRule")
    if rule_type == "StepScalingRule":
        fix = f"scale in with a SimpleScalingRule whose cooldown is at least {minimum} s, or target tracking"
        return fired_step_problem(view, fired, "ESS step scaling rule", fix)
    if rule_type != "SimpleScalingRule":
        return None
    adjustment = number(view, "adjustmentValue")
    if adjustment is None or adjustment >= 0 or sets_a_size(view, "adjustmentType"):
        return None
    cooldown = number(view, "cooldown")
    source = "a cooldown"
    if not cooldown:  # unset reads back as 0: the group's default cooldown applies
        groups = index.refs(view, "scalingGroupId", (ALI_SCALING_GROUP,))
        defaults = [number(group, "defaultCooldown") for group in groups]
        cooldown = (
            min((d if d is not None else DEFAULT_COOLDOWN_S) for d in defaults)
            if groups
            else DEFAULT_COOLDOWN_S
        )
        source = f"the default cooldown of group {quoted(g.name for g in groups)}" if groups else source
    if cooldown >= minimum:
        return None
    return short_cooldown("ESS simple scaling rule", view, cooldown, source, minimum)


# --- GF-OPS-001: what the rule judges ---------------------------------------------------------------------

METRIC_TYPES = (ALI_ESS_ALARM, ALI_CMS_ALARM_TYPE)
METRIC_REMEDIATION = "Alibaba: keep the CloudMonitor agent on the image;"


def metric_alarms(index: ResourceIndex) -> list[ResourceView]:
    """ESS alarms (each fires scaling rules) and CloudMonitor alarm rules that target a scaling rule."""
    return index.of_type(ALI_ESS_ALARM) + [
        a for a in index.of_type(ALI_CMS_ALARM_TYPE) if cms_groups(index, a) is not None
    ]


def metric_judge(
    index: ResourceIndex, alarms: list[ResourceView], listed: list[str]
) -> Callable[[ResourceView], list[str]]:
    """The problems of one of `alarms`."""

    def problems(alarm: ResourceView) -> list[str]:
        if alarm.resource_type == ALI_ESS_ALARM:
            return alicloud_problems(index, alarm, listed)
        return cms_problems(index, alarm, listed)

    return problems


# --- GF-OPS-005: keys pending import ----------------------------------------------------------------------

ALI_KMS_KEY = "alicloud:kms/key:Key"
# Keys of origin EXTERNAL: the SDK has no resource that imports material.
PENDING_KEY_TYPES = (ALI_KMS_KEY,)
# Alias type -> the input naming its key.
KEY_ALIASES = {"alicloud:kms/alias:Alias": "keyId"}
IMPORT_COMMAND = "Alibaba ImportKeyMaterial"
# What uses a key: type token -> (what it is, the inputs naming the key).
KEY_USERS: Mapping[str, tuple[str, tuple[str, ...]]] = {
    "alicloud:oss/bucket:Bucket": ("OSS bucket", ("serverSideEncryptionRule",)),
    "alicloud:oss/bucketServerSideEncryption:BucketServerSideEncryption": (
        "OSS bucket encryption",
        ("kmsMasterKeyId",),
    ),
    "alicloud:ecs/ecsDisk:EcsDisk": ("ECS disk", ("kmsKeyId",)),
    "alicloud:ecs/disk:Disk": ("ECS disk", ("kmsKeyId",)),
    "alicloud:ecs/instance:Instance": ("ECS instance", ("systemDiskKmsKeyId", "dataDisks")),
    "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate": ("ECS launch template", ("systemDisk", "dataDisks")),
    "alicloud:ess/scalingConfiguration:ScalingConfiguration": (
        "ESS scaling configuration",
        ("systemDiskKmsKeyId", "dataDisks"),
    ),
    "alicloud:log/store:Store": ("log store", ("encryptConf",)),
}


def pending_reason(view: ResourceView) -> str | None:
    """Why a KMS key is pending import: origin EXTERNAL, unless tagged as imported."""
    origin = get_ref(view.props, "origin")
    if is_unknown(origin):
        raise unknown(origin, "origin")
    if isinstance(origin, str) and origin.upper() == "EXTERNAL":
        if tags_of(view.resource_type, view.props).get(MATERIAL_TAG) == "imported":
            return None
        return "origin EXTERNAL: its material is imported outside Pulumi"
    return None
