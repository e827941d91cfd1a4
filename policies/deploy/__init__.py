"""Deployability: what a real `pulumi preview` or the cloud refuses, which the offline engine would pass.

GF-DEPLOY-001 the providers' schemas, GF-DEPLOY-002 the Kubernetes API server's validation, GF-DEPLOY-003
the clouds' rules no schema holds (bucket names, schedules in the past, lifecycle minimums). Each is
data with its sources in this package; none is waivable.
"""

from gpufleet.policies.deploy import cloud_rules, kubernetes_api, provider_schema
from gpufleet.policies.rule import GfPolicy

POLICIES: list[GfPolicy] = [
    provider_schema.POLICY,
    kubernetes_api.POLICY,
    cloud_rules.POLICY,
]
