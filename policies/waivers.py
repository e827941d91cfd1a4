"""Waivers: one resource exempted from one rule, with a reason, an owner and an expiry date.

Two forms, read the same way by the pack under `pulumi preview --policy-pack` and by `gpufleet check`:

- per rule in policy-config.json, as the rule's `waivers` config property (every policy's configSchema
  accepts it, so the Pulumi CLI validates it and sends it to the pack with `Configure`):

      "GF-STOR-001": {"waivers": [{"resource": "aws:s3/bucket:Bucket::legacy-*", "reason": "...",
                                   "owner": "data-team", "expires": "2027-01-31"}]}

  `resource` is a full URN (`urn:pulumi:...`, matched exactly) or a glob on `<type token>::<name>`
  matched with `fnmatch.fnmatchcase` (`*`, `?`, `[seq]`; case-sensitive; `*` also crosses `:` and `/`);
- on the resource itself, a tag (a label on Kubernetes objects) read from its effective tags:
  `gpufleet:waive:GF-STOR-001 = "<reason>; owner=<x>; expires=YYYY-MM-DD"`.

A waiver applies from its definition until the end of its `expires` day; from the next day it is
expired: the violation is reported at the rule's level again, and the message says the waiver expired.
A waiver that expires within `WARN_DAYS` days still applies and carries a warning. A rule whose
`waivable` config is false (the default for a rule of severity critical) refuses every waiver. Only
violations are waived: "could not be judged" (an unknown value, a value that cannot be parsed, an
internal error) never is.

The platform's `waivers` settings (`Settings`, the top-level `waivers` object of the platform's policy
config) govern which waivers may apply at all: tags are off unless `allow_tags` is true, a waiver may not
run more than `max_days` days past today, its owner must be one of `owners` when that list is given, and
(always) a resource glob may not match every resource of more than one type, a reason must say something,
and a provider default tag, which lands on every resource of the provider, never waives. A waiver these
refuse applies to nothing: the violation keeps its level and says why.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from gpufleet.policies.cloud_facts import PARTS
from gpufleet.policies.props import is_unknown
from gpufleet.policies.rule_facts import sole

WAIVERS_KEY = "waivers"
WAIVABLE_KEY = "waivable"
SETTINGS_KEY = "waivers"
"""The platform's waiver settings: a top-level key of the policy config (beside `all`), not a policy."""
TAG_PREFIX = "gpufleet:waive:"
WARN_DAYS = 14
DEFAULT_MAX_DAYS = 90
MIN_REASON_CHARS = 10
NOT_WAIVABLE_BY_DEFAULT = frozenset({"GF-STOR-003", "GF-ACC-001"})
"""Besides every rule of severity critical (both of these are critical too)."""
WAIVER_FIELDS = ("resource", "reason", "owner", "expires")
TODAY_ENV = "GPUFLEET_TODAY"
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_RULE_ID = re.compile(r"^GF-[A-Z0-9]+-\d{3}$")
_MAX_TEXT = 500

WAIVER_ITEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "resource": {"type": "string", "description": "a URN, or a glob (fnmatch) on `<type>::<name>`"},
        "reason": {"type": "string"},
        "owner": {"type": "string"},
        "expires": {"type": "string", "description": "YYYY-MM-DD, the last day the waiver applies"},
    },
    "required": list(WAIVER_FIELDS),
    "additionalProperties": False,
}


def config_schema_properties(rule_id: str, critical: bool = False) -> dict[str, dict[str, Any]]:
    """The `waivers` and `waivable` properties every policy's configSchema carries. No `default`: the
    Pulumi CLI would then send them to every policy, and a policy without them behaves the same."""
    waivable = not critical and rule_id not in NOT_WAIVABLE_BY_DEFAULT
    return {
        WAIVERS_KEY: {"type": "array", "items": WAIVER_ITEM_SCHEMA},
        WAIVABLE_KEY: {
            "type": "boolean",
            "description": f"whether this rule accepts waivers (default {str(waivable).lower()})",
        },
    }


# --- the clock ---------------------------------------------------------------------------------------


def _system_today() -> date:
    fixed = os.environ.get(TODAY_ENV)
    if fixed:
        try:
            return date.fromisoformat(fixed)
        except ValueError:
            raise ValueError(f"${TODAY_ENV}: {fixed[:40]!r} is not a date; expected YYYY-MM-DD") from None
    return date.today()


_clock: Callable[[], date] = _system_today


def today() -> date:
    """The date waivers are judged on: the injected clock, `$GPUFLEET_TODAY` (YYYY-MM-DD), or today."""
    return _clock()


def set_clock(clock: Callable[[], date] | None) -> None:
    """Inject a clock (tests, replays); None restores the system one."""
    global _clock  # noqa: PLW0603 - one process-wide clock, like the system one
    _clock = clock or _system_today


# --- the platform's settings -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """The platform's waiver settings (the policy config's top-level `waivers` object)."""

    allow_tags: bool = False
    """Whether `gpufleet:waive:*` tags on resources may waive anything (off: each is a finding)."""
    max_days: int = DEFAULT_MAX_DAYS
    """The furthest `expires` may be after today, in days."""
    owners: tuple[str, ...] | None = None
    """The owners a waiver may name; None: any."""
    file: str = "policy-config.json"
    """The file the settings and the config waivers come from (reports name it)."""


SETTINGS_FIELDS = ("allow_tags", "max_days", "owners")
MAX_DAYS_LIMIT = 3650
SETTINGS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "allow_tags": {
            "type": "boolean",
            "description": "whether gpufleet:waive:* tags on resources may waive (default false)",
        },
        "max_days": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_DAYS_LIMIT,
            "description": "the furthest a waiver may expire after today, in days "
            f"(default {DEFAULT_MAX_DAYS})",
        },
        "owners": {
            "type": "array",
            "items": {"type": "string"},
            "description": "the owners a waiver may name (default: any)",
        },
    },
    "additionalProperties": False,
}


def parse_settings(value: Any, where: str, file: str = "policy-config.json") -> tuple[Settings, list[str]]:
    """The `waivers` settings object: the settings, and one problem per bad field (naming the field and
    the values allowed). With problems the defaults (the strictest) are returned."""
    if value is None:
        return Settings(file=file), []
    if not isinstance(value, Mapping):
        shown = json.dumps(value, default=str)[:40]
        return Settings(file=file), [
            f"{where}: {shown} is not allowed; expected an object with {', '.join(SETTINGS_FIELDS)}"
        ]
    problems: list[str] = []
    for key in value:
        if key not in SETTINGS_FIELDS:
            problems.append(f"{where}.{key}: unknown key; allowed keys: {', '.join(SETTINGS_FIELDS)}")
    allow_tags = value.get("allow_tags", False)
    if not isinstance(allow_tags, bool):
        shown = json.dumps(allow_tags, default=str)[:40]
        problems.append(f"{where}.allow_tags: {shown} is not allowed; expected true or false")
    max_days = value.get("max_days", DEFAULT_MAX_DAYS)
    if isinstance(max_days, float) and max_days.is_integer():
        max_days = int(max_days)
    if not isinstance(max_days, int) or isinstance(max_days, bool) or not 1 <= max_days <= MAX_DAYS_LIMIT:
        shown = json.dumps(max_days, default=str)[:40]
        problems.append(
            f"{where}.max_days: {shown} is not allowed; expected an integer from 1 to {MAX_DAYS_LIMIT} "
            f"(days; default {DEFAULT_MAX_DAYS})"
        )
    owners = value.get("owners")
    if owners is not None and (
        not isinstance(owners, Sequence)
        or isinstance(owners, str)
        or not owners
        or not all(_text(item) for item in owners)
    ):
        shown = json.dumps(owners, default=str)[:60]
        problems.append(
            f"{where}.owners: {shown} is not allowed; expected a non-empty array of non-empty strings "
            "(the owners a waiver may name), or no key for any owner"
        )
    if problems:
        return Settings(file=file), problems
    listed = tuple(str(_text(item)) for item in owners) if owners is not None else None
    return Settings(bool(allow_tags), int(max_days), listed, file), []


_settings = Settings()


def settings() -> Settings:
    """The pack's waiver settings when its host gives none (`pulumi preview`: read from the project's
    policy config when the pack starts; the defaults otherwise)."""
    return _settings


def set_settings(value: Settings | None) -> None:
    global _settings  # noqa: PLW0603 - one process-wide setting, like the clock
    _settings = value or Settings()


# --- waivers -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Waiver:
    rule_id: str
    resource: str
    """A URN, or a glob on `type::name` (config form); the resource's URN (tag form)."""
    reason: str
    owner: str
    expires: date
    source: str
    """`policy-config` or `tag <key>`."""

    def matches(self, urn: str) -> bool:
        """A waiver is about a resource: a violation of the whole stack (no URN) is never waived."""
        if not urn:
            return False
        if self.resource.startswith("urn:"):
            return self.resource == urn
        return fnmatch.fnmatchcase(type_and_name(urn), self.resource)

    def days_left(self, on: date) -> int:
        return (self.expires - on).days

    def state(self, on: date) -> str:
        """`active`, `expiring` (within WARN_DAYS days) or `expired` (after its expires day)."""
        left = self.days_left(on)
        if left < 0:
            return "expired"
        return "expiring" if left <= WARN_DAYS else "active"

    def describe(self, on: date) -> str:
        state = self.state(on)
        if state == "expired":
            when = f"expired {self.expires.isoformat()}"
        else:
            when = f"until {self.expires.isoformat()}"
            if state == "expiring":
                when += f", expires in {self.days_left(on)} day{'s' if self.days_left(on) != 1 else ''}"
        return f"{self.reason} (owner {self.owner}, {when}, {self.source})"

    def to_json(self, on: date) -> dict[str, Any]:
        return {
            "rule_id": self.rule_id,
            "resource": self.resource,
            "reason": self.reason,
            "owner": self.owner,
            "expires": self.expires.isoformat(),
            "source": self.source,
            "state": self.state(on),
            "days_left": self.days_left(on),
        }


def type_and_name(urn: str) -> str:
    """`<type>::<name>` of a URN (`urn:pulumi:stack::project::parent$type::name`)."""
    parts = urn.split("::")
    if len(parts) < 4:
        return urn
    qualified = parts[2]
    return f"{qualified.rsplit('$', 1)[-1]}::{'::'.join(parts[3:])}"


def _text(value: Any) -> str | None:
    """A non-empty string of at most 500 characters (never cut: a shortened glob would match more)."""
    if not isinstance(value, str) or is_unknown(value):
        return None
    text = value.strip()
    return text if text and len(text) <= _MAX_TEXT else None


def parse_date(value: Any) -> date | None:
    text = _text(value)
    if text is None or not _DATE.match(text):
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def parse_config_waivers(rule_id: str, value: Any, where: str) -> tuple[list[Waiver], list[str]]:
    """The `waivers` config of one rule: the waivers and one problem per bad entry (naming its field)."""
    if value is None:
        return [], []
    if not isinstance(value, Sequence) or isinstance(value, str):
        return [], [f"{where}: expected an array of {{resource, reason, owner, expires}}"]
    waivers: list[Waiver] = []
    problems: list[str] = []
    for index, item in enumerate(value):
        at = f"{where}[{index}]"
        if not isinstance(item, Mapping):
            problems.append(f"{at}: expected an object with {', '.join(WAIVER_FIELDS)}")
            continue
        bad = [
            f"{at}.{key}: unknown key; allowed: {', '.join(WAIVER_FIELDS)}"
            for key in item
            if key not in WAIVER_FIELDS
        ]
        texts: dict[str, str] = {}
        for key in ("resource", "reason", "owner"):
            text = _text(item.get(key))
            if text is None:
                bad.append(
                    f"{at}.{key}: missing or empty; expected a non-empty string (at most 500 characters)"
                )
            else:
                texts[key] = text
        expires = parse_date(item.get("expires"))
        if expires is None:
            shown = json.dumps(item.get("expires"), default=str)[:40]
            bad.append(f"{at}.expires: {shown} is not a date; expected YYYY-MM-DD (the last day it applies)")
        if bad:
            problems.extend(bad)
            continue
        assert expires is not None
        waivers.append(
            Waiver(rule_id, texts["resource"], texts["reason"], texts["owner"], expires, "policy-config")
        )
    return waivers, problems


PROVIDER_TAG = "provider default tag "
_WILDCARD = re.compile(r"[*?\[]")
# The type token a refusal names as the example of one type: the one cloud's facts module that gives one
# (`sole`: none or a second one is an import-time error naming the modules).
EXAMPLE_TYPE: str = sole(PARTS, "EXAMPLE_TYPE")


def parse_tag(
    key: str, value: Any, urn: str, *, from_provider: bool = False
) -> tuple[Waiver | None, str | None]:
    """One `gpufleet:waive:<RULE-ID>` tag: the waiver, or the problem naming the tag. A tag the resource
    gets from its provider's default tags is read the same way, with its own source (it never waives)."""
    rule_id = key[len(TAG_PREFIX) :].strip()
    kind = PROVIDER_TAG.strip() if from_provider else "tag"
    where = f"{kind} {key!r} on {urn}"
    if _WILDCARD.search(rule_id):
        return None, f"{where}: {rule_id[:40]!r} is a wildcard; a waiver names one rule id (GF-<FAMILY>-NNN)"
    if not _RULE_ID.match(rule_id):
        return None, f"{where}: {rule_id[:40]!r} is not a rule id; expected {TAG_PREFIX}GF-<FAMILY>-NNN"
    if is_unknown(value):
        return None, f"{where}: the value is unknown at preview; a waiver must be a literal tag value"
    text = _text(value)
    if text is None:
        expected = '"<reason>; owner=<team>; expires=YYYY-MM-DD"'
        return None, f"{where}: empty or longer than 500 characters; expected {expected}"
    reason, *fields = [part.strip() for part in text.split(";")]
    found: dict[str, str] = {}
    for part in fields:
        name, sep, item = part.partition("=")
        name = name.strip().lower()
        if not sep or name not in ("owner", "expires"):
            return None, f"{where}: {part[:40]!r} is not owner=<x> or expires=YYYY-MM-DD"
        if name in found:
            return None, (
                f"{where}: {name}= is given twice; a waiver says each of owner= and expires= once "
                "(unreadable, not applied)"
            )
        found[name] = item.strip()
    missing = [name for name in ("owner", "expires") if not found.get(name)]
    if not reason or missing:
        what = ", ".join((["reason"] if not reason else []) + missing)
        return None, f'{where}: missing {what}; expected "<reason>; owner=<team>; expires=YYYY-MM-DD"'
    expires = parse_date(found["expires"])
    if expires is None:
        return None, f"{where}: expires={found['expires'][:40]!r} is not a date; expected YYYY-MM-DD"
    source = f"{PROVIDER_TAG}{key}" if from_provider else f"tag {key}"
    return Waiver(rule_id, urn, reason, found["owner"], expires, source), None


def tag_waivers(
    tags: Mapping[str, Any], urn: str, provider_keys: frozenset[str] | set[str] = frozenset()
) -> tuple[list[Waiver], list[str]]:
    waivers: list[Waiver] = []
    problems: list[str] = []
    for key, value in tags.items():
        if isinstance(key, str) and key.startswith(TAG_PREFIX):
            waiver, problem = parse_tag(key, value, urn, from_provider=key in provider_keys)
            if waiver is not None:
                waivers.append(waiver)
            if problem is not None:
                problems.append(problem)
    return waivers, problems


def waivable(rule_id: str, config: Mapping[str, Any] | None, critical: bool = False) -> bool:
    """The rule's `waivable` config when given; by default every rule but the critical ones."""
    value = (config or {}).get(WAIVABLE_KEY)
    return value if isinstance(value, bool) else not critical and rule_id not in NOT_WAIVABLE_BY_DEFAULT


def not_waivable(rule_id: str, config: Mapping[str, Any] | None) -> str:
    """Why the rule refuses waivers, for messages."""
    if isinstance((config or {}).get(WAIVABLE_KEY), bool):
        return f"{rule_id} is not waivable (waivable: false)"
    return (
        f"{rule_id} is not waivable (severity critical: not waivable unless the platform config sets "
        "`waivable: true` for it)"
    )


# --- what the platform refuses ---------------------------------------------------------------------------


def broad_glob(pattern: str) -> str | None:
    """Why a resource glob matches too much, or None. A URN is exact. A glob must keep to one resource
    type when it matches every name: `*`, `**`, `*::*`, `aws:*::*` and `aws:s3/*::*` are refused,
    `aws:s3/bucket:Bucket::*` (every bucket) and `*::legacy-logs` (one name) are not."""
    if pattern.startswith("urn:") or not _WILDCARD.search(pattern):
        return None
    type_part, sep, name_part = pattern.partition("::")
    if not sep:
        return (
            f"{pattern!r} has no `::` between type and name, and `*` crosses `::`: it matches every "
            "resource; write <type token>::<name glob>"
        )
    every_name = not re.sub(r"\[[^\]]*\]|[*?]", "", name_part)
    if every_name and _WILDCARD.search(type_part):
        return (
            f"{pattern!r} matches every resource of more than one type; name one type token "
            f"({EXAMPLE_TYPE}::*) or the resources (<type>::legacy-*)"
        )
    return None


def vague_reason(reason: str) -> str | None:
    """Why a reason says nothing, or None: fewer than MIN_REASON_CHARS characters, or one word repeated."""
    text = reason.strip()
    words = re.findall(r"\w+", text.lower())
    if len(text) < MIN_REASON_CHARS:
        return f"the reason {text[:40]!r} is shorter than {MIN_REASON_CHARS} characters; say why"
    if len(set(words)) <= 1:
        return f"the reason {text[:40]!r} is one word repeated; say why"
    return None


def refusal(waiver: Waiver, settings: Settings, on: date) -> str | None:
    """Why the platform's settings refuse `waiver` (it then applies to nothing), or None. Whether its rule
    is waivable is asked separately (`waivable`)."""
    if waiver.source.startswith(PROVIDER_TAG):
        return (
            "a provider default tag lands on every resource of the provider and never waives; "
            "tag the resource itself"
        )
    if waiver.source.startswith("tag ") and not settings.allow_tags:
        return (
            f"tag waivers are off (`waivers.allow_tags` is not true in {settings.file}); "
            "ask the platform team for a waiver there"
        )
    broad = broad_glob(waiver.resource)
    if broad:
        return f"the resource glob {broad}"
    vague = vague_reason(waiver.reason)
    if vague:
        return vague
    if settings.owners is not None and waiver.owner not in settings.owners:
        listed = ", ".join(settings.owners)
        return f"owner {waiver.owner[:40]!r} is not one of `waivers.owners` in {settings.file} ({listed})"
    ahead = waiver.days_left(on)
    if ahead > settings.max_days:
        return (
            f"expires {waiver.expires.isoformat()}, {ahead} days after {on.isoformat()}; at most "
            f"{settings.max_days} days ahead (`waivers.max_days` in {settings.file})"
        )
    return None


# --- the decision on one violation ---------------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    """What the waivers say about one violation: `waived` (the waiver applies), or a note for the message
    of a violation that stays (an expired, refused or malformed waiver)."""

    waiver: Waiver | None = None
    note: str | None = None

    @property
    def waived(self) -> bool:
        return self.waiver is not None and self.note is None


def decide(  # noqa: PLR0917 - the violation, its config and tags, the date, the rule, the settings
    rule_id: str,
    urn: str,
    config: Mapping[str, Any] | None,
    tags: Mapping[str, Any] | None,
    on: date,
    critical: bool = False,
    settings: Settings | None = None,
    provider_keys: frozenset[str] | set[str] = frozenset(),
) -> Decision:
    """The decision for a violation of `rule_id` at `urn`: config waivers first, then the resource's tag.
    A waiver the platform's settings refuse applies to nothing, and the violation says why."""
    rules = settings or _settings
    candidates: list[Waiver] = []
    notes: list[str] = []
    parsed, problems = _config_waivers(rule_id, (config or {}).get(WAIVERS_KEY))
    candidates += [w for w in parsed if w.matches(urn)]
    if problems:
        notes.append("a waiver in the policy config is invalid: " + "; ".join(problems[:3]))
    key = TAG_PREFIX + rule_id
    if tags and key in tags:
        waiver, problem = parse_tag(key, tags[key], urn, from_provider=key in provider_keys)
        if waiver is not None:
            candidates.append(waiver)
        if problem is not None:
            notes.append(f"waiver not applied: {problem}")
    if not candidates:
        return Decision(note="; ".join(notes) or None)
    if not waivable(rule_id, config, critical):
        return Decision(candidates[0], f"waiver refused: {not_waivable(rule_id, config)}")
    refused = [(w, refusal(w, rules, on)) for w in candidates]
    accepted = [w for w, why in refused if why is None]
    live = [w for w in accepted if w.state(on) != "expired"]
    if live:
        return Decision(max(live, key=lambda w: w.expires))
    if accepted:
        latest = max(accepted, key=lambda w: w.expires)
        return Decision(latest, f"waiver not applied, it expired: {latest.describe(on)}")
    first, why = refused[0]
    return Decision(first, f"waiver refused: {why} ({first.source})")


_PARSED: dict[str, tuple[list[Waiver], list[str]]] = {}


def _config_waivers(rule_id: str, value: Any) -> tuple[list[Waiver], list[str]]:
    """Parsed once per distinct config (the pack is called once per resource and policy)."""
    if not value:
        return [], []
    try:
        key = rule_id + json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return parse_config_waivers(rule_id, value, f"{rule_id}.{WAIVERS_KEY}")
    found = _PARSED.get(key)
    if found is None:
        if len(_PARSED) > 1024:
            _PARSED.clear()
        found = _PARSED[key] = parse_config_waivers(rule_id, value, f"{rule_id}.{WAIVERS_KEY}")
    return found


def waived_message(message: str, waiver: Waiver, on: date) -> str:
    return f"{message}; waived: {waiver.describe(on)}"
