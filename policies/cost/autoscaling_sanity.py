"""GF-COST-006: burst-pool autoscaling is present and sane.

For every scalable GPU pool whose size can change (AWS auto scaling groups and EKS node groups,
Alibaba ESS scaling groups and autoscaled ACK node pools, Tencent AS scaling groups and TKE node pools
with min below max):
- a finite maximum size;
- at least one scaling policy or alarm acting on it ("autoscaling is absent" otherwise); EKS node
  groups and ACK/TKE node pools are exempt from this one: they are scaled from inside the cluster
  (cluster-autoscaler, Karpenter, the ACK/TKE node autoscalers), which the stack's cloud resources do
  not show. AWS Batch compute environments are not judged here: Batch sizes them itself from the job
  queue, within a `maxVcpus` the API requires;
- on the same metric, every scale-out threshold above every scale-in threshold;
- cooldown at least `min_cooldown_s`: a simple policy's own cooldown, else the group's default
  cooldown (AWS/Alibaba/Tencent default 300 s). The finding names the scaling policy (or group) whose
  setting must change, and the alarms that fire it. An AWS step policy takes no cooldown at all (the
  group's default does not apply to it) and AWS re-runs it every minute while its alarm holds: its
  estimated warm-up is not a cooldown. It paces scale-out (instances warming up count as capacity
  already added), so a step scale-out needs a warm-up of at least `min_cooldown_s` (its own, else
  the group's defaultInstanceWarmup, else its defaultCooldown). A step policy that an alarm fires to
  scale in removes capacity once a minute: that is GF-OPS-003's verdict (scale-in respects the
  cooldown), not repeated here;
- the shortest scale-in window (period x evaluation periods of its alarm) no shorter than the longest
  scale-out window;
- an AWS group whose minimum is 0 does not scale out on a queue alarm whose threshold is 0
  (`AWS/SQS ApproximateNumberOfMessagesVisible` above 0): one message would start a GPU instance.
  Scale on the backlog per instance instead (target tracking on visible messages / instances in
  service, held at the acceptable backlog per instance), which wakes the pool once that many wait.

One scaler per group: a group tagged `gpufleet:scaler` = `cluster-autoscaler` (its nodes are members of a
Kubernetes cluster whose cluster-autoscaler sizes it) must have no scaling policy or alarm acting on it
(they would fight the autoscaler over its desired capacity), and is not "absent" without them. A
group tagged `gpufleet:scaler` = `alarms`, or not tagged, is judged as above.

Kubernetes (kept modest): HorizontalPodAutoscalers (`autoscaling/v2`) and KEDA ScaledObjects whose
target is a Deployment or StatefulSet of the stack requesting `nvidia.com/gpu` must not scale down
faster than `min_cooldown_s`: `spec.behavior.scaleDown.stabilizationWindowSeconds` (default 300),
KEDA `spec.cooldownPeriod` (default 300) and its HPA behaviour likewise. GPU workloads without an
autoscaler are not judged (fixed on-premises capacity is normal).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.proxy import UnknownValueError

from gpufleet.components.clouds import KUBERNETES, part_of
from gpufleet.policies.cost._clouds import PARTS, sole
from gpufleet.policies.cost._common import describe, fmt, stack_pools
from gpufleet.policies.cost.pools import SCALABLE_TYPES, Pool, ResourceIndex, ScalingSignal
from gpufleet.policies.k8s.workloads import namespace_of
from gpufleet.policies.props import as_int, as_list, get, get_text, is_unknown
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges

K8S_HPA_TYPES = (
    "kubernetes:autoscaling/v2:HorizontalPodAutoscaler",
    "kubernetes:autoscaling/v2beta2:HorizontalPodAutoscaler",
)
K8S_SCALED_OBJECT = "kubernetes:keda.sh/v1alpha1:ScaledObject"
K8S_WORKLOADS = ("kubernetes:apps/v1:Deployment", "kubernetes:apps/v1:StatefulSet")
DEFAULT_COOLDOWN_S = 300
SCALER_TAG = "gpufleet:scaler"
CLUSTER_AUTOSCALER = "cluster-autoscaler"

RULE = Rule(
    id="GF-COST-006",
    name="gpu-pool-autoscaling-sane",
    description=(
        "Burst-pool autoscaling is present and sane: finite max, scale-out threshold above scale-in "
        "threshold, cooldown of at least 300 s, scale-in window no shorter than scale-out window."
    ),
    clouds=(*PARTS, KUBERNETES),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.MEDIUM,
    remediation=(
        "Give the pool a maxSize and scaling policies: scale out above 70% GPU utilisation for 5 "
        "minutes, scale in below 30% for 30 minutes, cooldown 300 s "
        f"({'; '.join(p.SCALING_SETTINGS for p in PARTS.values())}). "
        "Kubernetes: spec.behavior.scaleDown.stabilizationWindowSeconds >= 300 on the HPA, "
        "spec.cooldownPeriod >= 300 on a KEDA ScaledObject."
    ),
    url=sole(PARTS, "SCALING_URL"),
    config={"min_cooldown_s": {"type": "integer", "default": DEFAULT_COOLDOWN_S}},
)


def _cooldown(signal: ScalingSignal, pool: Pool) -> int | None:
    if signal.kind in ("simple", "alarm"):
        if signal.cooldown_s is not None:
            return signal.cooldown_s
        return pool.default_cooldown_s if pool.default_cooldown_s is not None else DEFAULT_COOLDOWN_S
    if signal.kind == "step":
        if not signal.takes_cooldown:
            # Warm-up paces scale-out only; a step scale-in is judged by _step_scale_in_problems.
            return _warmup(signal, pool)[0] if signal.direction == "out" else None
        return signal.cooldown_s
    return None


def _warmup(signal: ScalingSignal, pool: Pool) -> tuple[int, str | None]:
    """A step policy's warm-up and the group setting it comes from (None: its own). AWS: the policy's
    estimatedInstanceWarmup, else the group's defaultInstanceWarmup, else its defaultCooldown."""
    if signal.warmup_s is not None:
        return signal.warmup_s, None
    if pool.default_instance_warmup_s is not None:
        return pool.default_instance_warmup_s, "defaultInstanceWarmup"
    if pool.default_cooldown_s is not None:
        return pool.default_cooldown_s, "defaultCooldown"
    return DEFAULT_COOLDOWN_S, "defaultCooldown"


def _cooldown_problems(pool: Pool, min_cooldown: int) -> list[str]:
    """One problem per scaling policy whose cooldown (or warm-up) is too short, naming that policy:
    alarms only fire it, so each alarm is mentioned but never blamed."""
    short: dict[tuple[str, str, bool, int], list[str]] = {}
    for signal in pool.scaling:
        cooldown = _cooldown(signal, pool)
        if cooldown is None or cooldown >= min_cooldown:
            continue
        inherited = signal.kind in ("simple", "alarm") and signal.cooldown_s is None
        if signal.kind == "step" and not signal.takes_cooldown:
            source = _warmup(signal, pool)[1]
            inherited = source is not None
            setting = f"{signal.cooldown_setting}:{source}" if source else signal.cooldown_setting
        else:
            setting = signal.cooldown_setting
        # An alarm that fires no policy of the stack scales the group directly: it is the culprit.
        if signal.policy is None and signal.kind == "alarm":
            culprit = f"alarm '{signal.name}'"
        else:
            culprit = f"scaling policy '{signal.policy or signal.name}'"
        alarms = short.setdefault((culprit, setting, inherited, cooldown), [])
        if signal.policy is not None and signal.name not in alarms:
            alarms.append(signal.name)
    name = describe(pool)
    problems = []
    for (culprit, setting, inherited, cooldown), alarms in short.items():
        fired = f" (fired by {_alarms(alarms)})" if alarms else ""
        if inherited and ":" in setting:
            own, source = setting.split(":")
            problems.append(
                f"{name}'s {culprit}{fired} has no {own} of its own, so the group's {source} of "
                f"{cooldown} s paces its scale-out; set its {own} or the group's defaultInstanceWarmup to "
                f"at least {min_cooldown} s"
            )
        elif inherited:
            problems.append(
                f"{name}'s {culprit}{fired} has no cooldown of its own, so the group's default "
                f"cooldown of {cooldown} s applies; set its cooldown or the group's defaultCooldown to "
                f"at least {min_cooldown} s"
            )
        else:
            article = "an" if setting[0] in "aeiou" else "a"
            problems.append(
                f"{name}'s {culprit}{fired} has {article} {setting} of {cooldown} s; set it to at least "
                f"{min_cooldown} s"
            )
    return problems


def _alarms(names: list[str]) -> str:
    quoted = [f"'{n}'" for n in names]
    if len(quoted) == 1:
        return f"alarm {quoted[0]}"
    return f"alarms {', '.join(quoted[:-1])} and {quoted[-1]}"


def pool_problems(pool: Pool, min_cooldown: int) -> list[str]:
    name = describe(pool)
    max_size = pool.known("max_size")
    min_size = pool.known("min_size")
    if max_size is None:
        return [f"{name} has no maximum size; set a finite maxSize"]
    if min_size is not None and min_size == max_size:
        return []
    if not pool.scaling:
        if pool.cluster_scaled:
            return []
        return [
            f"{name} can grow to {max_size} but autoscaling is absent: no scaling policy or alarm acts on it"
        ]
    for signal in pool.scaling:
        signal.require_known()
    problems = []
    outs: dict[str | None, list[float]] = defaultdict(list)
    ins: dict[str | None, list[float]] = defaultdict(list)
    for signal in pool.scaling:
        if signal.threshold is None or signal.kind in ("target", "predictive"):
            continue
        if signal.direction == "out":
            outs[signal.metric].append(signal.threshold)
        elif signal.direction == "in":
            ins[signal.metric].append(signal.threshold)
    for metric in sorted(set(outs) & set(ins), key=str):
        if min(outs[metric]) <= max(ins[metric]):
            problems.append(
                f"{name} scales out at {fmt(min(outs[metric]))} but in at {fmt(max(ins[metric]))} on "
                f"{metric or 'the same metric'}; the scale-out threshold must be above the scale-in one"
            )
    problems.extend(_cooldown_problems(pool, min_cooldown))
    problems.extend(_single_message_wake(pool))
    out_windows = [s.window_s for s in pool.scaling if s.direction == "out" and s.window_s is not None]
    in_windows = [s.window_s for s in pool.scaling if s.direction == "in" and s.window_s is not None]
    if out_windows and in_windows and min(in_windows) < max(out_windows):
        problems.append(
            f"{name} scales in after {min(in_windows)} s but out after {max(out_windows)} s; the scale-in "
            "window must be no shorter than the scale-out window"
        )
    return problems


# Queue-depth metrics an AWS scale-out alarm may watch (SQS publishes them per queue).
QUEUE_DEPTH_METRICS = ("ApproximateNumberOfMessagesVisible",)


def _single_message_wake(pool: Pool) -> list[str]:
    """A pool at zero woken by any one waiting message: a queue alarm above 0 that scales it out."""
    if pool.known("min_size") != 0:
        return []
    wakers = sorted(
        {
            signal.name
            for signal in pool.scaling
            if signal.direction == "out"
            and signal.kind in ("step", "simple", "alarm")
            and signal.metric in QUEUE_DEPTH_METRICS
            and signal.threshold is not None
            and signal.threshold <= 0
        }
    )
    if not wakers:
        return []
    return [
        f"{describe(pool)} has a minimum of 0 and scales out when {_alarms(wakers)} sees any waiting "
        "message (threshold 0): one message starts a GPU instance, and each further instance waits a "
        "cooldown; scale on the backlog per instance instead (target tracking on "
        "ApproximateNumberOfMessagesVisible / GroupInServiceInstances held at the acceptable backlog "
        "per instance)"
    ]


def _requests_gpu(workload: Any) -> bool:
    for container in as_list(get(workload.props, "spec.template.spec.containers")):
        for section in ("limits", "requests"):
            resources = get(container, f"resources.{section}")
            if isinstance(resources, Mapping) and "nvidia.com/gpu" in resources:
                return True
    return False


def _may_request_gpu(workload: Any) -> bool:
    """False only for a workload known to request no GPU: one whose containers are unknown may."""
    try:
        return _requests_gpu(workload)
    except UnknownValueError:
        return True


def _k8s_problems(args: StackValidationArgs, min_cooldown: int, report: ReportViolation) -> None:
    workloads: dict[tuple[str, str, str | None], Any] = {}
    scalers = []
    for resource in args.resources:
        # Autoscalers of CPU workloads are not judged, so their names and namespaces (often unknown
        # at preview: a Namespace's generated name) are never read.
        if resource.resource_type in K8S_WORKLOADS and _may_request_gpu(resource):
            kind = resource.resource_type.rsplit(":", 1)[-1]

            def collect(resource: Any = resource, kind: str = kind) -> None:
                name = get_text(resource.props, "metadata.name") or resource.name
                namespace = namespace_of(resource.props)
                if is_unknown(namespace):  # an autoscaler may target it: it cannot be judged
                    raise UnknownValueError(namespace, ["metadata", "namespace"])
                workloads[(kind, name, namespace)] = resource

            judge(resource.urn, collect)
        elif resource.resource_type in (*K8S_HPA_TYPES, K8S_SCALED_OBJECT):
            scalers.append(resource)
    if not workloads:
        return
    for scaler in scalers:

        def check(scaler: Any = scaler) -> None:
            keda = scaler.resource_type == K8S_SCALED_OBJECT
            ref = "spec.scaleTargetRef"
            kind = get_text(scaler.props, f"{ref}.kind") or "Deployment"
            target_name = get_text(scaler.props, f"{ref}.name")
            target = workloads.get((kind, str(target_name), namespace_of(scaler.props)))
            if target is None or not _requests_gpu(target):
                return
            label = "KEDA ScaledObject" if keda else "HorizontalPodAutoscaler"
            name = f"{label} '{scaler.name}'"
            behavior = "spec.advanced.horizontalPodAutoscalerConfig.behavior" if keda else "spec.behavior"
            window = as_int(get(scaler.props, f"{behavior}.scaleDown.stabilizationWindowSeconds"))
            if window is not None and window < min_cooldown:
                report(
                    f"{name} scales GPU workload '{target_name}' down after a {window} s "
                    f"stabilization window; use at least {min_cooldown} s",
                    scaler.urn,
                )
            if keda:
                cooldown = as_int(get(scaler.props, "spec.cooldownPeriod"))
                if cooldown is not None and cooldown < min_cooldown:
                    report(
                        f"{name} has a cooldownPeriod of {cooldown} s for GPU workload "
                        f"'{target_name}'; use at least {min_cooldown} s",
                        scaler.urn,
                    )

        judge(scaler.urn, check)


def _undrained_scale_in(index: ResourceIndex, pool: Pool) -> list[str]:
    """A queue-fed group that may scale in without draining its instances first ends running jobs:
    the pool's cloud judges it (AWS: a termination lifecycle hook), a cloud that cannot tell, never."""
    undrained: Callable[[ResourceIndex, Pool, tuple[str, ...]], list[str]] | None = getattr(
        part_of(PARTS, pool.resource_type), "undrained_scale_in", None
    )
    return undrained(index, pool, QUEUE_DEPTH_METRICS) if undrained is not None else []


def _names(names: list[str]) -> str:
    return ", ".join(f"'{n}'" for n in names)


def scaler_tag(group: Any) -> str | None:
    """The group's ``gpufleet:scaler`` tag: ``tags`` as a map (Alibaba, Tencent) or as AWS's list of
    ``{key, value, propagateAtLaunch}``."""
    tags = get(group.props, "tags")
    if is_unknown(tags):
        raise UnknownValueError(str(tags), ["tags"])
    if isinstance(tags, Mapping):
        value = tags.get(SCALER_TAG)
        return value if isinstance(value, str) else None
    for tag in as_list(tags):
        if isinstance(tag, Mapping) and get_text(tag, "key") == SCALER_TAG:
            return get_text(tag, "value")
    return None


def one_scaler_problems(pool: Pool) -> list[str]:
    """A group cluster-autoscaler sizes has no scaling policy or alarm of its own."""
    if not pool.scaling:
        return []
    acting = sorted({s.policy or s.name for s in pool.scaling})
    return [
        f"{describe(pool)} is tagged {SCALER_TAG}={CLUSTER_AUTOSCALER}, but its scaling policies or alarms "
        f"({_names(acting)}) act on it too: a group has one scaler; remove them (cluster-autoscaler sizes "
        f"it) or tag it {SCALER_TAG}=alarms"
    ]


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    min_cooldown = int(RULE.settings(args)["min_cooldown_s"])
    pools, index = stack_pools(args)
    for pool in pools:
        if not pool.scalable:
            continue

        def check(pool: Pool = pool) -> None:
            group = index.by_urn.get(pool.urn)
            if group is not None and scaler_tag(group) == CLUSTER_AUTOSCALER:
                if pool.known("max_size") is None:
                    report(f"{describe(pool)} has no maximum size; set a finite maxSize", pool.urn)
                for problem in one_scaler_problems(pool):
                    report(problem, pool.urn)
                return
            for problem in [*pool_problems(pool, min_cooldown), *_undrained_scale_in(index, pool)]:
                report(problem, pool.urn)

        judge(pool.urn, check)
    _k8s_problems(args, min_cooldown, report)


POLICY = GfStackPolicy(RULE, validate, judges(SCALABLE_TYPES, K8S_HPA_TYPES, K8S_SCALED_OBJECT))
