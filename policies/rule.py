"""Rule metadata and the two policy kinds every gpufleet rule is built from.

A rule's id, name, description, severity, remediation and URL live once, on the policy object. The
policy's `description` starts with the rule id so that `pulumi preview --policy-pack` output names it.

Values that the engine cannot know at preview (outputs of resources not yet created) arrive as
unknown sentinels. A rule never passes a resource because a decisive value is unknown: the wrappers
below catch `UnknownValueError` per resource and report that the value could not be judged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
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
from pulumi_policy.proxy import UnknownValueError

CLOUDS = ("aws", "alicloud", "tencentcloud", "kubernetes")
CLOUD_LETTERS = {"A": "aws", "L": "alicloud", "T": "tencentcloud", "K": "kubernetes"}
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
}
_ID = re.compile(r"^GF-(STOR|KMS|ACC|IAM|AUD|NET|COST|K8S|DR)-\d{3}$")
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

    def config_schema(self) -> PolicyConfigSchema | None:
        if not self.config:
            return None
        return PolicyConfigSchema(properties={k: dict(v) for k, v in self.config.items()})

    def settings(self, args: ResourceValidationArgs | StackValidationArgs) -> dict[str, Any]:
        """The rule's config: its defaults overlaid with whatever the pack's config gives."""
        merged = self.defaults()
        given = args.get_config() or {}
        for key in self.config:
            if key in given and given[key] is not None:
                merged[key] = given[key]
        return merged


def unknown_message(error: UnknownValueError) -> str:
    return f"could not be judged at preview: the {error.message}"


class GfResourcePolicy(ResourceValidationPolicy):
    """A resource policy that carries its catalogue rule."""

    rule: Rule

    def __init__(
        self,
        rule: Rule,
        validate: Callable[[ResourceValidationArgs, ReportViolation], None],
    ) -> None:
        def guarded(args: ResourceValidationArgs, report: ReportViolation) -> None:
            try:
                validate(args, report)
            except UnknownValueError as error:
                report(unknown_message(error), None)

        super().__init__(
            name=rule.name,
            description=f"{rule.id}: {rule.description}",
            validate=guarded,
            enforcement_level=rule.enforcement,
            config_schema=rule.config_schema(),
            severity=rule.severity,
            remediation_steps=rule.remediation,
            url=rule.url,
        )
        self.rule = rule


class GfStackPolicy(StackValidationPolicy):
    """A stack policy (joins resources) that carries its catalogue rule.

    The validate callback should judge resource by resource through `each(...)` (below) so that one
    unknown value stops the judgement of that resource only.
    """

    rule: Rule

    def __init__(
        self,
        rule: Rule,
        validate: Callable[[StackValidationArgs, ReportViolation], None],
    ) -> None:
        def guarded(args: StackValidationArgs, report: ReportViolation) -> None:
            try:
                validate(args, report)
            except UnknownValueError as error:
                report(unknown_message(error), None)

        super().__init__(
            name=rule.name,
            description=f"{rule.id}: {rule.description}",
            validate=guarded,
            enforcement_level=rule.enforcement,
            config_schema=rule.config_schema(),
            severity=rule.severity,
            remediation_steps=rule.remediation,
            url=rule.url,
        )
        self.rule = rule


GfPolicy = GfResourcePolicy | GfStackPolicy


def judge(report: ReportViolation, urn: str | None, check: Callable[[], None]) -> None:
    """Run one resource's judgement inside a stack policy; an unknown value is reported, not passed."""
    try:
        check()
    except UnknownValueError as error:
        report(unknown_message(error), urn)
