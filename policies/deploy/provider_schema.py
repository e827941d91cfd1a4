"""GF-DEPLOY-001: values the provider's own schema refuses (what `pulumi preview` prints from Check).

A real `pulumi preview` runs each provider's Check: the bridged Terraform schema's validators (allowed
values, integer ranges, string lengths, patterns, required and mutually exclusive arguments). The
offline engine runs no provider, so without this rule a value the cloud refuses passes `gpufleet plan`
and `gpufleet check` and fails only at deploy. Under `pulumi preview --policy-pack` the rule repeats the
provider's verdict, harmlessly.

The constraints are data (`policies/deploy/`): `provider_schema.json`, extracted from the pinned
provider SDKs' docstrings by `python -m gpufleet.policies.deploy.generate` (`make deploy-constraints`; a test
fails when it is out of step with the installed SDKs), less what `overrides.json` drops as misread, plus
what `overrides.json` adds by hand, each entry with its source (SDK file and property, or the cloud's
API reference). Kinds: one of a set of values, a numeric range, a string length, a pattern, a required
argument, arguments that conflict, exactly one of several, and an argument that needs others.

Every refusal of a resource is reported, one finding each, naming the property path, the value and what
is allowed. A value unknown at preview is skipped (the provider cannot judge it either); a secret value
is judged but shown as `[secret]`. The rule is not waivable: no waiver makes a cloud accept a value.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.components.clouds import cloud_parts
from gpufleet.policies.deploy._constraints import grouped, problems, table, top_fields
from gpufleet.policies.deploy._values import Found
from gpufleet.policies.rule import GfResourcePolicy, Judges, Rule

RULE = Rule(
    id="GF-DEPLOY-001",
    name="provider-schema-valid",
    description=(
        "Resource arguments hold values the provider's schema accepts (allowed values, ranges, lengths, "
        "patterns, required and exclusive arguments), as `pulumi preview` checks them."
    ),
    clouds=tuple(cloud_parts("gpufleet.policies.deploy")),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "Set the argument the finding names to a value it lists as allowed (the source after the message "
        "says where the constraint is documented); a real `pulumi preview` or `pulumi up` would refuse it."
    ),
    url="https://www.pulumi.com/docs/iac/concepts/how-pulumi-works/#resource-providers",
    waivable=False,
)


def label(resource_type: str, name: str) -> str:
    return f"{resource_type} '{name}'"


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    runs = grouped().get(args.resource_type)
    if not runs:
        return
    fields = top_fields(args.props)
    walks: dict[str, list[Found]] = {}
    for field, entries in runs:
        if field is not None and fields is not None and field not in fields:
            continue  # every entry of the run judges under a field the resource does not set
        for entry in entries:
            for problem in problems(args.props, entry, walks):
                report(f"{label(args.resource_type, args.name)}: {problem} [{entry['source']}]", None)


POLICY = GfResourcePolicy(RULE, validate, Judges(predicate=lambda token: token in table()))
