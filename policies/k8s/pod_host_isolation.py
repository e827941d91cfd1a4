"""GF-K8S-003: no privileged containers, host network, host PID or hostPath volumes in workloads.

Judged on every pod template of `policies.k8s.templates` (CronJob templates, Kubeflow replicas, Ray
groups, Volcano tasks, JobSet jobs, Argo templates with their `podSpecPatch`; init and ephemeral
containers included); a custom resource's finding names the template ("(replica Worker)"). Cluster daemons
that genuinely need host access (the NVIDIA device plugin mounts `/var/lib/kubelet/device-plugins`) are
normally installed by Helm charts, which the pack does not see under mocks; a hand-written one needs a
recorded exception.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from policies.k8s.workloads import PodTemplate, display, template_containers, workload_templates
from policies.props import as_list, get, truthy
from policies.rule import GfResourcePolicy, Rule, judges

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
    what = display(args.resource_type, args.name, args.props)
    for template in workload_templates(args):
        _judge(what, template, report)


def _judge(what: str, template: PodTemplate, report: ReportViolation) -> None:
    spec = template.spec
    for role, container in template_containers(template):
        if truthy(get(container, "securityContext.privileged", False)):
            report(
                f"{what} {role} '{get(container, 'name')}' is privileged; remove securityContext.privileged",
                None,
            )
    where = f" ({template.where})" if template.where else ""
    for prop, label in (("hostNetwork", "the host network"), ("hostPID", "the host PID namespace")):
        if truthy(get(spec, prop, False)):
            report(f"{what}{where} uses {label} ({prop}: true); remove {prop}", None)
    for volume in as_list(get(spec, "volumes")):
        if get(volume, "hostPath") is not None:
            path = get(volume, "hostPath.path")
            report(
                f"{what}{where} mounts hostPath volume '{get(volume, 'name')}' ({path}); use a "
                "persistentVolumeClaim, emptyDir, configMap or secret volume instead",
                None,
            )


POLICY = GfResourcePolicy(RULE, validate, judges(prefixes=("kubernetes:",)))
