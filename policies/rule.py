"""Rule metadata and the two policy kinds every gpufleet rule is built from.

A rule's id, name, description, severity, remediation and URL live once, on the policy object. The
policy's `description` starts with the rule id so that `pulumi preview --policy-pack` output names it.

Values that the engine cannot know at preview (outputs of resources not yet created) arrive as
unknown sentinels. A rule never passes a resource because a decisive value is unknown, and it never
blocks a preview for it either: the wrappers below collect every resource whose decisive value was
unknown, report every violation they could judge, and then raise one `Unjudged` error (an
`UnknownValueError`). The Pulumi engine turns that into its advisory "can't run policy during preview"
diagnostic, as it does for any unknown value, and judges the resource for real during `pulumi up`,
when the values are known. The offline evaluator does the same, one advisory finding per resource.

A rule never raises anything else either. A value that is present but not of the shape the rule reads
(`gpufleet.policies.props.Malformed`) is a finding of the rule, at the rule's enforcement, reading "cannot be
parsed: <field and problem>, <at most 200 characters of the value>". Any other exception escaping a
rule's judgement of one resource becomes the finding "could not be judged: internal error <type>" for
that rule and resource, and the other rules and resources are still judged. Without this, the Pulumi
engine's policy server would let the exception end the whole `Analyze` call, and with it every verdict
for the resource. Both findings go through `report_violation`, so `pulumi preview --policy-pack` and
`gpufleet check` report them alike.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Severity,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.policy import _NotApplicableError
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from gpufleet.components import clouds as registry
from gpufleet.policies import waivers
from gpufleet.policies.context import effective_tags, tags_of
from gpufleet.policies.props import Malformed

# The clouds a rule may judge: the registered clouds, then Kubernetes; by their letter in docs/rules.md.
CLOUDS = (*registry.CLOUDS, registry.KUBERNETES)
CLOUD_LETTERS = {
    **{p.letter: p.key for p in registry.PROFILES.values()},
    registry.KUBERNETES_LETTER: registry.KUBERNETES,
}
FAMILIES = {
    "STOR": "storage",
    "KMS": "kms",
    "ACC": "access",
    "IAM": "iam",
    "AUD": "audit",
    "NET": "network",
    "COST": "cost",
    "K8S": "k8s",
    "DR": "resilience",
    "OPS": "ops",
    "DEPLOY": "deploy",
    "FIT": "fit",
}
_ID = re.compile(r"^GF-(STOR|KMS|ACC|IAM|AUD|NET|COST|K8S|DR|OPS|DEPLOY|FIT)-\d{3}$")
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Rule:
    """One catalogue entry. `config` maps each config key to its JSON-schema (with `default`)."""

    id: str
    name: str
    description: str
    clouds: tuple[str, ...]
    enforcement: EnforcementLevel
    severity: Severity
    remediation: str
    url: str
    config: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    checkov: tuple[str, ...] = ()
    # False: a refusal no waiver can lift (what the cloud itself refuses): `waivable` may only be false
    # and the rule's violations never reach the waiver wrapper, whatever waivers the config lists.
    waivable: bool = True

    def __post_init__(self) -> None:
        if not _ID.match(self.id):
            raise ValueError(f"rule id {self.id!r} is not of the form GF-<FAMILY>-NNN")
        if not _NAME.match(self.name):
            raise ValueError(f"rule {self.id}: policy name {self.name!r} is not kebab-case")
        unknown = set(self.clouds) - set(CLOUDS)
        if unknown or not self.clouds:
            raise ValueError(f"rule {self.id}: clouds {sorted(unknown)} not in {CLOUDS}")
        for key, schema in self.config.items():
            if "default" not in schema:
                raise ValueError(f"rule {self.id}: config key {key!r} has no default")

    @property
    def family(self) -> str:
        return FAMILIES[self.id.split("-")[1]]

    def defaults(self) -> dict[str, Any]:
        return {key: schema["default"] for key, schema in self.config.items()}

    def config_schema(self) -> PolicyConfigSchema:
        """The rule's config keys plus `waivers` and `waivable`, which every policy accepts."""
        properties = {k: dict(v) for k, v in self.config.items()}
        properties.update(waivers.config_schema_properties(self.id, self.severity == Severity.CRITICAL))
        if not self.waivable:
            properties[waivers.WAIVABLE_KEY] = {
                "type": "boolean",
                "enum": [False],
                "description": "never: what the cloud refuses no waiver can make it accept",
            }
        return PolicyConfigSchema(properties=properties)

    def settings(self, args: ResourceValidationArgs | StackValidationArgs) -> dict[str, Any]:
        """The rule's config: its defaults overlaid with whatever the pack's config gives."""
        merged = self.defaults()
        given = args.get_config() or {}
        for key in self.config:
            if key in given and given[key] is not None:
                merged[key] = given[key]
        return merged


class CannotTell(UnknownValueError):
    """A known value the pack cannot judge from the SDK or the stack (a namespace no rule knows the
    publisher of, a managed policy whose grants are not in the stack). Reported like an unknown value,
    as advisory "could not be judged", never as a pass; `reason` says what is missing."""

    def __init__(self, reason: str, path: str) -> None:
        super().__init__(UNKNOWN_STRING_VALUE, [path])
        self.message = reason


def unknown_message(error: UnknownValueError, label: str | None = None) -> str:
    if isinstance(error, CannotTell):
        text = f"could not be judged: {error.message}"
    else:
        text = f"could not be judged at preview: the {error.message}"
    return f"{label} {text}" if label else text


@dataclass(frozen=True)
class UnjudgedEntry:
    """One resource (or, with no URN, the resource under validation) a rule could not judge."""

    urn: str | None
    error: UnknownValueError
    label: str | None = None

    @property
    def message(self) -> str:
        return unknown_message(self.error, self.label)


class Unjudged(UnknownValueError):
    """Raised once, after a policy reported everything it could judge, for what it could not."""

    def __init__(self, entries: list[UnjudgedEntry]) -> None:
        first = entries[0].error
        super().__init__(first.unknown_type_sentinel, first.props)
        self.entries = entries
        if len(entries) == 1:
            self.message = _unjudged_text(entries[0])
        else:
            listed = "; ".join(_unjudged_text(entry) for entry in entries)
            self.message = f"{len(entries)} resources could not be judged: {listed}"


def _unjudged_text(entry: UnjudgedEntry) -> str:
    name = entry.urn.rsplit("::", 1)[-1] if entry.urn else None
    return unknown_message(entry.error, entry.label or (f"'{name}'" if name else None))


def internal_error_message(error: BaseException) -> str:
    return f"could not be judged: internal error {type(error).__name__}"


@dataclass
class _Validation:
    """What one running validation collects: the resources it could not judge, and its reporter."""

    report: ReportViolation
    pending: list[UnjudgedEntry] = field(default_factory=list)
    failures: int = 0


_PENDING: ContextVar[_Validation | None] = ContextVar("gpufleet_unjudged", default=None)


def not_judged(urn: str | None, error: UnknownValueError, label: str | None = None) -> None:
    """Record that `urn` could not be judged because of `error`; raised after validation ends."""
    running = _PENDING.get()
    if running is None:
        raise error
    running.pending.append(UnjudgedEntry(urn, error, label))


def _failed(urn: str | None, error: Exception) -> None:
    """Report a malformed value or an internal error of one judgement, or raise it outside a policy."""
    running = _PENDING.get()
    if running is None:
        raise error
    message = error.message if isinstance(error, Malformed) else internal_error_message(error)
    running.failures += 1
    running.report(message, urn)


_URN_INDEX: list[tuple[Sequence[Any], int, dict[str, Any]]] = []
"""The last stack's resources and their URN index: every stack policy of a stack reads the same list, and
a stack policy's violations each look their resource up (a scan per violation grew with the square of
the stack). The list is held, so its identity cannot be taken by another list while it is cached; a
list that grew since is indexed again."""


def _by_urn(resources: Sequence[Any]) -> dict[str, Any]:
    """URN -> the first resource of `resources` with it, built once per resource list."""
    if _URN_INDEX and _URN_INDEX[0][0] is resources and _URN_INDEX[0][1] == len(resources):
        return _URN_INDEX[0][2]
    index: dict[str, Any] = {}
    for resource in resources:
        index.setdefault(resource.urn, resource)
    _URN_INDEX[:] = [(resources, len(resources), index)]
    return index


def _resource_at(args: Any, urn: str) -> tuple[str, Mapping[str, Any], Any] | None:
    """(type, props, provider) of the resource at `urn`: the one under validation, or one of the stack's."""
    if isinstance(args, ResourceValidationArgs):
        if urn == args.urn:
            return (args.resource_type, args.props, args.provider)
        return None
    resource = _by_urn(getattr(args, "resources", ()) or ()).get(urn)
    if resource is None:
        return None
    return (resource.resource_type, resource.props, resource.provider)


def _provider_keys(found: tuple[str, Mapping[str, Any], Any], tags: Mapping[str, Any]) -> frozenset[str]:
    """The keys among a resource's effective `tags` that come from its provider's default tags."""
    own = tags_of(found[0], found[1])
    return frozenset(key for key in tags if key not in own)


def _tags_at(args: Any, urn: str) -> tuple[Mapping[str, Any], frozenset[str]]:
    """The effective tags of the resource at `urn` (the one under validation, or one of the stack's), and
    the keys among them that come from its provider's default tags."""
    found = _resource_at(args, urn)
    if found is None:
        return {}, frozenset()
    tags = effective_tags(*found)
    return tags, _provider_keys(found, tags)


# A value the rule could not judge is never waived into a pass (nor is a value it could not parse).
_NEVER_WAIVED = ("could not be judged", "cannot be parsed")


def _waiving(rule: Rule, args: Any, report: ReportViolation) -> ReportViolation:
    """`report` with the waivers applied: a waived violation goes to `report.waived` (the host lowers it
    to advisory and lists it as waived); an expired, refused or invalid waiver is noted in the message of
    the violation, which keeps its level. A host without `waived` gets every violation as it is. The host's
    `waiver_settings` (the platform's waiver settings) govern which waivers may apply; without them, the
    pack's (`gpufleet.policies.waivers.settings`)."""
    lower = getattr(report, "waived", None)
    given = getattr(report, "waiver_settings", None)
    rule_id = rule.id
    critical = rule.severity == Severity.CRITICAL

    def report_violation(message: str, urn: str | None = None) -> None:
        # The engine attributes a resource policy's violation to the resource under validation.
        where = args.urn if isinstance(args, ResourceValidationArgs) else (urn or "")
        config = args.get_config() or {}
        # The provider's keys among the tags are only read when a waiver is judged: found lazily.
        found = _resource_at(args, where) if where else None
        tags: Mapping[str, Any] = effective_tags(*found) if found is not None else {}
        if (message or "").startswith(_NEVER_WAIVED) or (
            not config.get(waivers.WAIVERS_KEY)
            and not any(isinstance(k, str) and k.startswith(waivers.TAG_PREFIX) for k in tags)
        ):
            report(message, urn)
            return
        try:
            on = waivers.today()
        except ValueError as error:  # a bad $GPUFLEET_TODAY: no waiver applies, and the message says why
            report(f"{message}; waiver not applied: {error}", urn)
            return
        rules = given if isinstance(given, waivers.Settings) else waivers.settings()
        provider_keys = _provider_keys(found, tags) if found is not None else frozenset()
        decision = waivers.decide(rule_id, where, config, tags, on, critical, rules, provider_keys)
        if decision.waived and decision.waiver is not None and callable(lower):
            lower(message, urn, decision.waiver)
        elif decision.note:
            report(f"{message}; {decision.note}", urn)
        else:
            report(message, urn)

    return report_violation


def _guard(
    rule: Rule, validate: Callable[[Any, ReportViolation], None]
) -> Callable[[Any, ReportViolation], None]:
    # Runs once per resource and policy: a plain token set/reset, not a context manager.
    def guarded(args: Any, report: ReportViolation) -> None:
        # Findings of the guard itself (cannot be parsed, internal error) go to `report`: never waived.
        running = _Validation(report)
        pending = running.pending
        token = _PENDING.set(running)
        try:
            validate(args, _waiving(rule, args, report) if rule.waivable else report)
        except Unjudged as error:
            pending.extend(error.entries)
        except UnknownValueError as error:
            pending.append(UnjudgedEntry(None, error))
        except _NotApplicableError:
            # "Nothing here to judge" is only true when nothing was left unjudged or failed.
            if not pending and not running.failures:
                raise
        except Exception as error:  # a malformed value, or the last resort: never abort the run
            _failed(None, error)
        finally:
            _PENDING.reset(token)
        if pending:
            raise Unjudged(pending)

    return guarded


def _policy_args(rule: Rule, validate: Callable[[Any, ReportViolation], None]) -> dict[str, Any]:
    """The catalogue metadata, once, as pulumi_policy's Policy arguments."""
    return {
        "name": rule.name,
        "description": f"{rule.id}: {rule.description}",
        "validate": _guard(rule, validate),
        "enforcement_level": rule.enforcement,
        "config_schema": rule.config_schema(),
        "severity": rule.severity,
        "remediation_steps": rule.remediation,
        "url": rule.url,
    }


@dataclass(frozen=True)
class Judges:
    """The resource types a resource policy judges: exact type tokens, token prefixes, or a predicate.

    An optimisation only, for the offline evaluator: it does not call the policy for any other type.
    The policy's own type check stays, because the CrossGuard gRPC path calls it for every resource;
    so for every other type the policy must do nothing, or (with `others`) do nothing but call
    `args.not_applicable(others(resource_type))`, which the evaluator then records in its place.
    """

    tokens: frozenset[str] = frozenset()
    prefixes: tuple[str, ...] = ()
    predicate: Callable[[str], bool] | None = None
    others: Callable[[str], str] | None = None
    # What a predicate accepts, in words, for the rules reference.
    description: str = ""

    def __contains__(self, resource_type: object) -> bool:
        if not isinstance(resource_type, str):
            return False
        if resource_type in self.tokens or resource_type.startswith(self.prefixes):
            return True
        return self.predicate is not None and self.predicate(resource_type)

    def not_applicable(self, resource_type: str) -> str | None:
        """The reason the policy gives a type it does not judge, or None when it says nothing."""
        return None if self.others is None else self.others(resource_type)


def judges(*tokens: str | Iterable[str], prefixes: tuple[str, ...] = ()) -> Judges:
    """`Judges` from type tokens and collections of them (the constants a policy module already uses)."""
    found: set[str] = set()
    for item in tokens:
        found.update((item,) if isinstance(item, str) else item)
    return Judges(tokens=frozenset(found), prefixes=prefixes)


class GfResourcePolicy(ResourceValidationPolicy):
    """A resource policy that carries its catalogue rule and, optionally, the types it judges
    (`judges`; None: every type)."""

    rule: Rule
    judges: Judges | None

    def __init__(
        self,
        rule: Rule,
        validate: Callable[[ResourceValidationArgs, ReportViolation], None],
        judges: Judges | None = None,
    ) -> None:
        super().__init__(**_policy_args(rule, validate))
        self.rule = rule
        self.judges = judges


class GfStackPolicy(StackValidationPolicy):
    """A stack policy (joins resources) that carries its catalogue rule and, optionally, the types of
    the resources its findings are about (`judges`; the rules reference lists them). The types it only
    reads to join (roles, attachments, account defaults) are not among them.

    The validate callback should judge resource by resource through `judge(...)` (below) so that one
    unknown value stops the judgement of that resource only.
    """

    rule: Rule
    judges: Judges | None

    def __init__(
        self,
        rule: Rule,
        validate: Callable[[StackValidationArgs, ReportViolation], None],
        judges: Judges | None = None,
    ) -> None:
        super().__init__(**_policy_args(rule, validate))
        self.rule = rule
        self.judges = judges


GfPolicy = GfResourcePolicy | GfStackPolicy


def judge(urn: str | None, check: Callable[[], None]) -> bool:
    """Run one resource's judgement inside a policy; an unknown value defers it (reported as not judged
    when the policy ends), it never passes it. A malformed value or an internal error is reported for
    this resource and the policy goes on to the next. False when the judgement did not complete."""
    try:
        check()
    except Unjudged as error:
        for entry in error.entries:
            not_judged(entry.urn or urn, entry.error, entry.label)
        return False
    except UnknownValueError as error:
        not_judged(urn, error)
        return False
    except _NotApplicableError:
        raise
    except Exception as error:
        _failed(urn, error)
        return False
    return True


def validate_collecting(policy: GfPolicy, args: Any, report: Callable[[str, str | None], None]) -> None:
    """Run a policy and report what it could not judge as messages too (tests and direct callers)."""
    try:
        policy.validate(args, report)
    except Unjudged as error:
        for entry in error.entries:
            report(entry.message, entry.urn)
