"""Waivers over the Analyzer protocol: the real pack as the Pulumi engine runs it, configured the way the
CLI configures it (each policy's `waivers` in its config), on a fixed date (`GPUFLEET_TODAY`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pulumi.runtime.proto import analyzer_pb2_grpc

from gpufleet.evaluate import evaluate_stack
from tests.protocol.test_analyzer_protocol import ROOT, configure, over_grpc, start_pack, stop

from .helpers import WAIVE_STOR_001, bucket, no_cmk, policies, stack, urn, waiver


@pytest.fixture(scope="module")
def pack() -> Iterator[analyzer_pb2_grpc.AnalyzerStub]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GPUFLEET_TODAY", "2026-12-01")
        process, stub = start_pack(ROOT / "policies")
    try:
        yield stub
    finally:
        stop(process)


def analyze(stub: analyzer_pb2_grpc.AnalyzerStub, config: dict[str, Any] | None, *buckets: Any) -> list[Any]:
    """GF-STOR-001's diagnostics (it joins a bucket with its encryption resources: a stack policy)."""
    from gpufleet.policies.registry import default_registry

    graph = stack(*buckets)
    configure(stub, list(default_registry()), config, graph)
    return sorted(
        (found_urn.rsplit("::", 1)[-1], level, message.split("\n", 1)[1])
        for policy, level, found_urn, message in over_grpc(stub, graph)
        if policy == "bucket-customer-managed-key"
    )


def test_a_config_waiver_is_advisory_over_grpc(pack: analyzer_pb2_grpc.AnalyzerStub) -> None:
    config = {"GF-STOR-001": {"waivers": [waiver("aws:s3/bucket:Bucket::legacy-*")]}}
    assert analyze(pack, config, bucket("legacy-logs"), bucket("data")) == [
        ("data", "mandatory", no_cmk("data")),
        (
            "legacy-logs",
            "advisory",
            no_cmk("legacy-logs") + "; waived: legacy logs, migrating (owner data-team, until 2027-01-31, "
            "policy-config)",
        ),
    ]


def test_a_tag_waiver_is_refused_over_grpc_while_tags_are_off(pack: analyzer_pb2_grpc.AnalyzerStub) -> None:
    """The pack reads the project's policy-config.json, which does not allow tags: the tag waives nothing
    (it used to make any waivable rule advisory)."""
    tag = {WAIVE_STOR_001: "scratch data only; owner=ml-team; expires=2026-12-05"}
    assert analyze(pack, None, bucket("scratch", tag)) == [
        (
            "scratch",
            "mandatory",
            no_cmk("scratch") + "; waiver refused: tag waivers are off (`waivers.allow_tags` is not true in "
            f"policy-config.json); ask the platform team for a waiver there (tag {WAIVE_STOR_001})",
        )
    ]


def test_expired_and_refused_waivers_keep_the_level_over_grpc(pack: analyzer_pb2_grpc.AnalyzerStub) -> None:
    config = {"GF-STOR-001": {"waivable": False}}
    old = {"GF-STOR-001": {"waivers": [waiver(urn("old"), expires="2026-11-30")]}}
    assert analyze(pack, old, bucket("old")) == [
        (
            "old",
            "mandatory",
            no_cmk("old") + "; waiver not applied, it expired: legacy logs, migrating (owner data-team, "
            "expired 2026-11-30, policy-config)",
        )
    ]
    fresh = {WAIVE_STOR_001: "new bucket, moving soon; owner=ops; expires=2027-01-30"}
    assert analyze(pack, config, bucket("new", fresh)) == [
        (
            "new",
            "mandatory",
            no_cmk("new") + "; waiver refused: GF-STOR-001 is not waivable (waivable: false)",
        )
    ]


def test_grpc_and_offline_agree_on_what_is_waived(pack: analyzer_pb2_grpc.AnalyzerStub) -> None:
    config = {"GF-STOR-001": {"waivers": [waiver(urn("legacy-logs"))]}}
    buckets = (
        bucket("legacy-logs"),
        bucket("data"),
        bucket("t", {WAIVE_STOR_001: "scratch data only; owner=o; expires=2027-01-01"}),
    )
    over_grpc = {(name, level) for name, level, _ in analyze(pack, config, *buckets)}
    result = evaluate_stack(stack(*buckets), policies(), config)
    offline = {
        (f.urn.rsplit("::", 1)[-1], f.enforcement) for f in result.violations if f.rule_id == "GF-STOR-001"
    }
    offline |= {(w.finding.urn.rsplit("::", 1)[-1], "advisory") for w in result.waived}
    # The tag waives nothing on either path: tags are off in the project's policy config.
    assert over_grpc == offline == {("data", "mandatory"), ("legacy-logs", "advisory"), ("t", "mandatory")}
