"""A small stack of S3 buckets judged by GF-STOR-001 (customer-managed key) and GF-STOR-003 (public access),
with waivers on some of them."""

from __future__ import annotations

from typing import Any

from gpufleet.graph import UNKNOWN_STRING, Resource, ResourceGraph
from gpufleet.policies.registry import default_registry
from gpufleet.policies.rule import GfPolicy

BUCKET = "aws:s3/bucket:Bucket"
STACK, PROJECT = "dev", "waivers"
WAIVE_STOR_001 = "gpufleet:waive:GF-STOR-001"
TAGS_ON: dict[str, Any] = {"waivers": {"allow_tags": True}}
"""A policy config that lets tags waive (they are off by default)."""


def urn(name: str, resource_type: str = BUCKET) -> str:
    return f"urn:pulumi:{STACK}::{PROJECT}::{resource_type}::{name}"


def bucket(name: str, tags: dict[str, str] | None = None, *, unknown_sse: bool = False) -> Resource:
    inputs: dict[str, Any] = {"bucket": name}
    if tags:
        inputs["tags"] = tags
    if unknown_sse:
        inputs["serverSideEncryptionConfiguration"] = {
            "rule": {"applyServerSideEncryptionByDefault": {"sseAlgorithm": UNKNOWN_STRING}}
        }
    return Resource(urn=urn(name), type=BUCKET, name=name, custom=True, inputs=inputs)


def stack(*resources: Resource) -> ResourceGraph:
    return ResourceGraph(project=PROJECT, stack=STACK, resources=list(resources))


def policies(*rule_ids: str) -> list[GfPolicy]:
    registry = default_registry()
    return [registry.get(rule_id) for rule_id in rule_ids or ("GF-STOR-001",)]


def no_cmk(name: str) -> str:
    return (
        f"S3 bucket '{name}' has no server-side encryption configuration (S3 then uses AES256 with "
        "S3-managed keys); use aws:kms with a customer-managed KMS key (kmsMasterKeyId)"
    )


def waiver(resource: str, expires: str = "2027-01-31", **extra: str) -> dict[str, str]:
    return {
        "resource": resource,
        "reason": "legacy logs, migrating",
        "owner": "data-team",
        "expires": expires,
        **extra,
    }
