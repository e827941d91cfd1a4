"""What a cluster-autoscaler pod may reach and how it reaches the API server.

- Its API token: an explicit projected volume at the path client-go's in-cluster configuration reads
  (``/var/run/secrets/kubernetes.io/serviceaccount``: ``token``, ``ca.crt``, ``namespace``) with
  ``automountServiceAccountToken: false`` on the pod. The token's audience is left out, so the kubelet
  requests it for the API server's own audience (``TokenRequest``: "defaults to the identifier of the
  kube-apiserver"), and it lives one hour (the kubelet renews it at 80 % of its life and client-go
  re-reads the file); the automounted token's one-year extension (``--service-account-extend-token-
  expiration``) does not apply to it. Only the autoscaler's container mounts it, not the AWS signing
  helper.
- Its ``NetworkPolicy``: no ingress (nothing of the fleet scrapes the autoscaler's metrics; the
  kubelet's probes come from the node); egress to the cluster DNS (CoreDNS pods, ``k8s-app: kube-dns``
  in ``kube-system``, UDP and TCP 53), the API server's endpoints (``scheduler.control_plane_cidrs``, or
  ``scheduler.api_server``'s address alone, on its port and on 6443: a policy sees the endpoint once the
  ``kubernetes`` service address is translated) and the cloud's API endpoints on TCP 443
  (:data:`CLOUD_API_ENDPOINTS`; a NetworkPolicy names addresses, not host names, and these are public
  addresses the clouds do not publish as fixed ranges, so the rule allows TCP 443 to any address and
  nothing else there).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from typing import Any

from gpufleet.components.clouds import cloud_parts, part_values
from gpufleet.components.k8s_names import check_labels

TOKEN_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
TOKEN_SECONDS = 3600
API_TOKEN_VOLUME = "api-token"
# kubeadm installs CoreDNS with the label k8s-app=kube-dns in kube-system (kubernetes/kubernetes,
# cmd/kubeadm/app/phases/addons/dns/manifests.go), as kube-dns did before it.
DNS_POD_LABELS = {"k8s-app": "kube-dns"}
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
# kubeadm's default API server bind port (InitConfiguration localAPIEndpoint.bindPort): the port the
# endpoints of the ``kubernetes`` service listen on.
KUBEADM_API_PORT = 6443
HTTPS = 443

# The cloud API hosts each autoscaler calls, on TCP 443 (``{region}``: the site's region): each cloud's
# ENDPOINTS (components/baseline/autoscalers/<cloud>.py, which says which of the provider's clients
# call them).
CLOUD_API_ENDPOINTS: Mapping[str, tuple[str, ...]] = {
    cloud: tuple(hosts)
    for cloud, hosts in part_values(
        cloud_parts("gpufleet.components.baseline.autoscalers"), "ENDPOINTS"
    ).items()
}
ANY_IPV4 = "0.0.0.0/0"


def cloud_endpoints(cloud: str, region: str) -> list[str]:
    """The API hosts the autoscaler of ``cloud`` in ``region`` calls on 443."""
    return [host.format(region=region) for host in CLOUD_API_ENDPOINTS[cloud]]


def api_token_volume() -> dict[str, Any]:
    """The projected volume in place of the automounted token: the token (API server audience, one
    hour), the cluster's CA and the namespace, the three files client-go's in-cluster config reads."""
    return {
        "name": API_TOKEN_VOLUME,
        "projected": {
            "defaultMode": 0o444,
            "sources": [
                {"serviceAccountToken": {"path": "token", "expirationSeconds": TOKEN_SECONDS}},
                {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {
                    "downwardAPI": {
                        "items": [{"path": "namespace", "fieldRef": {"fieldPath": "metadata.namespace"}}]
                    }
                },
            ],
        },
    }


def api_token_mount() -> dict[str, Any]:
    return {"name": API_TOKEN_VOLUME, "mountPath": TOKEN_DIR, "readOnly": True}


def api_server_peers(api_server: str, control_plane_cidrs: Sequence[str]) -> tuple[list[str], list[int]]:
    """Where the API server's endpoints live (the control-plane ranges, else the joined address) and
    their ports (the joined port and kubeadm's 6443)."""
    host, _, port = api_server.rpartition(":")
    ranges = [str(c) for c in control_plane_cidrs] or [str(ipaddress.ip_network(f"{host}/32"))]
    return ranges, sorted({int(port), KUBEADM_API_PORT})


def egress_rules(api_server: str, control_plane_cidrs: Sequence[str]) -> list[dict[str, Any]]:
    """DNS, the API server, the cloud's API on 443 (see the module docstring)."""
    ranges, ports = api_server_peers(api_server, control_plane_cidrs)
    dns_peer = {
        "namespaceSelector": {"matchLabels": {NAMESPACE_NAME_LABEL: "kube-system"}},
        "podSelector": {"matchLabels": dict(DNS_POD_LABELS)},
    }
    return [
        {"to": [dns_peer], "ports": [{"protocol": p, "port": 53} for p in ("UDP", "TCP")]},
        {
            "to": [{"ipBlock": {"cidr": r}} for r in ranges],
            "ports": [{"protocol": "TCP", "port": p} for p in ports],
        },
        {"to": [{"ipBlock": {"cidr": ANY_IPV4}}], "ports": [{"protocol": "TCP", "port": HTTPS}]},
    ]


def network_policy_spec(
    selector: Mapping[str, str], api_server: str, control_plane_cidrs: Sequence[str]
) -> dict[str, Any]:
    """The autoscaler's pods only: no ingress, egress per :func:`egress_rules`."""
    return {
        "podSelector": {"matchLabels": check_labels(dict(selector))},
        "policyTypes": ["Ingress", "Egress"],
        "ingress": [],
        "egress": egress_rules(api_server, control_plane_cidrs),
    }
