"""Label keys, label values and object names as the Kubernetes API server validates them, and the
baseline's labels built from the stack's tags."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.components.baseline.kubernetes import OnPremBaseline, OnPremBaselineArgs
from gpufleet.components.k8s_names import (
    check_labels,
    check_name,
    label_key,
    label_key_problem,
    label_value_problem,
    tag_labels,
)
from tests.components.conftest import Runner
from tests.components.test_baseline_k8s import FLEET, TAGS, onprem, spec_of


@pytest.mark.parametrize(
    "key",
    ["env", "cost-center", "gpufleet.io/stack", "app.kubernetes.io/name", "a", "A_b.c-9", "x" * 63],
)
def test_qualified_names_are_label_keys(key: str) -> None:
    assert label_key_problem(key) is None


@pytest.mark.parametrize(
    ("key", "words"),
    [
        ("gpufleet:stack", "no ':'"),
        ("gpufleet:pool", "no ':'"),
        ("-env", "starting and ending"),
        ("x" * 64, "64 characters, over 63"),
        ("/env", "empty prefix"),
        ("Gpufleet.io/stack", "its prefix"),
        ("gpufleet.io/", "no ':'"),
    ],
)
def test_other_keys_are_refused(key: str, words: str) -> None:
    problem = label_key_problem(key)
    assert problem is not None and words in problem


def test_label_values_and_names() -> None:
    assert label_value_problem("") is None
    assert label_value_problem("gpufleet-hybrid") is None
    assert label_value_problem("ml platform") is not None
    assert label_value_problem("a" * 64) is not None
    assert check_name("training", "label") == "training"
    assert check_name("gpufleet-prod-baseline") == "gpufleet-prod-baseline"
    for bad, kind in (
        ("Training", "label"),
        ("a.b", "label"),
        ("gpu_01", "subdomain"),
        ("a" * 254, "subdomain"),
    ):
        with pytest.raises(ValueError, match="Kubernetes object name"):
            check_name(bad, kind)
    with pytest.raises(ValueError, match="labels: label key 'gpufleet:stack'"):
        check_labels({"gpufleet:stack": "hybrid"})


def test_the_projects_tag_keys_become_gpufleet_io_label_keys() -> None:
    assert label_key("gpufleet:stack") == "gpufleet.io/stack"
    assert label_key("gpufleet:pool") == "gpufleet.io/pool"
    assert label_key("cost-center") == "cost-center"
    with pytest.raises(ValueError, match="tag 'other:key' cannot be a Kubernetes label"):
        label_key("other:key")
    assert tag_labels({"gpufleet:stack": "hybrid", "team": "ml platform", "empty": "é"}) == {
        "gpufleet.io/stack": "hybrid",
        "team": "ml-platform",
    }


def _labels_everywhere(value: Any) -> list[dict[str, str]]:
    found: list[dict[str, str]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("labels", "matchLabels") and isinstance(item, dict):
                found.append(item)
            found.extend(_labels_everywhere(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(_labels_everywhere(item))
    return found


def test_every_baseline_object_carries_the_stack_as_gpufleet_io_stack(run_pulumi: Runner) -> None:
    tags = {**TAGS, "gpufleet:stack": "hybrid"}
    mocks = run_pulumi(
        lambda: OnPremBaseline(
            "baseline", OnPremBaselineArgs(fleet=FLEET, onprem=spec_of(onprem()), tags=tags)
        )
    )
    objects = [r for r in mocks.registrations if r.type.startswith("kubernetes:") and r.custom]
    assert objects
    for registration in objects:
        for labels in _labels_everywhere(registration.inputs):
            assert all(":" not in key for key in labels), (registration.name, labels)
            assert check_labels(labels) == labels
    namespace = mocks.one("kubernetes:core/v1:Namespace", "baseline-ns-training").inputs
    assert namespace["metadata"]["labels"]["gpufleet.io/stack"] == "hybrid"
    assert "gpufleet:stack" not in namespace["metadata"]["labels"]
    daemon = mocks.one("kubernetes:apps/v1:DaemonSet", "baseline-device-plugin").inputs
    assert daemon["metadata"]["labels"]["gpufleet.io/stack"] == "hybrid"
    assert daemon["spec"]["template"]["metadata"]["labels"]["gpufleet.io/stack"] == "hybrid"
