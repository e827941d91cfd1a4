"""GF-K8S-003: no privileged containers, host network, host PID or hostPath volumes in workloads.

Judged on every pod template of `policies.k8s.templates` (CronJob templates, Kubeflow replicas, Ray
groups, Volcano tasks, JobSet jobs, Argo templates with their `podSpecPatch`; init and ephemeral
containers included); a custom resource's finding names the template ("(replica Worker)").

One recorded exception, for the GPU node daemons the on-prem baseline declares explicitly
(components/baseline/kubernetes.py): a DaemonSet in `kube-system` may mount the two kubelet directories a
GPU daemon needs, and no other host path: `/var/lib/kubelet/device-plugins` (the NVIDIA device plugin
registers its socket there) and `/var/lib/kubelet/pod-resources` when every container mounts it
read-only (the DCGM exporter reads which pod holds which GPU). Paths are compared exactly (a trailing `/`
aside): `/var/lib/kubelet/device-plugins/..` or a parent directory is still a finding. Privilege, host
network and host PID are never excepted. Workloads outside `kube-system`, and anything other than a
DaemonSet, get no exception: a team's pod has no business in the kubelet's directories.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, ResourceValidationArgs, Severity

from gpufleet.policies.k8s.workloads import (
    PodTemplate,
    display,
    kind_of,
    namespace_of,
    template_containers,
    workload_templates,
)
from gpufleet.policies.props import as_list, get, truthy
from gpufleet.policies.rule import GfResourcePolicy, Rule, judges

SYSTEM_NAMESPACE = "kube-system"
DEVICE_PLUGIN_DIR = "/var/lib/kubelet/device-plugins"
POD_RESOURCES_DIR = "/var/lib/kubelet/pod-resources"

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
    system_daemon = (
        kind_of(args.resource_type, args.props) == "DaemonSet"
        and namespace_of(args.props) == SYSTEM_NAMESPACE
    )
    for template in workload_templates(args):
        _judge(what, template, report, system_daemon=system_daemon)


def _gpu_daemon_path(template: PodTemplate, volume: object, path: object) -> bool:
    """Whether a system DaemonSet's hostPath volume is one of the two kubelet directories GPU daemons
    need, mounted the way they need it (pod-resources read-only by every container)."""
    if not isinstance(path, str) or path == "/":
        return False
    path = path.rstrip("/")
    if path == DEVICE_PLUGIN_DIR:
        return True
    if path != POD_RESOURCES_DIR:
        return False
    name = get(volume, "name")
    mounts = [
        mount
        for _, container in template_containers(template)
        for mount in as_list(get(container, "volumeMounts"))
        if get(mount, "name") == name
    ]
    return all(truthy(get(mount, "readOnly", False)) for mount in mounts)


def _judge(what: str, template: PodTemplate, report: ReportViolation, *, system_daemon: bool = False) -> None:
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
            if system_daemon and _gpu_daemon_path(template, volume, path):
                continue
            report(
                f"{what}{where} mounts hostPath volume '{get(volume, 'name')}' ({path}); use a "
                "persistentVolumeClaim, emptyDir, configMap or secret volume instead",
                None,
            )


POLICY = GfResourcePolicy(RULE, validate, judges(prefixes=("kubernetes:",)))
