"""GF-STOR-002: an Alibaba key whose `origin` is unknown at preview cannot be judged (it used to be
reported as a key of origin '<sentinel>')."""

from __future__ import annotations

from gpufleet.policies.kms.alicloud import ALI_KEY
from gpufleet.policies.storage.alicloud import OSS_BUCKET
from gpufleet.policies.storage.bucket_byok_key import POLICY

from .helpers import UNKNOWN, res, run_stack


def test_alicloud_key_origin_unknown_is_not_judged() -> None:
    key = res(ALI_KEY, "k", {"origin": UNKNOWN})
    bucket = res(
        OSS_BUCKET,
        "ckpt",
        {
            "tags": {"data-classification": "restricted"},
            "serverSideEncryptionRule": {"sseAlgorithm": "KMS", "kmsMasterKeyId": UNKNOWN},
        },
        prop_deps={"serverSideEncryptionRule": [key]},
    )
    assert run_stack(POLICY, [key, bucket]) == [
        (
            "could not be judged at preview: the string value at .origin can't be known during preview",
            bucket.urn,
        )
    ]
