"""GF-DEPLOY-002: what the Kubernetes API server refuses, one finding each, and valid objects pass."""

from __future__ import annotations

from typing import Any

from gpufleet.analyzer_inputs import wire_form
from gpufleet.graph import UNKNOWN_STRING, make_secret
from gpufleet.policies.deploy.kubernetes_api import POLICY
from tests.policies.support import run_resource

DEPLOYMENT = "kubernetes:apps/v1:Deployment"
NAMESPACE = "kubernetes:core/v1:Namespace"
SCALED = "kubernetes:keda.sh/v1alpha1:ScaledObject"
TAIL = " [Kubernetes API validation]"
QUALIFIED = (
    "an optional DNS-1123 subdomain prefix of at most 253 characters and '/', then a name of at most 63 "
    "characters matching ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
)


def run(token: str, props: dict[str, Any], name: str = "r") -> list[str]:
    return run_resource(POLICY, token, wire_form(props), name)


def deployment(**spec: Any) -> dict[str, Any]:
    body = {
        "selector": {"matchLabels": {"app": "w"}},
        "template": {
            "metadata": {"labels": {"app": "w"}},
            "spec": {
                "containers": [
                    {"name": "w", "image": "w:1", "ports": [{"name": "http", "containerPort": 80}]}
                ]
            },
        },
    }
    body.update(spec)
    return {
        "metadata": {"name": "worker", "namespace": "jobs", "labels": {"gpufleet.io/stack": "dev"}},
        "spec": body,
    }


def test_a_valid_deployment_passes() -> None:
    assert run(DEPLOYMENT, deployment()) == []


def test_label_key_with_a_colon_is_refused() -> None:
    props = {"metadata": {"name": "training", "labels": {"gpufleet:stack": "dev"}}}
    assert run(NAMESPACE, props, "ns") == [
        f"{NAMESPACE} 'ns': metadata.labels key \"gpufleet:stack\" is not a valid label key: "
        "its name part has a "
        "character other than letters, digits, '-', '_' and '.' or does not start and end "
        "with a letter or digit; "
        f"allowed: {QUALIFIED}{TAIL}"
    ]


def test_names_namespaces_and_label_values() -> None:
    props = {"metadata": {"name": "Training_1", "labels": {"team": "x" * 64}}}
    assert run(NAMESPACE, props, "ns") == [
        f"{NAMESPACE} 'ns': metadata.name is \"Training_1\"; allowed: a DNS-1123 label (at most 63 lowercase "
        f"letters, digits and '-', starting and ending with a letter or digit){TAIL}",
        f'{NAMESPACE} \'ns\': metadata.labels["team"] is "{"x" * 64}"; allowed: empty, or at most 63 '
        f"characters matching ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]{TAIL}",
    ]
    bad_ns = deployment()
    bad_ns["metadata"]["namespace"] = "Jobs"
    assert run(DEPLOYMENT, bad_ns, "d")[0].startswith(
        f"{DEPLOYMENT} 'd': metadata.namespace is \"Jobs\"; allowed:"
    )
    assert run(NAMESPACE, {"metadata": {}}, "ns") == [
        f"{NAMESPACE} 'ns': metadata.name is required and not set{TAIL}"
    ]
    assert run(NAMESPACE, {"metadata": {"name": UNKNOWN_STRING}}) == []


def test_annotation_keys_and_total_size() -> None:
    props = {"metadata": {"name": "a", "annotations": {"bad key": "v", "big": "x" * (256 * 1024)}}}
    found = run(NAMESPACE, props, "ns")
    assert found[0].startswith(
        f"{NAMESPACE} 'ns': metadata.annotations key \"bad key\" is not a valid annotation key"
    )
    assert found[1] == (
        f"{NAMESPACE} 'ns': metadata.annotations total {7 + 1 + 3 + 256 * 1024} bytes; "
        "allowed: at most 262144 "
        f"bytes (256 KiB){TAIL}"
    )


def test_required_fields_selector_and_containers() -> None:
    props = deployment()
    del props["spec"]["selector"]
    assert run(DEPLOYMENT, props, "d") == [f"{DEPLOYMENT} 'd': spec.selector is required and not set{TAIL}"]
    props = deployment(selector={"matchLabels": {"app": "other"}})
    assert run(DEPLOYMENT, props, "d") == [
        f'{DEPLOYMENT} \'d\': spec.selector.matchLabels["app"] is "other" but '
        f'spec.template.metadata.labels gives "w"; allowed: a selector the template\'s labels match{TAIL}'
    ]
    props = deployment()
    container = props["spec"]["template"]["spec"]["containers"][0]
    container["name"] = "Worker"
    container["ports"] = [{"name": "metrics-endpoint", "containerPort": 70000}]
    assert run(DEPLOYMENT, props, "d") == [
        f"{DEPLOYMENT} 'd': spec.template.spec.containers[0].name is \"Worker\"; allowed: a "
        "DNS-1123 label (at most "
        f"63 lowercase letters, digits and '-', starting and ending with a letter or digit){TAIL}",
        f"{DEPLOYMENT} 'd': spec.template.spec.containers[0].ports[0].containerPort is 70000; "
        f"allowed: 1 to 65535{TAIL}",
        f"{DEPLOYMENT} 'd': spec.template.spec.containers[0].ports[0].name is "
        '"metrics-endpoint"; allowed: an '
        "IANA_SVC_NAME (at most 15 lowercase letters, digits and '-', at least one letter, "
        "no '-' at either end "
        f"or twice in a row){TAIL}",
    ]


def test_known_crds_and_unknown_kinds_of_their_groups() -> None:
    good = {
        "metadata": {"name": "w", "namespace": "jobs"},
        "spec": {
            "scaleTargetRef": {"name": "w"},
            "triggers": [{"type": "aws-sqs-queue", "metadata": {"q": "x"}}],
        },
    }
    assert run(SCALED, good) == []
    missing = {"metadata": {"name": "w"}, "spec": {"scaleTargetRef": {"name": "w"}}}
    assert run(SCALED, missing, "s") == [f"{SCALED} 's': spec.triggers is required and not set{TAIL}"]
    typo = "kubernetes:keda.sh/v1alpha1:ScaledObjects"
    assert run(typo, good, "s")[0].startswith(
        f"{typo} 's': apiVersion keda.sh/v1alpha1 kind ScaledObjects is not served by the "
        "keda.sh CRDs; known:"
    )
    # A custom resource of a group the table does not know: its metadata only.
    assert run("kubernetes:example.com/v1:Widget", {"metadata": {"name": "w"}, "spec": {}}) == []


def test_patches_need_no_required_fields_and_secrets_are_not_quoted() -> None:
    assert run("kubernetes:core/v1:NodePatch", {"metadata": {"name": "dgx-01"}}) == []
    props = {"metadata": {"name": "a", "labels": {"team": make_secret("not valid!")}}}
    found = run(NAMESPACE, props, "ns")
    assert found == [
        f"{NAMESPACE} 'ns': metadata.labels[\"team\"] is [secret]; allowed: empty, or at most 63 characters "
        f"matching ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]{TAIL}"
    ]
    tls = {
        "metadata": {"name": "c"},
        "type": "kubernetes.io/tls",
        "stringData": make_secret({"tls.crt": "x"}),
    }
    assert run("kubernetes:core/v1:Secret", tls, "c") == [
        "kubernetes:core/v1:Secret 'c': a kubernetes.io/tls Secret needs data keys "
        f'"tls.key"; they are not set{TAIL}'
    ]
