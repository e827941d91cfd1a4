"""GF-K8S-005: no cloud credentials in plain container env or ConfigMaps.

A credential is an env var or ConfigMap key named like a cloud access key (AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, ALICLOUD_ACCESS_KEY*, ALICLOUD_SECRET_KEY,
ALIBABA_CLOUD_ACCESS_KEY_ID/SECRET, TENCENTCLOUD_SECRET_ID/KEY), or any value shaped like an access key id
(AWS `AKIA`/`ASIA` + 16, Alibaba `LTAI` + 12-20, Tencent `AKID` + 32 characters). Env entries that use
`valueFrom` (secretKeyRef) are fine. Judged on every pod template of `policies.k8s.templates` (built-in
workloads and the custom resources that embed pod templates; all container lists) and on
`kubernetes:core/v1:ConfigMap` (and its Patch) `data`. Messages never repeat the value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.components.clouds import cloud_parts
from gpufleet.policies.k8s.workloads import display, kind_of, template_containers, workload_templates
from gpufleet.policies.props import as_list, get, get_ref, is_unknown, plain
from gpufleet.policies.rule import GfResourcePolicy, Rule, judges
from gpufleet.policies.rule_facts import joined

# Each cloud's credential variable names and access key id shapes (regular expression alternatives).
PARTS = cloud_parts("gpufleet.policies.k8s")
CREDENTIAL_NAMES = re.compile(
    rf"^({joined(PARTS, 'CREDENTIAL_NAMES', '|')})$",
    re.IGNORECASE,
)
ACCESS_KEY_VALUES = re.compile(rf"(?<![0-9A-Za-z])({joined(PARTS, 'ACCESS_KEY_VALUES', '|')})(?![0-9A-Za-z])")

RULE = Rule(
    id="GF-K8S-005",
    name="no-plain-cloud-credentials",
    description="No cloud credentials in plain container env or ConfigMaps.",
    clouds=("kubernetes",),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.CRITICAL,
    remediation=(
        "Remove access keys from env value and ConfigMap data; give pods cloud identities instead (EKS IRSA "
        "or Pod Identity, ACK RRSA, TKE workload identity) or, failing that, store the key in a Secret and "
        "read it with env[].valueFrom.secretKeyRef. Rotate any key that was committed."
    ),
    url="https://kubernetes.io/docs/concepts/configuration/secret/#using-secrets-as-environment-variables",
    checkov=("CKV_K8S_35",),
)


def _why(name: Any, value: Any) -> str | None:
    if isinstance(name, str) and CREDENTIAL_NAMES.match(name):
        return "a cloud credential name"
    if isinstance(value, str) and not is_unknown(value) and ACCESS_KEY_VALUES.search(value):
        return "a value shaped like a cloud access key"
    return None


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    kind = kind_of(args.resource_type, args.props)
    if kind == "ConfigMap":
        data = plain(get(args.props, "data"))
        if isinstance(data, Mapping):
            for key, value in data.items():
                why = _why(key, value)
                if why:
                    report(
                        f"ConfigMap '{args.name}' key '{key}' holds {why}; move it to a Secret or use a "
                        "workload identity",
                        None,
                    )
        return
    what = display(args.resource_type, args.name, args.props)
    every = [pair for template in workload_templates(args) for pair in template_containers(template)]
    for role, container in every:
        for env in as_list(get(container, "env")):
            if not isinstance(env, Mapping) or get_ref(env, "value") is None:
                continue
            name = get(env, "name")
            why = _why(name, get_ref(env, "value"))
            if why:
                report(
                    f"{what} {role} '{get(container, 'name')}' sets env {name} as a plain value with {why}; "
                    "use valueFrom.secretKeyRef or a workload identity",
                    None,
                )


POLICY = GfResourcePolicy(RULE, validate, judges(prefixes=("kubernetes:",)))
