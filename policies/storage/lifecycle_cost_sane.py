"""GF-STOR-006: lifecycle rules are valid and cost-sane for the cloud.

Judged per resource that carries lifecycle rules (inline `lifecycleRules` on S3 `Bucket`/`BucketV2`,
OSS and COS buckets; `rules` on `BucketLifecycleConfiguration[V2]`), rule by rule, for current and
noncurrent versions:

- a transition the cloud rejects: S3 STANDARD_IA/ONEZONE_IA before 30 days; S3 GLACIER_IR, GLACIER or
  DEEP_ARCHIVE less than 30 days after a STANDARD_IA/ONEZONE_IA transition; an S3 expiration that is
  not later than a transition;
- a transition into a class whose minimum storage duration outlives the expiry of the same rule
  (the object is billed to the end of the minimum even though it is deleted earlier). S3 and COS
  count the minimum from the move; OSS counts IA's and Archive's from the object's creation (last
  modification), so on OSS a move to IA at day 7 with deletion at day 30 meets IA's 30 days, and
  only ColdArchive and DeepColdArchive count from the move. For noncurrent versions the creation
  is not known; the version is taken as becoming noncurrent as soon as it was written;
- a transition that cannot pay off before the expiry: S3 INTELLIGENT_TIERING moves an object to its
  cheaper tier only after 30 days without access and charges transition and monitoring fees per
  object, so objects expired within 30 days of the move pay the fees and are never billed less.

The minimums are in `gpufleet.policies.storage._storage_classes`. Classes not listed there (e.g. STANDARD)
have no minimum and are not judged.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.components.clouds import part_values
from gpufleet.policies.rule import GfResourcePolicy, Rule, judges
from gpufleet.policies.rule_facts import clouds_with, sole
from gpufleet.policies.storage._buckets import PARTS, LifecycleRule, Transition, lifecycle_rules_of, part
from gpufleet.policies.storage._storage_classes import storage_class

RULE = Rule(
    id="GF-STOR-006",
    name="lifecycle-cost-sane",
    description=(
        "Lifecycle rules are valid and cost-sane for the cloud: no transition that the cloud rejects (e.g. "
        "S3 STANDARD_IA before 30 days), no transition into a class whose minimum storage duration "
        "outlives the expiry, no transition that cannot pay off before the expiry (S3 Intelligent-Tiering "
        "reaches its cheaper tier only after 30 days)."
    ),
    clouds=clouds_with(PARTS, "LIFECYCLE_REMEDIATION"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.MEDIUM,
    remediation=" ".join(
        [
            "Move objects only into classes whose minimum age and minimum storage duration fit before the "
            "rule's expiry.",
            *part_values(PARTS, "LIFECYCLE_REMEDIATION").values(),
            "Otherwise drop the transition and keep the expiry.",
        ]
    ),
    url=sole(PARTS, "LIFECYCLE_URL"),
)

# Resources carrying lifecycle rules: type -> (cloud, how findings name it).
CARRIERS: dict[str, tuple[str, str]] = {
    kind: (cloud, label)
    for cloud, carriers in part_values(PARTS, "LIFECYCLE_CARRIERS").items()
    for kind, label in carriers.items()
}


def _judge(
    cloud: str, where: str, transitions: tuple[Transition, ...], expiry: int | None, noncurrent: bool
) -> list[str]:
    problems = []
    age = "noncurrent versions" if noncurrent else "objects"
    for transition in transitions:
        target = storage_class(cloud, transition.storage_class)
        if target is None or transition.days is None:
            continue
        if transition.days < target.min_age_days:
            problems.append(
                f"{where} moves {age} to {target.name} after {transition.days} days; S3 rejects "
                f"{target.name} before {target.min_age_days} days (use INTELLIGENT_TIERING for earlier moves)"
            )
        if expiry is None:
            continue
        if getattr(part(cloud), "LIFECYCLE_EXPIRY_AFTER_TRANSITION", False) and expiry <= transition.days:
            problems.append(
                f"{where} expires {age} after {expiry} days, not later than its {target.name} transition "
                f"at {transition.days} days, which S3 rejects"
            )
        elif not target.pays_off(transition.days, expiry):
            cheaper = transition.days + target.cheaper_after_days
            problems.append(
                f"{where} moves {age} to {target.name} after {transition.days} days but expires them after "
                f"{expiry} days: {target.name} bills less only after {target.cheaper_after_days} days "
                f"without access (day {cheaper}), so the move pays transition and monitoring fees and never "
                "reaches a cheaper tier; drop the transition or keep them longer"
            )
        elif target.billed_until(transition.days) > expiry:
            counted = "counted from creation, " if target.counted_from_creation else ""
            problems.append(
                f"{where} moves {age} to {target.name} after {transition.days} days but expires them after "
                f"{expiry} days, before {target.name}'s {target.min_duration_days}-day minimum storage "
                f"duration ends ({counted}billed to day {target.billed_until(transition.days)}); move them "
                "later or drop the transition"
            )
    # A cloud that requires time in an infrequent-access class before a cold one names both kinds.
    ia_classes: frozenset[str] = getattr(part(cloud), "LIFECYCLE_IA", frozenset())
    cold_classes: frozenset[str] = getattr(part(cloud), "LIFECYCLE_COLD", frozenset())
    if ia_classes and cold_classes:
        for ia in (t for t in transitions if t.storage_class.upper() in ia_classes and t.days is not None):
            for cold in (
                t for t in transitions if t.storage_class.upper() in cold_classes and t.days is not None
            ):
                if cold.days is not None and ia.days is not None and 0 <= cold.days - ia.days < 30:
                    problems.append(
                        f"{where} moves {age} from {ia.storage_class} to {cold.storage_class} after "
                        f"{cold.days - ia.days} days; S3 requires 30 days in {ia.storage_class} first"
                    )
    return problems


def rule_problems(cloud: str, kind: str, name: str, rule: LifecycleRule) -> list[str]:
    where = f"{kind} '{name}' lifecycle rule {rule.label}"
    return _judge(cloud, where, rule.transitions, rule.expiration_days, noncurrent=False) + _judge(
        cloud, where, rule.noncurrent_transitions, rule.noncurrent_expiration_days, noncurrent=True
    )


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    carrier = CARRIERS.get(args.resource_type)
    if carrier is None:
        return
    cloud, kind = carrier
    for rule in lifecycle_rules_of(args.resource_type, args.props):
        for problem in rule_problems(cloud, kind, args.name, rule):
            report(problem, None)


POLICY = GfResourcePolicy(RULE, validate, judges(CARRIERS))
