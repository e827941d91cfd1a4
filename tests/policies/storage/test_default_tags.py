"""Tags set once on the AWS provider (`defaultTags`) count for the bucket rules that select by tag:
GF-STOR-002's classification and the checkpoint selector of GF-STOR-005/007. Provider inputs arrive
JSON-encoded (`defaultTags: '{"tags": {...}}'`), as the engine sends them."""

from __future__ import annotations

import json

import pytest
from pulumi_policy import PolicyProviderResource, PolicyResource

from gpufleet.policies.kms.aws import AWS_EXTERNAL_KEY, AWS_KEY
from gpufleet.policies.storage import bucket_byok_key, checkpoint_versioning
from gpufleet.policies.storage.alicloud import OSS_BUCKET
from gpufleet.policies.storage.aws import AWS_BUCKET, AWS_SSE
from tests.policies.support import provider

from .helpers import UNKNOWN, NotApplicable, res, run_stack

BYOK_FINDING = (
    "S3 bucket 'data' is classified data-classification=restricted but its key 'data-key' "
    "(aws:kms/key:Key) has provider-generated key material; use a key whose material is imported "
    "(origin EXTERNAL)"
)


def aws_provider(tags: dict[str, str], *, encoded: bool = True) -> PolicyProviderResource:
    default_tags = json.dumps({"tags": tags}) if encoded else {"tags": tags}
    return provider("aws", {"region": "eu-west-1", "defaultTags": default_tags})


def restricted_stack(
    key_type: str, prov: PolicyProviderResource, bucket_tags: dict[str, str] | None = None
) -> list[PolicyResource]:
    key = res(key_type, "data-key")
    bucket = res(AWS_BUCKET, "data", {"tags": bucket_tags or {"team": "ml"}}, prov=prov)
    sse = res(
        AWS_SSE,
        "data-sse",
        {
            "bucket": UNKNOWN,
            "rules": [
                {"applyServerSideEncryptionByDefault": {"sseAlgorithm": "aws:kms", "kmsMasterKeyId": UNKNOWN}}
            ],
        },
        prop_deps={"bucket": [bucket], "rules": [key]},
    )
    return [key, bucket, sse]


@pytest.mark.parametrize("encoded", [True, False])
def test_classification_from_provider_default_tags_fires(encoded: bool) -> None:
    prov = aws_provider({"data-classification": "restricted"}, encoded=encoded)
    resources = restricted_stack(AWS_KEY, prov)
    assert run_stack(bucket_byok_key.POLICY, resources) == [(BYOK_FINDING, resources[1].urn)]


def test_classification_from_provider_default_tags_with_byok_key_passes() -> None:
    prov = aws_provider({"data-classification": "restricted"})
    assert run_stack(bucket_byok_key.POLICY, restricted_stack(AWS_EXTERNAL_KEY, prov)) == []


def test_bucket_tag_overrides_provider_default() -> None:
    # AWS applies the resource's own value for a key the provider also sets.
    prov = aws_provider({"data-classification": "restricted"})
    resources = restricted_stack(AWS_KEY, prov, {"data-classification": "internal"})
    with pytest.raises(NotApplicable, match="no bucket is tagged data-classification = restricted"):
        run_stack(bucket_byok_key.POLICY, resources)


def test_other_provider_tags_and_other_clouds_do_not_classify() -> None:
    prov = aws_provider({"team": "ml"})
    with pytest.raises(NotApplicable):
        run_stack(bucket_byok_key.POLICY, restricted_stack(AWS_KEY, prov))
    # Alibaba Cloud providers have no default tags: a look-alike input is ignored.
    ali = provider("alicloud", {"defaultTags": json.dumps({"tags": {"data-classification": "restricted"}})})
    oss = res(OSS_BUCKET, "oss", {"serverSideEncryptionRule": {"sseAlgorithm": "AES256"}}, prov=ali)
    with pytest.raises(NotApplicable):
        run_stack(bucket_byok_key.POLICY, [oss])


def test_checkpoint_selector_from_provider_default_tags() -> None:
    prov = aws_provider({"purpose": "checkpoints"})
    bucket = res(AWS_BUCKET, "ckpt", {"tags": {"team": "ml"}}, prov=prov)
    messages = [m for m, _ in run_stack(checkpoint_versioning.POLICY, [bucket])]
    assert messages and all("S3 bucket 'ckpt'" in m for m in messages)
    untagged = res(AWS_BUCKET, "ckpt", {"tags": {"team": "ml"}}, prov=aws_provider({"team": "ml"}))
    with pytest.raises(NotApplicable):
        run_stack(checkpoint_versioning.POLICY, [untagged])
