"""Storage policies: bucket encryption, BYOK, public access, TLS, lifecycle, versioning, block storage."""

from gpufleet.policies.rule import GfPolicy
from gpufleet.policies.storage import (
    block_storage_encrypted,
    bucket_byok_key,
    bucket_customer_managed_key,
    bucket_public_access,
    bucket_tls_only,
    checkpoint_lifecycle,
    checkpoint_versioning,
    lifecycle_cost_sane,
)

POLICIES: list[GfPolicy] = [
    bucket_customer_managed_key.POLICY,
    bucket_byok_key.POLICY,
    bucket_public_access.POLICY,
    bucket_tls_only.POLICY,
    checkpoint_lifecycle.POLICY,
    lifecycle_cost_sane.POLICY,
    checkpoint_versioning.POLICY,
    block_storage_encrypted.POLICY,
]
