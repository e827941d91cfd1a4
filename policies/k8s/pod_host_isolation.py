"""GF-K8S-003: no privileged containers, host network, host PID or hostPath volumes in workloads.

Judged on every workload kind in `policies.k8s.workloads` (CronJob templates, init and ephemeral
containers included). Cluster daemons that genuinely need host access (the NVIDIA device plugin mounts
`/var/lib/kubelet/device-plugins`) are normally installed by Helm charts, which the pack does not
see under mocks; a hand-written one needs a recorded exception.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from policies.k8s.workloads import containers, display, spec_path, workload_pod_spec
from policies.props import as_list, get, truthy
from policies.rule import GfResourcePolicy, Rule

RULE = Rule(
    id="GF-K8S-003",
    name="no-privileged-host-access",
    description="No privileged containers, host network, host PID or hostPath volumes in workloads.",
    clouds=("kubernetes",),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "Remove securityContext.privileged from every container, hostNetwork and hostPID from the pod "
        "spec, and hostPath volumes (use persistentVolumeClaim, emptyDir, configMap or secret volumes); "
        "GPUs are exposed by the NVIDIA device plugin through nvidia.com/gpu limits, not by privilege."
    ),
    url="https://kubernetes.io/docs/concepts/security/pod-security-standards/#baseline",
    checkov=("CKV_K8S_16", "CKV_K8S_19", "CKV_K8S_17", "CKV_K8S_27"),
)


def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
    spec = workload_pod_spec(args)
    if spec is None:
        return
    what = display(args.resource_type, args.name)
    for role, container in containers(spec, spec_path(args.resource_type)):
        if truthy(get(container, "securityContext.privileged", False)):
            report(
                f"{what} {role} '{get(container, 'name')}' is privileged; remove securityContext.privileged",
                None,
            )
    for prop, label in (("hostNetwork", "the host network"), ("hostPID", "the host PID namespace")):
        if truthy(get(spec, prop, False)):
            report(f"{what} uses {label} ({prop}: true); remove {prop}", None)
    for volume in as_list(get(spec, "volumes")):
        if get(volume, "hostPath") is not None:
            path = get(volume, "hostPath.path")
            report(
                f"{what} mounts hostPath volume '{get(volume, 'name')}' ({path}); use a "
                "persistentVolumeClaim, emptyDir, configMap or secret volume instead",
                None,
            )


POLICY = GfResourcePolicy(RULE, validate)
