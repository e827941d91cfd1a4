from __future__ import annotations

from gpufleet.policies.cost.cost_tags import POLICY, RULE

from .helpers import UNKNOWN_STR, check_resource

TAGS = {"project": "vision", "team": "ml", "cost-center": "cc-042", "env": "dev"}


def test_rule_metadata() -> None:
    assert (RULE.id, POLICY.name, RULE.clouds) == (
        "GF-COST-001",
        "resources-carry-cost-tags",
        ("aws", "alicloud", "tencentcloud", "kubernetes"),
    )
    assert RULE.defaults() == {"required": ["project", "team", "cost-center", "env"]}


def test_compliant_per_cloud() -> None:
    assert check_resource(POLICY, "aws:s3/bucket:Bucket", {"tags": TAGS}) == []
    assert check_resource(POLICY, "alicloud:ecs/instance:Instance", {"tags": TAGS}) == []
    assert check_resource(POLICY, "tencentcloud:Instance/instance:Instance", {"tags": TAGS}) == []
    assert check_resource(POLICY, "kubernetes:apps/v1:Deployment", {"metadata": {"labels": TAGS}}) == []


def test_missing_tags_named() -> None:
    tags = {k: v for k, v in TAGS.items() if k not in ("cost-center", "env")}
    assert check_resource(POLICY, "aws:s3/bucket:Bucket", {"tags": tags}, name="ckpt") == [
        "aws:s3/bucket:Bucket 'ckpt' lacks the cost tags cost-center, env; "
        "set project, team, cost-center, env in `tags`"
    ]
    assert check_resource(POLICY, "tencentcloud:Cos/bucket:Bucket", {}, name="b") == [
        "tencentcloud:Cos/bucket:Bucket 'b' lacks the cost tags project, team, cost-center, env; "
        "set project, team, cost-center, env in `tags`"
    ]
    assert check_resource(
        POLICY, "kubernetes:batch/v1:Job", {"metadata": {"labels": {**TAGS, "team": ""}}}, name="train"
    ) == [
        "kubernetes:batch/v1:Job 'train' lacks the cost label team; set project, team, cost-center, env "
        "in `metadata.labels`"
    ]


def test_keys_match_case_insensitively() -> None:
    tags = {"Project": "v", "Team": "t", "Cost-Center": "c", "Env": "dev"}
    assert check_resource(POLICY, "alicloud:oss/bucket:Bucket", {"tags": tags}) == []


def test_aws_provider_default_tags_count_except_on_asg() -> None:
    defaults = {"defaultTags": {"tags": TAGS}}
    assert check_resource(POLICY, "aws:ec2/launchTemplate:LaunchTemplate", {}, provider_props=defaults) == []
    assert check_resource(
        POLICY, "aws:autoscaling/group:Group", {"maxSize": 1}, name="gpu", provider_props=defaults
    ) == [
        "aws:autoscaling/group:Group 'gpu' lacks the cost tags project, team, cost-center, env; "
        "set project, team, cost-center, env in `tags`"
    ]


def test_asg_tag_list_shape() -> None:
    tags = [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]
    assert check_resource(POLICY, "aws:autoscaling/group:Group", {"tags": tags}) == []


def test_not_applicable() -> None:
    assert check_resource(POLICY, "aws:iam/rolePolicy:RolePolicy", {}) == (
        "n/a: aws:iam/rolePolicy:RolePolicy takes no tags or carries no cost of its own"
    )
    assert check_resource(POLICY, "kubernetes:core/v1:ConfigMap", {}) == (
        "n/a: Kubernetes ConfigMap objects do not carry cost labels"
    )


def test_unknown_tag_map_is_not_judged_but_unknown_value_counts_as_set() -> None:
    assert check_resource(POLICY, "aws:s3/bucket:Bucket", {"tags": UNKNOWN_STR}, proxy=True) == [
        "could not be judged at preview: the string value at .tags can't be known during preview"
    ]
    assert check_resource(POLICY, "aws:s3/bucket:Bucket", {"tags": {**TAGS, "team": UNKNOWN_STR}}) == []


def test_proxied_props_and_config_override() -> None:
    config = {"required": ["owner"]}
    assert check_resource(
        POLICY, "aws:s3/bucket:Bucket", {"tags": TAGS}, config=config, proxy=True, name="b"
    ) == ["aws:s3/bucket:Bucket 'b' lacks the cost tag owner; set owner in `tags`"]
