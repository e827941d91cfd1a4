"""A pool and its parts: size, scaling, off-hours, usage profile, data transfer, work queue, image."""

from __future__ import annotations

import re
import zoneinfo

from pydantic import Field, field_validator, model_validator

from gpufleet.components import spec_limits as limits
from gpufleet.components.catalog.workloads import MODEL_MEMORY_GIB
from gpufleet.components.clouds import CLOUD_NAMES, DEFAULT_CLOUD, PROFILES, Cloud, cloud_parts, part_values
from gpufleet.components.spec.account import Image, image_cloud_checks
from gpufleet.components.spec.checks import (
    REFERENCE_WORKER_CLOUDS,
    _pool_checks,
    _raise_first,
    _scaling_checks,
    _size_checks,
    _usage_checks,
    _usage_form_checks,
)
from gpufleet.components.spec.values import (
    _WINDOW_RE,
    Duration,
    _checked,
    _minute_multiple,
    _Model,
    _show,
    duration_seconds,
)
from gpufleet.components.spec_limits import IANA_AREAS


class Transfer(_Model):
    """Data a pool moves a month that the cloud bills by volume, for the monthly estimate."""

    egress_gib_per_month: float | None = Field(
        default=None,
        ge=0,
        le=limits.MAX_GIB,
        allow_inf_nan=False,
        description="GiB a month sent to the internet",
    )
    cross_region_gib_per_month: float | None = Field(
        default=None,
        ge=0,
        le=limits.MAX_GIB,
        allow_inf_nan=False,
        description="GiB a month sent from the pool's region to another region of its cloud",
    )


class Size(_Model):
    min: int = Field(default=0, ge=0)
    max: int = Field(ge=1, le=limits.MAX_POOL_SIZE)

    @model_validator(mode="after")
    def _cross_fields(self) -> Size:
        _raise_first(_size_checks(self.min, self.max))
        return self


class Scaling(_Model):
    gpu_util_out: int = Field(default=70, ge=1, le=100, description="% GPU utilisation to scale out")
    out_for: Duration = "5m"
    queue_out: int = Field(
        default=10,
        ge=1,
        description="messages waiting in the pool's queue to scale out (size.min 0: any message wakes it)",
    )
    gpu_util_in: int = Field(default=30, ge=0, le=99, description="% GPU utilisation to scale in")
    in_for: Duration = "30m"
    cooldown: Duration = "300s"

    @field_validator("out_for", "in_for")
    @classmethod
    def _whole_minutes(cls, value: str) -> str:
        _minute_multiple(value)
        return _checked(value, limits.alarm_window_problem(duration_seconds(value), value))

    @field_validator("cooldown")
    @classmethod
    def _sane_cooldown(cls, value: str) -> str:
        return _checked(value, limits.cooldown_problem(duration_seconds(value), value))

    @model_validator(mode="after")
    def _cross_fields(self) -> Scaling:
        _raise_first(_scaling_checks(self.gpu_util_out, self.gpu_util_in, self.out_for, self.in_for))
        return self

    @property
    def out_for_s(self) -> int:
        return duration_seconds(self.out_for)

    @property
    def in_for_s(self) -> int:
        return duration_seconds(self.in_for)

    @property
    def cooldown_s(self) -> int:
        return duration_seconds(self.cooldown)


class OffHours(_Model):
    timezone: str
    scale_to_zero: str = Field(description='window with no capacity, "HH:MM-HH:MM", e.g. "20:00-08:00"')
    weekends: bool = True

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        # AWS scheduled actions take the canonical IANA names only: see spec_limits.is_area_zone_name.
        known = limits.is_area_zone_name(value)
        if known:
            try:
                zoneinfo.ZoneInfo(value)
            except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
                known = False
        if not known:
            raise ValueError(
                "must be an IANA time zone name Area/Location like Asia/Shanghai or America/New_York, or "
                f"UTC (areas: {', '.join(IANA_AREAS)}), got {_show(value)}"
            )
        return value

    @field_validator("scale_to_zero")
    @classmethod
    def _window(cls, value: str) -> str:
        match = _WINDOW_RE.match(value.strip())
        if not match:
            raise ValueError(f'must be a window "HH:MM-HH:MM" like "20:00-08:00", got {_show(value)}')
        if match.group(1, 2) == match.group(3, 4):
            raise ValueError(f"must have different start and end times, got {_show(value)}")
        return value.strip()

    def _parts(self) -> tuple[int, int, int, int]:
        match = _WINDOW_RE.match(self.scale_to_zero)
        if match is None:  # validated on construction
            raise AssertionError(self.scale_to_zero)
        h1, m1, h2, m2 = (int(g) for g in match.groups())
        return h1, m1, h2, m2

    @property
    def start_hour(self) -> int:
        """Hour the scale-to-zero window starts (capacity goes to zero)."""
        return self._parts()[0]

    @property
    def start_minute(self) -> int:
        return self._parts()[1]

    @property
    def end_hour(self) -> int:
        """Hour the window ends (capacity comes back)."""
        return self._parts()[2]

    @property
    def end_minute(self) -> int:
        return self._parts()[3]

    @property
    def stop_cron(self) -> str:
        """Cron recurrence, in ``timezone``, that scales the pool to zero (every day)."""
        return f"{self.start_minute} {self.start_hour} * * *"

    @property
    def start_cron(self) -> str:
        """Cron recurrence, in ``timezone``, that restores capacity; weekdays only when weekends are off."""
        days = "1-5" if self.weekends else "*"
        return f"{self.end_minute} {self.end_hour} * * {days}"


class UsageStep(_Model):
    """Hours a day a pool runs at one size."""

    size: float = Field(ge=0, description="instances running, within size.min..size.max")
    hours_per_day: float = Field(ge=0, le=24, description="hours a day at this size")


class Usage(_Model):
    """How much a pool runs, for the monthly estimate: hours a day at each size.

    Either ``profile``, a list of steps, or the one-step form ``hours_per_day`` with ``average_size``.
    The steps' hours add up to at most 24 and to at most the hours the off-hours schedule leaves
    running; the scheduled hours no step covers are priced at size.min.
    """

    hours_per_day: float | None = Field(default=None, ge=0, le=24, description="one step: hours a day in use")
    average_size: float | None = Field(
        default=None, ge=0, description="one step: average instances running while in use"
    )
    days_per_month: float = Field(default=30, ge=1, le=31, description="days a month the pool is in use")
    profile: list[UsageStep] | None = Field(
        default=None, description="hours a day at each size; the rest of the scheduled hours at size.min"
    )

    @model_validator(mode="after")
    def _cross_fields(self) -> Usage:
        _raise_first(_usage_form_checks(self.model_dump()))
        return self

    @property
    def steps(self) -> tuple[UsageStep, ...]:
        """The profile's steps; the one-step form as one step."""
        if self.profile is not None:
            return tuple(self.profile)
        if self.hours_per_day is None or self.average_size is None:  # validated on construction
            raise AssertionError("usage has neither a profile nor hours_per_day with average_size")
        return (UsageStep(size=self.average_size, hours_per_day=self.hours_per_day),)

    @property
    def is_profile(self) -> bool:
        """True when written as a ``profile`` list (errors and reports name usage.profile[i])."""
        return self.profile is not None


# ------------------------------------------------------------------------------------- pool queue
_QUEUE_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,75}\.fifo$|^[A-Za-z0-9_-]{1,80}$")
# The queue is the SQS queue of the cloud whose module names its ARNs (``spec/aws.py``).
_PARTS = cloud_parts("gpufleet.components.spec")
_QUEUE = next(part for part in _PARTS.values() if hasattr(part, "QUEUE_ARN_RE"))
_QUEUE_ARN_RE: re.Pattern[str] = _QUEUE.QUEUE_ARN_RE
_KMS_KEY_ARN_RE: re.Pattern[str] = _QUEUE.KMS_KEY_ARN_RE
_QUEUE_ARN_EXAMPLE: str = _QUEUE.QUEUE_ARN_EXAMPLE
_KMS_KEY_ARN_EXAMPLE: str = _QUEUE.KMS_KEY_ARN_EXAMPLE
_MAX_VISIBILITY_S = 43_200


class PoolQueue(_Model):
    """The SQS queue a pool takes work from and scales out on (AWS/SQS
    ApproximateNumberOfMessagesVisible). Left out, the fleet creates one, encrypted with the fleet key,
    with a dead-letter queue; ``name`` or ``arn`` names an existing queue in the stack's account and
    the pool's region instead, whose encryption and dead-letter queue are its owner's (with a
    customer-managed key, name it in ``kms_key_arn`` so the pool's role may decrypt through SQS)."""

    name: str | None = Field(default=None, description="an existing queue's name")
    arn: str | None = Field(default=None, description="an existing queue's ARN, in the stack's account")
    kms_key_arn: str | None = Field(
        default=None, description="an existing queue's customer-managed key: the pool's role may decrypt"
    )
    visibility_timeout: Duration = Field(
        default="15m", description="how long a received message stays hidden (a created queue)"
    )
    max_receives: int = Field(
        default=5, ge=1, le=1000, description="receives before a message moves to the dead-letter queue"
    )

    @field_validator("name")
    @classmethod
    def _queue_name(cls, value: str | None) -> str | None:
        if value is not None and not _QUEUE_NAME_RE.match(value):
            raise ValueError(
                "must be an SQS queue name: 1-80 letters, digits, '-' or '_' (a FIFO queue ends in .fifo), "
                f"got {_show(value)}"
            )
        return value

    @field_validator("arn")
    @classmethod
    def _queue_arn(cls, value: str | None) -> str | None:
        match = _QUEUE_ARN_RE.match(value) if value is not None else None
        if value is not None and (match is None or not _QUEUE_NAME_RE.match(match.group("name"))):
            raise ValueError(f"must be an SQS queue ARN like {_QUEUE_ARN_EXAMPLE}, got {_show(value)}")
        return value

    @field_validator("kms_key_arn")
    @classmethod
    def _key_arn(cls, value: str | None) -> str | None:
        if value is not None and not _KMS_KEY_ARN_RE.match(value):
            raise ValueError(
                f"must be a KMS key ARN like {_KMS_KEY_ARN_EXAMPLE} (not an alias), got {_show(value)}"
            )
        return value

    @field_validator("visibility_timeout")
    @classmethod
    def _visibility(cls, value: str) -> str:
        if duration_seconds(value) > _MAX_VISIBILITY_S:
            raise ValueError(f"must be at most 12h (SQS's longest visibility timeout), got {value}")
        return value

    @model_validator(mode="after")
    def _one_source(self) -> PoolQueue:
        if self.name is not None and self.arn is not None:
            raise ValueError("give either name or arn of an existing queue, not both")
        if self.kms_key_arn is not None and self.name is None and self.arn is None:
            raise ValueError(
                "kms_key_arn is the key of an existing queue (name or arn); a queue the fleet creates is "
                "encrypted with the fleet's key"
            )
        settings = sorted(self.model_fields_set & {"visibility_timeout", "max_receives"})
        if settings and (self.name is not None or self.arn is not None):
            raise ValueError(
                f"{' and '.join(settings)} apply to a queue the fleet creates; an existing queue "
                "(name or arn) keeps its own settings"
            )
        return self

    @property
    def existing(self) -> bool:
        return self.name is not None or self.arn is not None

    @property
    def visibility_timeout_s(self) -> int:
        return duration_seconds(self.visibility_timeout)


# ----------------------------------------------------------------------------------------- workload
_MAX_SNIPPET_CHARS = limits.MAX_WORKLOAD_CHARS


def _image_reference(value: str) -> str:
    if not limits.IMAGE_RE.match(value):
        raise ValueError(f"must be an image reference like {limits.IMAGE_EXAMPLES}, got {_show(value)}")
    return value


def _env_names(value: dict[str, str]) -> dict[str, str]:
    bad = [name for name in value if not limits.ENV_NAME_RE.match(name)]
    if bad:
        raise ValueError(
            "names must be environment variable names (letters, digits and _, not starting with a "
            f"digit), got {', '.join(_show(name) for name in bad[:5])}"
        )
    return value


def _fits(image: str, command: list[str], env: dict[str, str]) -> None:
    size = limits.container_size(image, command, env)
    if size > limits.MAX_WORKLOAD_CHARS:
        raise ValueError(
            f"image, command and env take about {size} characters of user data; at most "
            f"{limits.MAX_WORKLOAD_CHARS} fit in EC2's 16 KB beside the agent's setup: keep large "
            "settings in S3 or SSM Parameter Store and read them in the container"
        )


class Container(_Model):
    """A container the pool's instances run with every GPU (Docker, or nerdctl), restarted when it
    stops. ``env`` is readable by anyone who can read the launch template: no secrets."""

    image: str = Field(description="an image reference; in ECR (pulled through endpoints), or any registry")
    command: list[str] | None = Field(default=None, description="replaces the image's command")
    env: dict[str, str] = Field(default_factory=dict, description="environment variables (no secrets)")

    @field_validator("image")
    @classmethod
    def _reference(cls, value: str) -> str:
        return _image_reference(value)

    @field_validator("env")
    @classmethod
    def _names(cls, value: dict[str, str]) -> dict[str, str]:
        return _env_names(value)

    @model_validator(mode="after")
    def _fits_user_data(self) -> Container:
        _fits(self.image, self.command or [], self.env)
        return self


# What the pool tells its reference worker itself (components/sites/workloads.py, pools/userdata.py):
# an `env` of the spec that set one would point the worker at another queue, region, hook or timeout.
POOL_SET_WORKER_ENV = (
    "GPUFLEET_QUEUE_NAME",
    *sorted({p.workload_region_env for p in PROFILES.values()}),
    "GPUFLEET_LIFECYCLE_HOOK",
    "GPUFLEET_VISIBILITY_S",
    "GPUFLEET_GROUP",
)

# What a reference_worker container runs: the entrypoint and arguments of ``python -m gpufleet.worker``
# (gpufleet/worker/__main__.py), whatever the image's own ENTRYPOINT is.
REFERENCE_WORKER_ENTRYPOINT = "python"


def reference_worker_command(cloud: str) -> tuple[str, ...]:
    """The arguments after the ``python`` entrypoint that start the reference worker on ``cloud``."""
    return ("-m", "gpufleet.worker", "--cloud", cloud)


class ReferenceWorker(_Model):
    """The project's reference worker (docs/worker.md) in a container: ``python -m gpufleet.worker
    --cloud <the pool's cloud>`` run in ``image`` with every GPU, restarted when it stops. It takes one
    job at a time from the pool's queue (a message's ``command``, run inside the image), protects its
    instance while the job runs, checkpoints and returns the job on a termination notice, deletes the
    message on success. The pool gives it its queue, region and scale-in hook (and, where the queue
    cannot be asked, its visibility timeout); ``env`` adds the worker's own settings
    (``GPUFLEET_BUCKET`` for checkpoints, ``GPUFLEET_GRACE_S``, ...). Every cloud: the entrypoint wires
    SQS/Auto Scaling/S3 (boto3), MNS/ESS/OSS and CMQ/AS/COS (standard library)."""

    image: str = Field(
        description="an image with gpufleet installed (docs/worker.md, Building the image) and the jobs' "
        "code; in ECR (pulled through endpoints), or any registry"
    )
    env: dict[str, str] = Field(
        default_factory=dict,
        description="the worker's settings, e.g. GPUFLEET_BUCKET (the checkpoint bucket); no secrets",
    )

    @field_validator("image")
    @classmethod
    def _reference(cls, value: str) -> str:
        return _image_reference(value)

    @field_validator("env")
    @classmethod
    def _names(cls, value: dict[str, str]) -> dict[str, str]:
        given = sorted(set(value) & set(POOL_SET_WORKER_ENV))
        if given:
            raise ValueError(
                f"{', '.join(given)}: the pool sets {'it' if len(given) == 1 else 'them'} (its queue, its "
                f"region, its scale-in hook, its queue's visibility timeout); leave out "
                f"{', '.join(POOL_SET_WORKER_ENV)}"
            )
        value = _env_names(value)
        found = limits.worker_timing_problems(value)
        if found:
            name, problem = found[0]
            raise ValueError(f"{name} {problem}" if problem.startswith("with ") else f"{name}: {problem}")
        return value

    @model_validator(mode="after")
    def _fits_user_data(self) -> ReferenceWorker:
        command = reference_worker_command(REFERENCE_WORKER_CLOUDS[0])
        _fits(self.image, [REFERENCE_WORKER_ENTRYPOINT, *command], self.env)
        return self


WORKLOAD_FORMS = (
    "user_data (a shell snippet)",
    "container (an image)",
    "reference_worker (python -m gpufleet.worker in an image)",
    "image_reads_queue: true (the pool's image reads the queue itself)",
)


class PoolWorkload(_Model):
    """What a pool's instances run after the CloudWatch agent starts, exactly one of: ``user_data``
    (a shell snippet, run by bash as root), ``container``, ``reference_worker`` (the project's worker
    in a container), or ``image_reads_queue: true`` (nothing is started: the pool's image brings the
    reader of its queue). A pool whose queue the fleet creates must name one."""

    user_data: str | None = Field(default=None, description="a shell snippet run after the agent starts")
    container: Container | None = None
    reference_worker: ReferenceWorker | None = Field(
        default=None,
        description="the reference worker (python -m gpufleet.worker) in an image; "
        + ", ".join(CLOUD_NAMES[cloud] for cloud in REFERENCE_WORKER_CLOUDS),
    )
    image_reads_queue: bool | None = Field(
        default=None,
        description="true: the pool's image starts its own reader of the pool's queue at boot; the fleet "
        "starts nothing",
    )

    @field_validator("image_reads_queue")
    @classmethod
    def _only_true(cls, value: bool | None) -> bool | None:
        if value is False:
            raise ValueError("must be true (the pool's image reads the queue itself) or left out, got false")
        return value

    @field_validator("user_data")
    @classmethod
    def _snippet(cls, value: str | None) -> str | None:
        if value is None:
            return value
        if not value.strip():
            raise ValueError(
                "must not be empty: give the snippet, or image_reads_queue: true if the image reads it"
            )
        if len(value) > _MAX_SNIPPET_CHARS:
            raise ValueError(
                f"must be at most {_MAX_SNIPPET_CHARS} characters (EC2 takes 16 KB of user data, the "
                f"agent's setup included), got {len(value)}: fetch a longer script from S3 instead"
            )
        if "\x00" in value:
            raise ValueError("must not contain a NUL character")
        return value

    @model_validator(mode="after")
    def _one_kind(self) -> PoolWorkload:
        given = [self.user_data, self.container, self.reference_worker, self.image_reads_queue]
        if sum(value is not None for value in given) != 1:
            raise ValueError(f"give exactly one of {', '.join(WORKLOAD_FORMS)}")
        return self


class Fit(_Model):
    """What the pool's instances must hold and carry for the work it runs: checked by `gpufleet check`
    (GF-FIT-004 GPU memory, GF-FIT-005 the network of distributed work), never changed by it."""

    model_memory_gib: float | None = Field(
        default=None,
        gt=0,
        le=limits.MAX_GIB,
        allow_inf_nan=False,
        description="GPU memory one instance needs",
    )
    model: str | None = Field(
        default=None,
        description=f"a known model, its memory from the catalogue: {', '.join(sorted(MODEL_MEMORY_GIB))}",
    )
    distributed: bool = Field(
        default=False, description="work spans instances: needs 10 Gbps, EFA and a cluster placement group"
    )

    @field_validator("model")
    @classmethod
    def _known_model(cls, value: str | None) -> str | None:
        if value is not None and value not in MODEL_MEMORY_GIB:
            raise ValueError(f"unknown model {value!r}; known: {', '.join(sorted(MODEL_MEMORY_GIB))}")
        return value


class Pool(_Model):
    cloud: Cloud = DEFAULT_CLOUD
    region: str | None = Field(default=None, description="None: the stack's provider region")
    instance_types: list[str] = Field(min_length=1)
    size: Size
    spot_percent: int = Field(default=0, ge=0, le=100)
    on_demand_base: int = Field(default=0, ge=0)
    scaling: Scaling = Scaling()
    off_hours: OffHours | None = None
    usage: Usage | None = None
    disk_gib: int = Field(default=200, ge=20, le=16384)
    transfer: Transfer | None = None
    queue: PoolQueue = PoolQueue()
    image: Image | None = Field(
        default=None,
        description=(
            f"None: the cloud's default image ({', '.join(part_values(_PARTS, 'DEFAULT_IMAGE').values())}); "
            "a joined pool needs one with kubeadm and kubelet"
        ),
    )
    workload: PoolWorkload | None = Field(
        default=None,
        description="what reads the pool's queue; required when the fleet creates the queue (none: an "
        "existing queue in queue.name or queue.arn, or a pool whose nodes join onprem.scheduler)",
    )
    fit: Fit | None = Field(default=None, description="the GPU memory and network its work needs (checked)")

    @model_validator(mode="after")
    def _cross_fields(self) -> Pool:
        found = _pool_checks(self.cloud, self.instance_types, self.size.max, self.on_demand_base)
        if self.usage is not None:
            found += _usage_checks(self.usage.model_dump(), self.size.min, self.size.max)
        if self.image is not None:
            found += image_cloud_checks(self.cloud, self.image.ami, self.image.ssm_parameter, self.image.id)
        _raise_first(found)
        return self
