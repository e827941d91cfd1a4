"""What AWS refuses at deploy, and contradictions within a spec, as checks the fleet spec runs.

The fleet's shared resources (key, bucket, trail, log groups, network, budget) are AWS resources
whatever clouds its pools run on (the registry's ``ACCOUNT_CLOUD``), so AWS's limits apply to
every spec; the figures are that cloud's module beside this one (``spec_limits/aws.py``). Each check
takes plain values and returns ``(relative path, message)`` pairs, so ``components.spec`` can run it
on the raw config (every problem at once) as well as on a model being constructed.

Also here: reading the spec's JSON form (how the Pulumi engine hands structured config to a program)
with the same refusals as a stack file's YAML: duplicate keys, NaN/Infinity, integers a double cannot
hold, nesting too deep, more than 1 MiB.
"""

from __future__ import annotations

import ipaddress
import json
import math
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from gpufleet.components.clouds import ACCOUNT_CLOUD, as_cloud, cloud_parts, profile

QUOTE_LIMIT = 200
# Ceilings far above any real fleet, below what turns the cost model's sums into infinity (a budget or
# a GiB figure of 1.7e308 is finite on its own and priced to Infinity).
MAX_MONTHLY_BUDGET = 1e12
MAX_GIB = 1e9  # an exbibyte
MAX_POOL_SIZE = 100_000
MAX_SAFE_INTEGER = 2**53
MAX_JSON_CHARS = 1024 * 1024

# The limits of the cloud holding the fleet's shared resources, from its module beside this one
# (``spec_limits/aws.py``): the log retention periods it allows, its tag limits and reserved tag prefix.
_HOME = cloud_parts(__name__)[ACCOUNT_CLOUD]
_HOME_NAME = profile(ACCOUNT_CLOUD).name
LOG_RETENTION_DAYS: tuple[int, ...] = _HOME.LOG_RETENTION_DAYS
TAG_KEY_MAX: int = _HOME.TAG_KEY_MAX
TAG_VALUE_MAX: int = _HOME.TAG_VALUE_MAX
TAGS_PER_RESOURCE: int = _HOME.TAGS_PER_RESOURCE
RESERVED_TAG_PREFIX: str = _HOME.RESERVED_TAG_PREFIX
# Keys the fleet itself sets on some resources, on top of the spec's tags (`components.tags.with_tags`).
FLEET_TAG_KEYS = ("Name", "purpose", "data-classification", "gpufleet:pool")
_TAG_PUNCTUATION = frozenset(" _.:/=+-@")
_TAG_CHARS = "letters, digits, spaces and _ . : / = + - @"
VPC_PREFIX_MIN, VPC_PREFIX_MAX = 16, 28
VPC_PRIVATE_RANGES = tuple(
    ipaddress.IPv4Network(net) for net in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10")
)
_MIN_SUBNET_SLOTS = 4  # gpufleet.components.network.aws.MIN_SUBNET_SLOTS
_SMALLEST_SUBNET_PREFIX = 28
IANA_AREAS: tuple[str, ...] = ("Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia")
IANA_AREAS += ("Etc", "Europe", "Indian", "Pacific")
ZONE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9][A-Za-z0-9_+-]*){1,2}$")
COOLDOWN_MIN_S, ALARM_WINDOW_MAX_S = 60, 86_400
# Names the policy pack reads as each environment (policies/context.py KNOWN_ENVS), and the tag keys
# it reads the environment from: a tag naming another environment switches the wrong rules on or off.
ENV_NAMES = {
    "dev": ("dev", "development", "test", "sandbox"),
    "staging": ("staging", "stage", "stg", "qa", "preprod"),
    "prod": ("prod", "production", "prd", "live"),
}
ENV_TAG_KEYS = ("env", "environment", "Environment", "Env", "stage")
SUBNET_ID_RE = re.compile(r"^subnet-([0-9a-f]{8}|[0-9a-f]{17})$")
# A container image reference as Docker parses one: [registry[:port]/]repository[:tag][@sha256:digest].
_REPOSITORY = r"[a-z0-9]+(?:[._-][a-z0-9]+)*(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*"
_TAG_OR_DIGEST = r"(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?"
IMAGE_RE = re.compile(
    rf"^(?:[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?(?::\d{{1,5}})?/)?{_REPOSITORY}{_TAG_OR_DIGEST}$"
)
ECR_IMAGE_RE = re.compile(
    r"^(?P<account>\d{12})\.dkr\.ecr\.(?P<region>[a-z]{2}(?:-[a-z]+)+-\d)\.amazonaws\.com(?P<china>\.cn)?/"
    rf"(?P<repository>{_REPOSITORY}){_TAG_OR_DIGEST}$"
)
# What a workload may add to the boot script: EC2 takes 16 KB of user data, the agent's setup included.
MAX_WORKLOAD_CHARS = 12_000
ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
IMAGE_EXAMPLES = (
    "123456789012.dkr.ecr.us-east-1.amazonaws.com/trainer:1.4 or nvcr.io/nvidia/pytorch:24.05-py3"
)


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """`repr` of a string, cut to `limit` characters with its length said (error messages quote input)."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text):,} characters)"


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters; escaped (as `repr`) when it holds a line break or other
    control character, so a message naming it stays on one line."""
    if not text.isprintable():
        text = repr(text)
    return text if len(text) <= limit else f"{text[:limit]}…"


# ------------------------------------------------------------------------------------------ tags


def tag_checks(tags: Any, environment: Any) -> list[tuple[str, str]]:
    """Tags AWS would refuse at deploy, and tags naming another environment than ``environment``.
    Paths are relative to ``tags`` (``.aws:owner``; ``""`` for the map itself)."""
    if not isinstance(tags, Mapping):
        return []
    found: list[tuple[str, str]] = []
    count = len(tags) + (0 if "env" in tags else 1)
    room = TAGS_PER_RESOURCE - len(FLEET_TAG_KEYS)
    if count > room:
        found.append(
            (
                "",
                f"{count} tags (env included); {_HOME_NAME} allows {TAGS_PER_RESOURCE} a resource and the "
                f"fleet adds up to {len(FLEET_TAG_KEYS)} of its own ({', '.join(FLEET_TAG_KEYS)}), so at "
                f"most {room}",
            )
        )
    for key, value in tags.items():
        if not isinstance(key, str):
            continue
        rel = f".{clip(key, 60)}"
        if key.lower().startswith(RESERVED_TAG_PREFIX):
            reserved = f"tag keys starting with {RESERVED_TAG_PREFIX} are reserved for {_HOME_NAME}"
            found.append((rel, f"{reserved} and refused at deploy"))
        elif key in FLEET_TAG_KEYS:
            found.append((rel, "is set by the fleet itself on the resources it applies to; use another key"))
        if not key or len(key) > TAG_KEY_MAX:
            found.append(
                (
                    rel,
                    f"tag keys are 1 to {TAG_KEY_MAX} characters on {_HOME_NAME}, this one has {len(key):,}",
                )
            )
        elif not _tag_text_ok(key):
            found.append((rel, f"the key has characters {_HOME_NAME} refuses in tags; allowed: {_TAG_CHARS}"))
        if not isinstance(value, str):
            continue
        if len(value) > TAG_VALUE_MAX:
            found.append(
                (
                    rel,
                    f"tag values are at most {TAG_VALUE_MAX} characters on {_HOME_NAME}, got {len(value):,}",
                )
            )
        elif not _tag_text_ok(value):
            found.append(
                (rel, f"the value has characters {_HOME_NAME} refuses in tags; allowed: {_TAG_CHARS}")
            )
        found += _env_tag_checks(rel, key, value, environment)
    return found


def _tag_text_ok(text: str) -> bool:
    return all(c in _TAG_PUNCTUATION or unicodedata.category(c)[0] in "LN" for c in text)


def _env_tag_checks(rel: str, key: str, value: str, environment: Any) -> list[tuple[str, str]]:
    if key not in ENV_TAG_KEYS or not isinstance(environment, str) or environment not in ENV_NAMES:
        return []
    named = next((env for env, names in ENV_NAMES.items() if value.strip().lower() in names), None)
    if named == environment or (named is None and key != "env"):
        return []
    allowed = ", ".join(ENV_NAMES[environment])
    return [
        (
            rel,
            f"must name the stack's environment ({environment}): one of {allowed}, or be left out (env is "
            f"then set from environment); got {quote(value)}. The guardrails read the environment from this "
            "tag, so another one switches the wrong rules on and off",
        )
    ]


# --------------------------------------------------------------------------------------- network


def vpc_cidr_checks(value: Any, zones: Any) -> list[tuple[str, str]]:
    """A VPC range AWS accepts (a /16 to /28 inside a private range) with room for the fleet's subnets.
    A value that is not a network at all is left to the field's own validation."""
    try:
        network = value if isinstance(value, ipaddress.IPv4Network) else ipaddress.IPv4Network(value.strip())
    except (ValueError, AttributeError, TypeError):
        return []
    if not VPC_PREFIX_MIN <= network.prefixlen <= VPC_PREFIX_MAX:
        return [
            (
                "vpc_cidr",
                f"must be a /{VPC_PREFIX_MIN} to /{VPC_PREFIX_MAX} (the VPC sizes {_HOME_NAME} allows), got "
                f"{network}",
            )
        ]
    if not any(network.subnet_of(private) for private in VPC_PRIVATE_RANGES):
        ranges = ", ".join(str(r) for r in VPC_PRIVATE_RANGES)
        return [("vpc_cidr", f"must be inside a private range ({ranges}), got {network}")]
    zones_ok = isinstance(zones, int) and not isinstance(zones, bool) and 1 <= zones <= 64
    slots = max(zones, _MIN_SUBNET_SLOTS) if zones_ok else _MIN_SUBNET_SLOTS
    smallest = _SMALLEST_SUBNET_PREFIX - math.ceil(math.log2(slots))
    if network.prefixlen > smallest:
        return [
            (
                "vpc_cidr",
                f"a /{network.prefixlen} is too small: the fleet carves {slots} equal subnets of at least "
                f"/{_SMALLEST_SUBNET_PREFIX} from it (one per availability zone, the rest kept free), so at "
                f"most /{smallest}",
            )
        ]
    return []


def subnet_ids_problem(value: list[str]) -> str | None:
    """Why AWS would refuse this list of existing subnets, or None."""
    if not value:
        return "must list at least one subnet id (subnet-0abc...), or be left out to create a VPC"
    for item in value:
        if not SUBNET_ID_RE.match(item):
            return f"must be subnet ids like subnet-0123456789abcdef0, got {quote(item)}"
    repeated = sorted({item for item in value if value.count(item) > 1})
    if repeated:
        return f"lists {', '.join(repeated)} more than once"
    return None


# ------------------------------------------------------------------------------ retention, time


DRAIN_HOOK_TIMEOUT_S = 900
"""How long every cloud's scale-in hook holds a leaving instance for its worker (components/pools/
lifecycle.py: AWS heartbeat timeout, ESS and AS hook timeouts) before the group goes on."""

WORKER_SECONDS_DEFAULTS = {
    "GPUFLEET_WAIT_S": 20.0,
    "GPUFLEET_POLL_S": 1.0,
    "GPUFLEET_NOTICE_S": 15.0,
    "GPUFLEET_GRACE_S": 90.0,
}
"""The reference worker's timing settings and their defaults (gpufleet/worker/__main__.py reads them)."""


def worker_timing_problems(env: Mapping[str, str]) -> list[tuple[str, str]]:
    """(env key, why) for the reference worker's timing settings: each a number of seconds the worker
    reads (else it exits 2 at start, and the pool carries no work), and the notice period plus the grace
    period below the scale-in hook's timeout, or the group terminates the instance before the job's
    checkpoint is uploaded."""
    found: list[tuple[str, str]] = []
    values = dict(WORKER_SECONDS_DEFAULTS)
    for name in WORKER_SECONDS_DEFAULTS:
        raw = env.get(name)
        if raw is None or raw == "":
            continue
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value < 0:
            found.append((name, f"must be a number of seconds, 0 or more; got {quote(raw)}"))
            continue
        values[name] = value
    if found:
        return found
    notice, grace = values["GPUFLEET_NOTICE_S"], values["GPUFLEET_GRACE_S"]
    if notice + grace >= DRAIN_HOOK_TIMEOUT_S:
        found.append(
            (
                "GPUFLEET_GRACE_S",
                f"with GPUFLEET_NOTICE_S ({notice:g} s) must leave time in the {DRAIN_HOOK_TIMEOUT_S} s the "
                f"scale-in hook holds a leaving instance for the checkpoint upload; got {grace:g} s "
                f"(keep GPUFLEET_NOTICE_S + GPUFLEET_GRACE_S under {DRAIN_HOOK_TIMEOUT_S}, and under 120 on "
                "spot: an interruption notice gives two minutes)",
            )
        )
    return found


def container_size(image: str, command: list[str] | tuple[str, ...], env: Mapping[str, str]) -> int:
    """About the characters a container workload adds to the boot script (quoting included)."""
    words = [image, *command, *(f"{name}={value}" for name, value in env.items())]
    return sum(len(word) + 6 for word in words)


def workload_route_checks(
    workload: Any, egress: Any, subnet_ids: Any, cloud: Any = ACCOUNT_CLOUD, region: Any = None
) -> list[tuple[str, str]]:
    """A container image the pool's private subnets cannot pull. A network of the fleet's own has no
    route out but the private endpoints it builds or its cloud gives (``egress`` none or endpoints);
    which registry those reach is the cloud's fact (``image_route_problem`` in
    ``components/spec_limits/<cloud>.py``). ``nat`` reaches any registry; the home cloud's existing
    subnets (``network.subnet_ids``) bring their own way out and are not judged (another cloud's pool
    runs in a network the fleet creates whatever they are)."""
    form = "container" if _mapping_get(workload, "container") is not None else "reference_worker"
    image = _mapping_get(_mapping_get(workload, form), "image")
    if not isinstance(image, str) or not IMAGE_RE.match(image):
        return []
    foreign = _foreign_registry_problem(image, cloud)
    if foreign is not None:
        return [(f"{form}.image", foreign)]
    if subnet_ids and cloud == ACCOUNT_CLOUD:
        return []
    if egress not in ("none", "endpoints"):
        return []
    key = as_cloud(cloud) if isinstance(cloud, str) else None
    part = cloud_parts(__name__).get(key) if key is not None else None
    route = getattr(part, "image_route_problem", None)
    if route is None:  # a cloud that names no registry its private subnets reach
        problem: str | None = (
            f"network.egress {egress} gives the private subnets no route to a registry: set "
            "network.egress: nat"
        )
    else:
        problem = route(image, egress, region if isinstance(region, str) else None)
    return [] if problem is None else [(f"{form}.image", problem)]


def _foreign_registry_problem(image: str, cloud: Any) -> str | None:
    """Why a pool on ``cloud`` cannot pull ``image`` from another cloud's private registry, whose pulls
    take that cloud's credentials (``foreign_pull_problem`` in ``components/spec_limits/<cloud>.py``);
    the message names the pool cloud's own registry (its ``HOME_REGISTRY``)."""
    key = as_cloud(cloud) if isinstance(cloud, str) else None
    if key is None:
        return None
    parts = cloud_parts(__name__)
    registry = getattr(parts.get(key), "HOME_REGISTRY", None) or "the pool's cloud's own registry"
    for other, part in parts.items():
        judge = getattr(part, "foreign_pull_problem", None)
        if other != key and judge is not None:
            problem: str | None = judge(image, profile(key).name, registry)
            if problem is not None:
                return problem
    return None


def _mapping_get(node: Any, key: str) -> Any:
    return node.get(key) if isinstance(node, Mapping) else None


def retention_problem(value: int, *, forever: bool) -> str | None:
    """Days a CloudWatch Logs group keeps events: one of the periods AWS allows (0 unsets it: forever)."""
    if value in LOG_RETENTION_DAYS or (forever and value == 0):
        return None
    allowed = ", ".join(str(d) for d in LOG_RETENTION_DAYS)
    zero = "0 (keep forever) or " if forever else ""
    return f"must be {zero}one of the retention periods CloudWatch Logs allows: {allowed}; got {value}"


def is_area_zone_name(value: str) -> bool:
    """`Area/Location` (or `UTC`), the canonical IANA names AWS scheduled actions take. Local aliases
    such as localtime or posixrules and the old names (US/Eastern, EST5EDT) are not."""
    return value == "UTC" or (bool(ZONE_RE.match(value)) and value.split("/", 1)[0] in IANA_AREAS)


def cooldown_problem(seconds: int, written: str) -> str | None:
    if COOLDOWN_MIN_S <= seconds <= ALARM_WINDOW_MAX_S:
        return None
    return (
        f"must be between 60s and 1 day ({ALARM_WINDOW_MAX_S} s): it is also the warm-up of a new "
        f"instance, and a GPU instance takes minutes to boot; got {written} ({seconds} s)"
    )


def alarm_window_problem(seconds: int, written: str) -> str | None:
    if seconds <= ALARM_WINDOW_MAX_S:
        return None
    return (
        f"must be at most 1 day (CloudWatch evaluates an alarm over at most {ALARM_WINDOW_MAX_S} s), "
        f"got {written}"
    )


# ------------------------------------------------------------------------------------- JSON form


class JsonProblem(ValueError):
    """The spec's JSON form cannot be read; the message says why."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, item in pairs:
        if key in result:
            raise JsonProblem(f"the key {quote(key, 60)} is given twice in one object; keep one")
        result[key] = item
    return result


def _no_constant(name: str) -> Any:
    raise JsonProblem(f"{name} is not a number JSON allows; give a finite number")


def _safe_int(text: str) -> int:
    if len(text) > 20 or abs(int(text)) > MAX_SAFE_INTEGER:
        raise JsonProblem(f"the integer {quote(text, 40)} is too large: numbers are exact only up to 2^53")
    return int(text)


def parse_json(text: str) -> Any:
    """The spec's JSON form, refused (JsonProblem) where a stack file's YAML would be refused too."""
    if len(text) > MAX_JSON_CHARS:
        size = f"{len(text):,} characters"
        raise JsonProblem(f"a JSON string of {size}; at most {MAX_JSON_CHARS:,} are allowed")
    hooks: dict[str, Any] = {"parse_constant": _no_constant, "parse_int": _safe_int}
    try:
        return json.loads(text, object_pairs_hook=_unique_keys, **hooks)
    except JsonProblem:
        raise
    except RecursionError:
        raise JsonProblem("the JSON string is nested too deeply to be a fleet spec") from None
    except ValueError:
        raise JsonProblem("must be a mapping of fleet settings, got a string that is not JSON") from None
