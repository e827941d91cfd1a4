"""`plan` names the components the engine could not look inside, in text as in `--json`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import invoke
from tests.engine.projects import write_project

WHY_RELEASE = (
    "a Helm release: the Kubernetes provider installs the chart's objects itself and never registers "
    "them as resources, so no policy sees them"
)


def test_plan_text_lists_what_plan_json_lists(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p",
        """
        import pulumi_kubernetes as k8s

        k8s.helm.v3.Release("dcgm", chart="dcgm-exporter", namespace="monitoring")
        k8s.core.v1.Namespace("monitoring")
        """,
    )
    graph_file = tmp_path / "graph.json"
    text = invoke("plan", str(root), "-s", "dev", "--json", str(graph_file))
    assert text.exit_code == 0, text.stdout
    [item] = json.loads(graph_file.read_text())["opaque"]
    assert (item["name"], item["type"], item["why"]) == ("dcgm", "kubernetes:helm.sh/v3:Release", WHY_RELEASE)
    assert (
        "not inspected: 1 component built by a provider plugin could not be looked inside offline "
        "(GF-ENGINE-001); no policy judges what they create\n"
        f"  - dcgm (kubernetes:helm.sh/v3:Release): {WHY_RELEASE}\n"
    ) in text.stdout


def test_plan_text_without_opaque_components_says_nothing_of_them(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", "import pulumi_kubernetes as k8s\n\nk8s.core.v1.Namespace('gpu')\n")
    text = invoke("plan", str(root), "-s", "dev")
    assert text.exit_code == 0, text.stdout
    assert "kubernetes:core/v1:Namespace" in text.stdout
    assert "not inspected" not in text.stdout
