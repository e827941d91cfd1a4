"""Components the engine could not look inside: a GF-ENGINE-001 finding in `check`, named in every report,
mandatory with `--strict`."""

# Expected messages are kept whole so a failing assertion shows the exact text.
# ruff: noqa: E501

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gpufleet.evaluate import StackResult, evaluate_stack
from gpufleet.findings import strict_opaque
from gpufleet.graph import Resource, ResourceGraph
from gpufleet.report import (
    exit_code,
    render_json,
    render_junit,
    render_markdown,
    render_rules,
    render_sarif,
    render_text,
    rules_table,
)
from tests.cli.helpers import invoke
from tests.engine.projects import write_project
from tests.evaluate.sample_policies import sample_policies

STACK_URN = "urn:pulumi:dev::apps::pulumi:pulumi:Stack::apps-dev"
CHART_URN = "urn:pulumi:dev::apps::kubernetes:helm.sh/v4:Chart::ingress"
RELEASE_URN = "urn:pulumi:dev::apps::kubernetes:helm.sh/v3:Release::dcgm"
WHY_CHART = (
    "a remote component: the kubernetes provider plugin builds its children, and it does not run offline"
)
WHY_RELEASE = (
    "a Helm release: the Kubernetes provider installs the chart's objects itself and never registers "
    "them as resources, so no policy sees them"
)
MESSAGE_CHART = (
    f"kubernetes:helm.sh/v4:Chart 'ingress' could not be looked inside offline: {WHY_CHART}; "
    "no policy judged what it creates"
)


def _graph() -> ResourceGraph:
    return ResourceGraph(
        project="apps",
        stack="dev",
        resources=[
            Resource(urn=STACK_URN, type="pulumi:pulumi:Stack", name="apps-dev", custom=False, inputs={}),
            Resource(
                urn=CHART_URN,
                type="kubernetes:helm.sh/v4:Chart",
                name="ingress",
                custom=False,
                inputs={"chart": "ingress-nginx"},
                parent=STACK_URN,
                remote=True,
            ),
            Resource(
                urn=RELEASE_URN,
                type="kubernetes:helm.sh/v3:Release",
                name="dcgm",
                custom=True,
                inputs={"chart": "dcgm-exporter"},
                parent=STACK_URN,
            ),
        ],
    )


@pytest.fixture(scope="module")
def result() -> StackResult:
    return evaluate_stack(_graph(), [])


def test_check_gives_each_opaque_component_an_advisory_finding(result: StackResult) -> None:
    engine = [f for f in result.violations if f.rule_id == "GF-ENGINE-001"]
    assert [(f.urn, f.resource_type, f.enforcement, f.severity, f.policy, f.engine) for f in engine] == [
        (
            RELEASE_URN,
            "kubernetes:helm.sh/v3:Release",
            "advisory",
            "medium",
            "component-not-inspected",
            "gpufleet",
        ),
        (
            CHART_URN,
            "kubernetes:helm.sh/v4:Chart",
            "advisory",
            "medium",
            "component-not-inspected",
            "gpufleet",
        ),
    ]
    assert engine[1].message == MESSAGE_CHART
    assert engine[1].remediation.startswith("Judge the children where they are built: run `pulumi preview")
    assert exit_code([result]) == 0


def test_strict_makes_them_mandatory(result: StackResult) -> None:
    strict = evaluate_stack(_graph(), [], strict=True)
    engine = [f for f in strict.violations if f.rule_id == "GF-ENGINE-001"]
    assert [f.enforcement for f in engine] == ["mandatory", "mandatory"]
    assert exit_code([strict]) == 1
    copy = StackResult(stack="dev", project="apps", resources=3, violations=list(result.violations))
    strict_opaque(copy)
    assert [f.enforcement for f in copy.violations if f.rule_id == "GF-ENGINE-001"] == ["mandatory"] * 2


def test_every_report_names_the_components(result: StackResult) -> None:
    document = json.loads(render_json([result]))
    assert document["stacks"][0]["opaque"] == [
        {"urn": CHART_URN, "type": "kubernetes:helm.sh/v4:Chart", "name": "ingress", "why": WHY_CHART},
        {"urn": RELEASE_URN, "type": "kubernetes:helm.sh/v3:Release", "name": "dcgm", "why": WHY_RELEASE},
    ]

    text = render_text([result])
    assert (
        "  not inspected: 2 components built by a provider plugin could not be looked inside offline (GF-ENGINE-001)\n"
        f"    - ingress (kubernetes:helm.sh/v4:Chart): {WHY_CHART}\n"
        f"    - dcgm (kubernetes:helm.sh/v3:Release): {WHY_RELEASE}\n"
    ) in text
    assert f"      - ingress (kubernetes:helm.sh/v4:Chart): {MESSAGE_CHART}\n" in text

    sarif = json.loads(render_sarif([result], sample_policies()))
    run = sarif["runs"][0]
    assert run["properties"]["opaqueComponents"][0] == {
        "stack": "dev",
        "urn": CHART_URN,
        "type": "kubernetes:helm.sh/v4:Chart",
        "name": "ingress",
        "why": WHY_CHART,
    }
    engine_results = [r for r in run["results"] if r["ruleId"] == "GF-ENGINE-001"]
    assert [r["level"] for r in engine_results] == ["warning", "warning"]
    [rule] = [r for r in run["tool"]["driver"]["rules"] if r["id"] == "GF-ENGINE-001"]
    assert rule["name"] == "component-not-inspected"

    junit = ET.fromstring(render_junit([result], sample_policies()))
    properties = junit.findall("./testsuite/properties/property")
    assert [(p.get("name"), p.get("value")) for p in properties] == [
        ("gpufleet.not-inspected", f"{CHART_URN}: {WHY_CHART}"),
        ("gpufleet.not-inspected", f"{RELEASE_URN}: {WHY_RELEASE}"),
    ]
    case = junit.find(
        "./testsuite/testcase[@name='GF-ENGINE-001 component-not-inspected: ingress (kubernetes:helm.sh/v4:Chart)']"
    )
    assert case is not None and case.find("system-out") is not None

    markdown = render_markdown([result], sample_policies())
    assert (
        "⚠️ Not inspected: 2 component(s) built by a provider plugin could not be looked inside offline "
        "(GF-ENGINE-001): `ingress (kubernetes:helm.sh/v4:Chart)`, `dcgm (kubernetes:helm.sh/v3:Release)`.\n"
    ) in markdown


def test_a_stack_without_opaque_components_says_nothing_of_them() -> None:
    clean = StackResult(stack="dev", project="apps", resources=1)
    assert "not inspected" not in render_text([clean])
    assert "Not inspected" not in render_markdown([clean])
    assert json.loads(render_json([clean]))["stacks"][0]["opaque"] == []


def test_the_engine_rule_is_listed_with_the_rules() -> None:
    rows = {row["id"]: row for row in rules_table(sample_policies())}
    engine = rows["GF-ENGINE-001"]
    assert (
        engine["policy"],
        engine["family"],
        engine["kind"],
        engine["enforcement"],
        engine["severity"],
    ) == (
        "component-not-inspected",
        "engine",
        "engine",
        "advisory",
        "medium",
    )
    assert "GF-ENGINE-001  component-not-inspected" in render_rules(list(rows.values()))


def test_check_strict_exits_1_on_an_opaque_component(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p",
        """
        import pulumi_kubernetes as k8s

        k8s.helm.v3.Release("dcgm", chart="dcgm-exporter", namespace="monitoring")
        """,
    )
    advisory = invoke("check", str(root), "-s", "dev")
    assert advisory.exit_code == 0, advisory.stdout
    [finding] = json.loads(advisory.stdout)["stacks"][0]["violations"]
    assert (finding["rule_id"], finding["enforcement"]) == ("GF-ENGINE-001", "advisory")
    strict = invoke("check", str(root), "-s", "dev", "--strict", "--format", "text")
    assert strict.exit_code == 1, strict.stdout
    assert "GF-ENGINE-001 component-not-inspected [mandatory] (1)" in strict.stdout
