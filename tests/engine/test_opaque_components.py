"""Components whose children a provider plugin builds are recorded as opaque, never passed silently;
those whose package ships the program that builds them (yaml.ConfigFile/ConfigGroup v1) are expanded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpufleet.engine import EngineError, run_program
from gpufleet.graph import ResourceGraph
from gpufleet.mocks import decode_yaml
from tests.engine.projects import write_project

STACK = "urn:pulumi:dev::scratch::"

MANIFEST = """\
apiVersion: v1
kind: Namespace
metadata:
  name: gpu
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer
  namespace: gpu
  annotations:
    since: 2024-01-01
spec:
  replicas: 2
  selector:
    matchLabels: {app: trainer}
  template:
    metadata:
      labels: {app: trainer}
    spec:
      containers:
        - name: trainer
          image: nvcr.io/nvidia/pytorch:24.01-py3
          resources:
            limits: {nvidia.com/gpu: 1}
---
"""

OPAQUE_PROGRAM = """
import pulumi
import pulumi_kubernetes as k8s

k8s.helm.v3.Chart("nginx", k8s.helm.v3.ChartOpts(chart="ingress-nginx", fetch_opts=k8s.helm.v3.FetchOpts(
    repo="https://kubernetes.github.io/ingress-nginx")))
k8s.helm.v4.Chart("metrics", chart="metrics-server", repository_opts={"repo": "https://example.invalid"})
k8s.helm.v3.Release("dcgm", chart="dcgm-exporter", namespace="monitoring")
k8s.yaml.v2.ConfigFile("crds", file="crds.yaml")
k8s.yaml.v2.ConfigGroup("group", yaml="apiVersion: v1\\nkind: Namespace\\nmetadata:\\n  name: x\\n")
k8s.kustomize.Directory("base", directory="./base")
k8s.kustomize.v2.Directory("overlay", directory="./overlay")


class Cluster(pulumi.ComponentResource):
    def __init__(self, name):
        super().__init__("eks:index:Cluster", name, {"version": "1.30"}, None, remote=True)


class Vpc(pulumi.ComponentResource):
    def __init__(self, name):
        super().__init__("awsx:ec2:Vpc", name, {}, None)


class Mine(pulumi.ComponentResource):
    def __init__(self, name):
        super().__init__("acme:index:Empty", name, {}, None)


Cluster("gpu")
Vpc("net")
Mine("empty")
"""


@pytest.fixture(scope="module")
def opaque_graph(tmp_path_factory: pytest.TempPathFactory) -> ResourceGraph:
    root = write_project(tmp_path_factory.mktemp("opaque") / "p", OPAQUE_PROGRAM)
    (root / "crds.yaml").write_text(MANIFEST)
    return run_program(root, "dev")


def test_every_component_built_by_a_provider_plugin_is_recorded(opaque_graph: ResourceGraph) -> None:
    plugin = "provider plugin builds its children, and it does not run offline"
    helm = "its objects are rendered by `helm template` inside the Kubernetes provider plugin"
    assert [(item["type"], item["name"], item["why"]) for item in opaque_graph.opaque] == [
        ("kubernetes:helm.sh/v3:Chart", "nginx", f"{helm}, which does not run offline"),
        ("kubernetes:helm.sh/v4:Chart", "metrics", f"a remote component: the kubernetes {plugin}"),
        (
            "kubernetes:helm.sh/v3:Release",
            "dcgm",
            "a Helm release: the Kubernetes provider installs the chart's objects itself and never "
            "registers them as resources, so no policy sees them",
        ),
        ("kubernetes:yaml/v2:ConfigFile", "crds", f"a remote component: the kubernetes {plugin}"),
        ("kubernetes:yaml/v2:ConfigGroup", "group", f"a remote component: the kubernetes {plugin}"),
        (
            "kubernetes:kustomize:Directory",
            "base",
            "its objects are rendered by kustomize inside the Kubernetes provider plugin, which does "
            "not run offline",
        ),
        ("kubernetes:kustomize/v2:Directory", "overlay", f"a remote component: the kubernetes {plugin}"),
        ("eks:index:Cluster", "gpu", f"a remote component: the eks {plugin}"),
        (
            "awsx:ec2:Vpc",
            "net",
            "a component of the awsx package that registered no children offline: a provider plugin "
            "builds them",
        ),
    ]
    assert opaque_graph.opaque[7]["urn"] == f"{STACK}eks:index:Cluster::gpu"


def test_the_remote_flag_is_recorded_and_survives_the_graph_file(opaque_graph: ResourceGraph) -> None:
    [cluster] = opaque_graph.of_type("eks:index:Cluster")
    assert cluster.remote is True and cluster.custom is False
    [vpc] = opaque_graph.of_type("awsx:ec2:Vpc")
    assert vpc.remote is False
    document = json.loads(json.dumps(opaque_graph.to_json()))
    assert document["opaque"] == opaque_graph.opaque
    assert ResourceGraph.from_json(document).opaque == opaque_graph.opaque


def test_a_users_own_empty_component_is_not_opaque(opaque_graph: ResourceGraph) -> None:
    assert opaque_graph.of_type("acme:index:Empty")
    assert "acme:index:Empty" not in {item["type"] for item in opaque_graph.opaque}


def test_yaml_config_file_and_group_v1_are_expanded_offline(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p",
        """
        import pulumi_kubernetes as k8s

        k8s.yaml.ConfigFile("app", file="app.yaml")
        CONFIG_MAP = "apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: settings\\ndata:\\n  a: '1'\\n"
        k8s.yaml.ConfigGroup("extra", yaml=[CONFIG_MAP])
        """,
    )
    (root / "app.yaml").write_text(MANIFEST)
    graph = run_program(root, "dev")
    assert graph.opaque == []
    config_file = f"{STACK}kubernetes:yaml:ConfigFile::app"
    assert [(r.type, r.name, r.parent) for r in graph.children(config_file)] == [
        ("kubernetes:core/v1:Namespace", "gpu", config_file),
        ("kubernetes:apps/v1:Deployment", "gpu/trainer", config_file),
    ]
    [deployment] = graph.of_type("kubernetes:apps/v1:Deployment")
    container = deployment.inputs["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"]["limits"] == {"nvidia.com/gpu": 1}
    assert deployment.inputs["metadata"]["annotations"] == {"since": "2024-01-01"}
    assert deployment.inputs["spec"]["replicas"] == 2
    [config_map] = graph.of_type("kubernetes:core/v1:ConfigMap")
    assert config_map.parent == f"{STACK}kubernetes:yaml:ConfigGroup::extra"
    assert config_map.inputs["data"] == {"a": "1"}


def test_yaml_decode_answers_like_the_provider() -> None:
    result, failures = decode_yaml("a: 1\n---\n---\nb: [x, y]\n")
    assert (result, failures) == ({"result": [{"a": 1}, {"b": ["x", "y"]}]}, [])


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("- a\n- b\n", "a Kubernetes manifest document must be a mapping, got list"),
        ("a: [1, 2\n", "the manifest is not valid YAML: "),
        (None, "expected YAML text, got NoneType"),
        (
            "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
            "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
            "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n",
            "the manifest expands to more than 200,000 values (YAML aliases?)",
        ),
    ],
)
def test_yaml_decode_refuses_what_it_cannot_expand(text: str | None, reason: str) -> None:
    result, failures = decode_yaml(text)
    assert result == {}
    [(prop, message)] = failures
    assert prop == "text" and message.startswith(reason)


def test_a_bad_manifest_ends_the_run_with_the_reason(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p",
        """
        import pulumi_kubernetes as k8s

        k8s.yaml.ConfigFile("app", file="app.yaml")
        """,
    )
    (root / "app.yaml").write_text("- not\n- a mapping\n")
    with pytest.raises(EngineError, match="a Kubernetes manifest document must be a mapping, got list"):
        run_program(root, "dev")
