"""Provider default tags as every tag-based rule reads them (`gpufleet.policies.context.effective_tags`)."""

from __future__ import annotations

import json

from gpufleet.policies.context import effective_tags, environment, provider_default_tags
from tests.policies.support import UNKNOWN_STRING_VALUE, provider, unknown_checking_proxy

BUCKET = "aws:s3/bucket:Bucket"
ASG = "aws:autoscaling/group:Group"
ENCODED = {"defaultTags": json.dumps({"tags": {"env": "prod", "team": "ml"}})}


def test_encoded_and_plain_default_tags_read_alike() -> None:
    assert provider_default_tags(provider("aws", ENCODED)) == {"env": "prod", "team": "ml"}
    assert provider_default_tags(provider("aws", {"defaultTags": {"tags": {"env": "dev"}}})) == {"env": "dev"}
    proxied = provider("aws", unknown_checking_proxy(dict(ENCODED)))
    assert provider_default_tags(proxied) == {"env": "prod", "team": "ml"}


def test_unreadable_or_foreign_default_tags_are_none() -> None:
    assert provider_default_tags(None) == {}
    assert provider_default_tags(provider("aws", {"defaultTags": "{not json"})) == {}
    assert provider_default_tags(provider("aws", {"defaultTags": UNKNOWN_STRING_VALUE})) == {}
    assert provider_default_tags(provider("aws", {"defaultTags": json.dumps({"tags": 5})})) == {}
    assert provider_default_tags(provider("alicloud", ENCODED)) == {}


def test_own_tags_win_and_groups_get_no_defaults() -> None:
    prov = provider("aws", ENCODED)
    assert effective_tags(BUCKET, {"tags": {"env": "dev"}}, prov) == {"env": "dev", "team": "ml"}
    group_tags = [{"key": "project", "value": "x", "propagateAtLaunch": True}]
    assert effective_tags(ASG, {"tags": group_tags}, prov) == {"project": "x"}
    assert effective_tags("alicloud:oss/bucket:Bucket", {"tags": {"a": "b"}}, prov) == {"a": "b"}


def test_environment_from_provider_default_env_tag() -> None:
    prov = provider("aws", ENCODED)
    urn = "urn:pulumi:sandbox-42::p::aws:s3/bucket:Bucket::b"
    assert environment(BUCKET, {}, urn, provider=prov) == "prod"
    assert environment(BUCKET, {"tags": {"env": "staging"}}, urn, provider=prov) == "staging"
    assert environment(BUCKET, {}, urn) is None
