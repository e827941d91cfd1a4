"""The fleet-wide sections: budget, storage (the checkpoint bucket), access, audit and network."""

from __future__ import annotations

import ipaddress
import re
from typing import TYPE_CHECKING, Literal

from pydantic import Field, field_validator, model_validator

from gpufleet.components import spec_limits as limits
from gpufleet.components.clouds import ACCOUNT_CLOUD, CLOUD_NAMES, CLOUDS, cloud_parts, part_values, profile
from gpufleet.components.spec.account import _byok_material_checks
from gpufleet.components.spec.checks import _bucket_checks, _raise_first
from gpufleet.components.spec.keyed import keyed_model
from gpufleet.components.spec.values import Ipv4Net, _checked, _Model

# A plain address check: the provider delivers (and bounces) mail; this catches typos and pasted names.
_EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s.]+$")
# AWS Budgets takes at most 10 e-mail subscribers per notification.
MAX_ALERT_EMAILS = 10
# The cloud of the fleet's home (its budget, checkpoint bucket and home network: AWS), the others, and
# the clouds whose checkpoint buckets name a replica region (``REPLICA_REGION`` of ``spec/<cloud>.py``).
_HOME = profile(ACCOUNT_CLOUD).name
_OTHERS = " or ".join(CLOUD_NAMES[cloud] for cloud in CLOUDS if cloud != ACCOUNT_CLOUD)
_REPLICA_CLOUDS = list(part_values(cloud_parts("gpufleet.components.spec"), "REPLICA_REGION"))
_REPLICA_NAMES = " and ".join(CLOUD_NAMES[cloud] for cloud in _REPLICA_CLOUDS)


class Budget(_Model):
    monthly: float = Field(gt=0, le=limits.MAX_MONTHLY_BUDGET, description="monthly budget, in `currency`")
    currency: Literal["USD", "CNY"] = "USD"
    alert_percent: int = Field(default=80, ge=1, le=100, description="alert at this % of the budget")
    instance_ceiling: float | None = Field(
        default=None,
        gt=0,
        le=limits.MAX_MONTHLY_BUDGET,
        allow_inf_nan=False,
        description=(
            "highest hourly price of one GPU instance, in `currency`: a pool paying more (spot, or on-demand "
            "where it buys it) is a GF-FIT-006 finding"
        ),
    )
    alert_emails: list[str] = Field(
        default_factory=list,
        description=(
            f"who receives the {_HOME} budget's alerts (actual and forecast spend over alert_percent): up to "
            "10 e-mail addresses, subscribed to each notification of the budget. None: the alerts reach "
            "only the stack's SNS topic, which nothing subscribes to, and `gpufleet plan` warns"
        ),
    )
    activate_stack_tag: bool = Field(
        default=False,
        description=(
            "activate the gpufleet:stack cost-allocation tag the budget filters on, from this stack; "
            f"{_HOME} offers a new tag key for activation about a day after resources first carry it, so "
            "turn this on for the second deploy, or activate the tag in the payer account"
        ),
    )

    @field_validator("alert_emails")
    @classmethod
    def _emails(cls, value: list[str]) -> list[str]:
        bad = [address for address in value if not _EMAIL_RE.match(address)]
        if bad:
            raise ValueError(
                f"must be e-mail addresses like ops@example.com, got {', '.join(map(repr, bad))}"
            )
        if len({address.lower() for address in value}) != len(value):
            raise ValueError("must not list an address twice")
        if len(value) > MAX_ALERT_EMAILS:
            raise ValueError(
                f"at most {MAX_ALERT_EMAILS} addresses ({_HOME} Budgets' limit), got {len(value)}"
            )
        return value


class _ReplicaRegions(_Model):
    """Per China cloud, the second region holding a replica of that cloud's checkpoint buckets (AWS's
    replica is ``replicate_to``)."""

    if TYPE_CHECKING:

        def __getattr__(self, cloud: str) -> str | None: ...


# One field per cloud whose spec module has a REPLICA_REGION field (spec/alicloud.py, spec/tencentcloud.py).
if TYPE_CHECKING:
    ReplicaRegions = _ReplicaRegions
else:
    ReplicaRegions = keyed_model("ReplicaRegions", _ReplicaRegions, "REPLICA_REGION")


class BucketSpec(_Model):
    encryption: Literal["sse-kms", "byok"] = "sse-kms"
    classification: Literal["public", "internal", "confidential", "restricted"] = "internal"
    ia_after_days: int = Field(default=7, ge=0, description="days before the infrequent-access class")
    expire_after_days: int = Field(default=30, ge=1, description="days before objects are deleted")
    noncurrent_expire_days: int = Field(default=7, ge=1, description="days noncurrent versions are kept")
    replicate_to: str | None = Field(
        default=None, description=f"second {_HOME} region holding a two-way replica of the bucket"
    )
    replica_regions: ReplicaRegions = Field(
        default_factory=ReplicaRegions,
        description=(
            f"second region of the {_REPLICA_NAMES} checkpoint buckets' "
            f"replicas, keyed by cloud ({', '.join(_REPLICA_CLOUDS)}); {_HOME}'s is replicate_to"
        ),
    )
    written_gib_per_month: float | None = Field(
        default=None,
        ge=0,
        le=limits.MAX_GIB,
        allow_inf_nan=False,
        description="GiB of checkpoints written a month, fleet-wide (prices storage over the lifecycle)",
    )
    byok_material: Literal["pending", "imported", "config"] | None = Field(
        default=None,
        description=(
            "byok only: pending (first deploy builds the keys alone), imported (material is in; build "
            "everything; the default), config (material in the secret config gpufleet:byokMaterial)"
        ),
    )

    @model_validator(mode="after")
    def _cross_fields(self) -> BucketSpec:
        found = _bucket_checks(
            self.encryption, self.classification, self.ia_after_days, self.expire_after_days
        )
        found += _byok_material_checks(self.encryption, self.byok_material)
        _raise_first(found)
        return self

    @property
    def material(self) -> Literal["pending", "imported", "config"] | None:
        """How a byok key gets its material (None for sse-kms keys, whose material AWS makes)."""
        if self.encryption != "byok":
            return None
        return self.byok_material or "imported"


class Storage(_Model):
    checkpoints: BucketSpec = BucketSpec()
    data_prefix: str = "data/"
    checkpoint_prefix: str = "checkpoints/"
    datasets_gib: float | None = Field(
        default=None,
        ge=0,
        le=limits.MAX_GIB,
        allow_inf_nan=False,
        description="GiB of datasets kept under data_prefix (prices their storage at STANDARD)",
    )


class Access(_Model):
    session_manager: Literal[True] = True
    session_log_retention_days: int = Field(
        default=180, ge=1, description="days the Session Manager log group (CloudWatch Logs) keeps sessions"
    )

    @field_validator("session_log_retention_days")
    @classmethod
    def _allowed_retention(cls, value: int) -> int:
        return _checked(value, limits.retention_problem(value, forever=False))


class Audit(_Model):
    log_retention_days: int = Field(
        default=180,
        ge=0,
        description="days the audit log group and trail bucket keep logs; 0 keeps them forever",
    )
    trail: bool = True

    @field_validator("log_retention_days")
    @classmethod
    def _allowed_retention(cls, value: int) -> int:
        return _checked(value, limits.retention_problem(value, forever=True))


class RegionNetwork(_Model):
    """The private network of a site other than the AWS home (a second AWS region, or an Alibaba or
    Tencent region): its range and how many zones it spans."""

    vpc_cidr: Ipv4Net
    availability_zones: int = Field(default=2, ge=1, le=6)

    @model_validator(mode="after")
    def _cross_fields(self) -> RegionNetwork:
        _raise_first(limits.vpc_cidr_checks(self.vpc_cidr, self.availability_zones))
        return self


class Network(_Model):
    vpc_cidr: Ipv4Net = ipaddress.IPv4Network("10.40.0.0/16")  # the AWS home's (aws:region)
    subnet_ids: list[str] | None = Field(
        default=None, description="existing private subnets to run pools in, instead of a new VPC"
    )
    availability_zones: int = Field(default=2, ge=1, le=6)
    regions: dict[str, RegionNetwork] = Field(
        default_factory=dict,
        description=(
            f"the network of every site but the {_HOME} home, keyed cloud:region (a bare region is an "
            f"{_HOME} region): each site with pools needs one, but an {_OTHERS} home site without one gets "
            "the first free /16 of 10.0.0.0/8"
        ),
    )
    egress: Literal["none", "endpoints", "nat"] = Field(
        default="none",
        description=(
            "the private subnets' way out: none (the fleet's own VPC endpoints), endpoints (also ECR and "
            "STS, for containers), nat (a NAT gateway: HTTPS anywhere, billed hourly)"
        ),
    )

    @field_validator("subnet_ids")
    @classmethod
    def _subnets(cls, value: list[str] | None) -> list[str] | None:
        return value if value is None else _checked(value, limits.subnet_ids_problem(value))

    @model_validator(mode="after")
    def _cross_fields(self) -> Network:
        found = [] if self.subnet_ids else limits.vpc_cidr_checks(self.vpc_cidr, self.availability_zones)
        _raise_first(found)
        return self
