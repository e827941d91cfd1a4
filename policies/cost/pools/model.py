"""The pool model: `Pool`, the `ScalingSignal`s and `ScheduledAction`s joined to it, and the shape of
the catalogue entries it is priced from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.cost.pools.tokens import POOL_KINDS


# --- the catalogue this module reads (components.catalog) -------------------------------------
class PriceLike(Protocol):
    amount: float
    currency: str


class InstanceTypeLike(Protocol):
    gpu_class: str
    gpu_count: int

    @property
    def on_demand(self) -> Mapping[str, Any]: ...

    def hourly(self, region: str, spot: bool = False) -> Any: ...


# --- the model -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ScalingSignal:
    """One way a pool scales: a policy/rule, with the alarm that fires it when there is one."""

    urn: str
    name: str
    kind: str  # simple | step | target | predictive | alarm
    direction: str  # out | in | both | unknown
    metric: str | None = None
    threshold: float | None = None
    period_s: int | None = None
    evaluation_periods: int | None = None
    cooldown_s: int | None = None
    # False for an EC2 Auto Scaling step policy: it takes no cooldown (the group's default does not
    # apply either) and is re-run every minute while its alarm holds. Its `warmup_s`
    # (estimatedInstanceWarmup) paces scale-out only: warming instances count as capacity already added.
    takes_cooldown: bool = True
    warmup_s: int | None = None
    # False for a rule nothing in the stack fires (an ESS simple/step rule without an alarm task):
    # it only runs when someone executes it by hand.
    automatic: bool = True
    # When the signal is an alarm, the scaling policy/rule it fires: `cooldown_s` is that policy's
    # setting (named by `cooldown_setting`), so a finding about it must name the policy, not the alarm.
    policy: str | None = None
    cooldown_setting: str = "cooldown"
    # field -> (wire path, sentinel) of the decisive values that were unknown at preview
    unknown: Mapping[str, tuple[str, str]] = field(default_factory=dict)

    def require_known(self) -> None:
        """Raise UnknownValueError when a threshold, window or cooldown was unknown at preview."""
        for path, sentinel in self.unknown.values():
            raise UnknownValueError(sentinel, [path])

    @property
    def window_s(self) -> int | None:
        if self.period_s is None or self.evaluation_periods is None:
            return None
        return self.period_s * self.evaluation_periods


@dataclass(frozen=True)
class ScheduledAction:
    urn: str
    name: str
    min_size: int | None
    max_size: int | None
    desired: int | None
    recurrence: str | None
    timezone: str | None

    @property
    def scales_to_zero(self) -> bool:
        """A stop: the action caps the pool at zero. An action that leaves the maximum alone and sets
        the desired capacity to zero (an ESS rule to total capacity 0) stops it too; one that sets
        desired 0 under a positive maximum is the morning start of a pool whose minimum is 0."""
        if self.max_size is not None:
            return self.max_size == 0
        return self.desired == 0


@dataclass(frozen=True)
class Pool:
    cloud: str
    resource_type: str
    urn: str
    name: str
    region: str | None
    instance_types: tuple[str, ...]
    min_size: int | None
    max_size: int | None
    desired: int | None
    spot_percent: float | None
    on_demand_base: int
    scaling: tuple[ScalingSignal, ...] = ()
    schedules: tuple[ScheduledAction, ...] = ()
    env: str | None = None
    default_cooldown_s: int | None = None
    # An EC2 Auto Scaling group's defaultInstanceWarmup: what a step policy without its own warm-up uses.
    default_instance_warmup_s: int | None = None
    scalable: bool = False
    role_refs: tuple[str, ...] = ()  # URNs of the resources naming the instance role/profile
    # True when the pool asks for GPUs by attributes (`acceleratorTypes: ["gpu"]`) without naming
    # any GPU the model knows: a GPU pool whose GPU class (and so price) is unknown.
    gpu_class_unknown: bool = False
    unknown: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    # An AWS Batch compute environment is sized in vCPUs (minVcpus/maxVcpus), not instances: its
    # instance counts depend on the type Batch picks, so `min_size`/`max_size` are the counts of the
    # catalogue's view (see `discover_pools`) and pricing works from the vCPUs.
    min_vcpus: int | None = None
    max_vcpus: int | None = None
    # Sized from inside a Kubernetes cluster (EKS node groups, ACK and TKE node pools): no cloud
    # scaling policy acts on it.
    cluster_scaled: bool = False
    # The service itself removes idle capacity down to the minimum (AWS Batch always; an ACK node pool
    # with `scalingConfig.enable`, a TKE node pool with `enableAutoScale`).
    idle_scale_in: bool = False

    @property
    def kind(self) -> str:
        return POOL_KINDS.get(self.resource_type, self.resource_type)

    def known(self, attribute: str) -> Any:
        """The attribute's value, or raise UnknownValueError when it was unknown at preview."""
        if attribute in self.unknown:
            path, sentinel = self.unknown[attribute]
            raise UnknownValueError(sentinel, [path])
        return getattr(self, attribute)

    @property
    def scales_in(self) -> bool:
        return any(s.direction in ("in", "both") and s.automatic for s in self.scaling)

    @property
    def scheduled_to_zero(self) -> bool:
        return any(s.scales_to_zero for s in self.schedules)

    @property
    def idles_to_zero(self) -> bool:
        """The service takes the pool to zero when it has no work (its minimum is zero)."""
        if not self.idle_scale_in:
            return False
        if self.max_vcpus is not None or self.min_vcpus is not None:
            return (self.min_vcpus or 0) == 0
        return self.min_size == 0
