"""Whether a statement's resources reach every resource an action acts on, judged by pattern.

A resource pattern is not "scoped" because it is spelt as an ARN: `arn:aws:s3:::*/*` (every object
of every bucket), `arn:aws:logs:*:*:*`, `arn:aws:iam::123456789012:*`, `arn:*:iam::*:role/*`,
`arn:aws:iam::1:role*` and `arn:aws:iam::1:role/?*` reach every resource of their service or type
just as `*` does. The test is made with probes: for each kind of resource an action acts on, a
resource that nobody would name (`role/zq9probe`, `zq9bucket/zq9key`) is written out as an ARN in
the pattern's own partition, region and account (those prefix fields are not a scope: a policy
lives in one account), and the pattern must match it. A statement reaches every resource of an
action when each of the action's probes is matched by one of its resources: `ec2:RunInstances`
needs an image, a subnet and a security group as well as the instance, so naming one subnet scopes
it; `iam:PassRole` needs only a role, so `role/*` in any account does not.

Alibaba Cloud (`acs:<service>:<region>:<account>:<resource>`) and Tencent Cloud
(`qcs:<project>:<service>:<region>:<account>:<resource>`) resources are judged the same way.
"""

from __future__ import annotations

from collections.abc import Callable

from gpufleet.components.clouds import cloud_parts
from gpufleet.policies.documents import Statement, resource_matches
from gpufleet.policies.rule_facts import by_cloud

# Each cloud's `SHAPE` (name prefix, number of fields, index of the service field), `PROBES` (action,
# lower-case -> the probes of every kind of resource it acts on) and `probe_fields` (a probe written out
# in placeholder fields) are in its module (`policies/iam/aws.py`, ...).
PARTS = cloud_parts("gpufleet.policies.iam")
_SHAPES: dict[str, tuple[str, int, int]] = by_cloud(PARTS, "SHAPE")
_PROBES: dict[str, dict[str, tuple[str, ...]]] = by_cloud(PARTS, "PROBES")
_PROBE_FIELDS: dict[str, Callable[[str, str], list[str]]] = by_cloud(PARTS, "probe_fields")
_ANY = ("zq9type/zq9probe",)
"""An action without a table row is reached only by a pattern that covers its whole service."""


def _probe_arn(pattern: str, cloud: str, service: str, resource: str) -> str:
    """The probe resource as an ARN in the pattern's own partition, region and account."""
    _, size, service_at = _SHAPES[cloud]
    fields = _PROBE_FIELDS[cloud](service, resource)
    given = pattern.split(":", size - 1)
    complete = len(given) == size
    for index in range(1, size - 1):
        if index >= len(given):
            break
        if "*" in given[index] or "?" in given[index]:
            if not complete:  # a wildcard that may span fields: the later ones are not where they seem
                break
            continue
        if index != service_at:
            fields[index] = given[index]
    return ":".join(fields)


def probes(cloud: str, action: str) -> tuple[tuple[str, str], ...]:
    """(service, resource part) for every kind of resource `action` (a table action) acts on."""
    own = action.split(":", 1)[0].lower()
    out = []
    for probe in _PROBES[cloud].get(action.lower(), _ANY):
        service, sep, resource = probe.partition("|")
        out.append((service, resource) if sep else (own, probe))
    return tuple(out)


def reaching(statement: Statement, cloud: str, action: str) -> tuple[str, ...]:
    """The statement's resource patterns that together reach every resource `action` acts on, or
    `()` when some kind of resource is scoped (or the statement names none). `NotResource` is not
    judged here: it reaches everything but what it lists."""
    used: list[str] = []
    for service, resource in probes(cloud, action):
        hits = [
            pattern
            for pattern in statement.resources
            if resource_matches(pattern, _probe_arn(pattern, cloud, service, resource))
        ]
        if not hits:
            return ()
        used.extend(hit for hit in hits if hit not in used)
    return tuple(used)


def covers_all(pattern: str, cloud: str, action: str) -> bool:
    """True when the one resource pattern reaches every resource `action` acts on."""
    statement = Statement(effect="allow", actions=(action,), resources=(pattern,))
    return bool(reaching(statement, cloud, action))
