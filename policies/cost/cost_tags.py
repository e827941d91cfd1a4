"""GF-COST-001: every taggable resource carries the cost tags (project, team, cost-center, env).

"Taggable" is decided from the SDKs: a resource type whose SDK class takes a `tags` input and that
carries cost of its own (the lists in `policies/cost/taggable/`, generated from the installed
pulumi-aws, pulumi-alicloud and tencentcloud-iac-pulumi). Objects inside a bucket (S3, OSS and COS
objects: the bucket is billed) and identity entities (IAM, RAM and CAM roles, policies, users,
instance profiles, identity providers) take tags but are not judged. Tag keys match
case-insensitively (`Project` counts as `project`).

- AWS: the resource's `tags` plus its provider's `defaultTags.tags`, except on Auto Scaling groups,
  which AWS providers never give default tags (the group's own `tags` list of {key, value,
  propagateAtLaunch} must carry them). Tags set by separate `aws:autoscaling/tag:Tag` resources are
  not seen by this resource policy.
- Alibaba Cloud and Tencent Cloud: the resource's `tags` (map, or list of {key, value}).
- Kubernetes: `metadata.labels` on the objects that run pods (Deployment, StatefulSet, DaemonSet,
  ReplicaSet, Job, CronJob, Pod) and on Namespaces; other objects are not cost carriers.

The env tag must also name the stack's own environment. The environment the stack's configuration
names (its `gpufleet:environment` stack tag, which the offline engine takes from the fleet spec's
`environment`, or its `env`/`environment` stack tags from `pulumi:tags`) decides which rules apply to
every resource of it; a stack name alone is a weaker word than a tag, and is not contradicted. A
resource tagged `env: prod` (or `environment`, `Environment`, `Env`, `stage`) in a dev stack is
a finding on every resource this rule judges: it would bill the cost to the wrong environment and
reads as an attempt to leave the dev rules, which it cannot (`gpufleet.policies.context.environment`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.components.clouds import KUBERNETES, part_of, part_values, profile
from gpufleet.policies.context import tag_environment_conflict, tags_of
from gpufleet.policies.cost._clouds import PARTS, and_list, sole
from gpufleet.policies.cost.taggable import BY_CLOUD, TAGGABLE
from gpufleet.policies.props import get
from gpufleet.policies.rule import GfResourcePolicy, Judges, Rule

K8S_COST_KINDS = frozenset(
    {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "Pod", "Namespace"}
)

RULE = Rule(
    id="GF-COST-001",
    name="resources-carry-cost-tags",
    description="Every taggable resource carries the cost tags (project, team, cost-center, env).",
    clouds=(*PARTS, KUBERNETES),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.MEDIUM,
    remediation=(
        f"Set the missing keys in the resource's `tags`{''.join(part_values(PARTS, 'TAGS_NOTE').values())}, "
        f"in `tags` on {and_list(profile(k).name for k, p in PARTS.items() if not hasattr(p, 'TAGS_NOTE'))} "
        "resources, and in `metadata.labels` on Kubernetes workloads and namespaces."
    ),
    url=sole(PARTS, "TAGS_URL"),
    config={
        "required": {
            "type": "array",
            "items": {"type": "string"},
            "default": ["project", "team", "cost-center", "env"],
        }
    },
)


def _uncosted(resource_type: str) -> str | None:
    """Why a type carries no cost tags or labels, or None when the policy judges it."""
    if resource_type.startswith("kubernetes:"):
        kind = resource_type.rsplit(":", 1)[-1]
        return None if kind in K8S_COST_KINDS else f"Kubernetes {kind} objects do not carry cost labels"
    if resource_type in TAGGABLE:
        return None
    return f"{resource_type} takes no tags or carries no cost of its own"


def _no_cost_reason(resource_type: str) -> str:
    return _uncosted(resource_type) or ""


def _environment_conflict(args: ResourceValidationArgs, report: ReportViolation) -> None:
    """An env tag naming another environment than the stack's."""
    if args.resource_type.startswith("kubernetes:"):
        return
    conflict = tag_environment_conflict(
        args.resource_type, args.props, args.urn, getattr(args, "stack_tags", None), args.provider
    )
    if conflict is None:
        return
    key, tagged, stack_env = conflict
    report(
        f"{args.resource_type} '{args.name}' is tagged {key}={tagged} in a {stack_env} stack; the stack's "
        f"environment decides which rules apply, so set {key}={stack_env} (or drop the tag)",
        None,
    )


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    resource_type = args.resource_type
    reason = _uncosted(resource_type)
    if reason is not None:
        args.not_applicable(reason)
    if resource_type.startswith("kubernetes:"):
        get(args.props, "metadata.labels")  # an unknown label map cannot be judged
        where = "metadata.labels"
    else:
        get(args.props, "tags")  # an unknown tag map cannot be judged
        where = "tags"
        _environment_conflict(args, report)
    tags: dict[str, Any] = dict(tags_of(resource_type, args.props))
    # The cloud's provider may add tags of its own (AWS `defaultTags`).
    owner = part_of(PARTS, resource_type)
    provider_tags: Callable[[str, Any], dict[str, Any]] | None = getattr(owner, "provider_default_tags", None)
    if provider_tags is not None:
        for key, value in provider_tags(resource_type, args.provider).items():
            tags.setdefault(key, value)
    present = {key.lower() for key, value in tags.items() if value not in (None, "")}
    required = [str(key) for key in RULE.settings(args)["required"]]
    missing = [key for key in required if key.lower() not in present]
    if not missing:
        return
    noun = "label" if where == "metadata.labels" else "tag"
    plural = "s" if len(missing) > 1 else ""
    report(
        f"{resource_type} '{args.name}' lacks the cost {noun}{plural} {', '.join(missing)}; "
        f"set {', '.join(required)} in `{where}`",
        None,
    )


POLICY = GfResourcePolicy(
    RULE,
    validate,
    Judges(
        predicate=lambda t: _uncosted(t) is None,
        others=_no_cost_reason,
        description=(
            f"every type whose SDK class takes `tags` and that carries cost ({len(TAGGABLE)} types of the "
            f"installed {and_list(profile(k).name for k in BY_CLOUD)} SDKs, listed in "
            "`policies/cost/taggable/`), "
            f"and the Kubernetes kinds {', '.join(sorted(K8S_COST_KINDS))} (`metadata.labels`)"
        ),
    ),
)
