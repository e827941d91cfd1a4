"""The pack as the Pulumi engine runs it: a subprocess speaking the Analyzer gRPC protocol.

The CLI starts a Python pack as `python -u -m pulumi.policy <engine-address> <pack dir>` from the pack
directory, reads the port from the first stdout line, then calls GetAnalyzerInfo, Configure,
ConfigureStack, Analyze (per resource) and AnalyzeStack. The violations must equal `evaluate_stack` on
the same resources.
"""

# Expected messages are kept whole so a failing assertion shows the exact text.
# ruff: noqa: E501

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import empty_pb2, struct_pb2
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc

from gpufleet.analyzer_inputs import analyzed_resources, default_stack_tags, stack_props
from gpufleet.evaluate import Finding, evaluate_stack
from gpufleet.graph import Resource, ResourceGraph
from gpufleet.policies.rule import GfPolicy, GfStackPolicy
from gpufleet.policy_config import resolve_policy_config
from tests.evaluate.sample_policies import sample_graph, sample_policies

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable

LEVELS = {
    "advisory": analyzer_pb2.ADVISORY,
    "mandatory": analyzer_pb2.MANDATORY,
    "remediate": analyzer_pb2.REMEDIATE,
    "disabled": analyzer_pb2.DISABLED,
}
LEVEL_NAMES = {v: k for k, v in LEVELS.items()}


def start_pack(pack_dir: Path) -> tuple[subprocess.Popen[bytes], analyzer_pb2_grpc.AnalyzerStub]:
    process = subprocess.Popen(
        [PYTHON, "-u", "-m", "pulumi.policy", "127.0.0.1:1", str(pack_dir)],
        cwd=pack_dir,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    line = process.stdout.readline().decode().strip()
    if not line.isdigit():
        process.kill()
        _, err = process.communicate(timeout=10)
        pytest.fail(f"the pack did not print its port: {line!r}\n{err.decode()}")
    channel = grpc.insecure_channel(f"127.0.0.1:{line}")
    grpc.channel_ready_future(channel).result(timeout=10)
    return process, analyzer_pb2_grpc.AnalyzerStub(channel)


def stop(process: subprocess.Popen[bytes]) -> None:
    process.kill()
    process.wait(timeout=10)


@pytest.fixture(scope="module")
def sample_pack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[analyzer_pb2_grpc.AnalyzerStub]:
    pack_dir = tmp_path_factory.mktemp("sample-pack")
    (pack_dir / "__main__.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from pulumi_policy import EnforcementLevel, PolicyPack\n"
        "from tests.evaluate.sample_policies import sample_policies\n"
        "PolicyPack(name='gpufleet', policies=sample_policies(), enforcement_level=EnforcementLevel.ADVISORY)\n"
    )
    process, stub = start_pack(pack_dir)
    try:
        yield stub
    finally:
        stop(process)


@pytest.fixture(scope="module")
def real_pack() -> Iterator[analyzer_pb2_grpc.AnalyzerStub]:
    process, stub = start_pack(ROOT / "policies")
    try:
        yield stub
    finally:
        stop(process)


def struct(values: dict[str, Any]) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    message.update(values)
    return message


def provider_message(provider: Resource | None) -> analyzer_pb2.AnalyzerProviderResource | None:
    if provider is None:
        return None
    return analyzer_pb2.AnalyzerProviderResource(
        type=provider.type, properties=struct(provider.inputs), urn=provider.urn, name=provider.name
    )


def options(resource: Resource) -> analyzer_pb2.AnalyzerResourceOptions:
    return analyzer_pb2.AnalyzerResourceOptions(protect=resource.protect, parent=resource.parent or "")


def configure(
    stub: analyzer_pb2_grpc.AnalyzerStub,
    policies: list[GfPolicy],
    config: dict[str, Any] | None,
    graph: ResourceGraph,
) -> None:
    """What the CLI sends: every policy's reconciled enforcement level and config, then the stack tags."""
    resolved = resolve_policy_config(policies, config)
    stub.Configure(
        analyzer_pb2.ConfigureAnalyzerRequest(
            policyConfig={
                name: analyzer_pb2.PolicyConfig(
                    enforcementLevel=LEVELS[r.enforcement.value], properties=struct(r.properties)
                )
                for name, r in resolved.items()
            }
        )
    )
    stub.ConfigureStack(
        analyzer_pb2.AnalyzerStackConfigureRequest(
            stack=graph.stack, project=graph.project, dry_run=True, tags=default_stack_tags(graph)
        )
    )


Violation = tuple[str, str, str, str]


def over_grpc(stub: analyzer_pb2_grpc.AnalyzerStub, graph: ResourceGraph) -> list[Violation]:
    resources, provider_of = analyzed_resources(graph)
    found: list[Violation] = []
    for resource in resources:
        response = stub.Analyze(
            analyzer_pb2.AnalyzeRequest(
                type=resource.type,
                properties=struct(resource.inputs),
                urn=resource.urn,
                name=resource.name,
                options=options(resource),
                provider=provider_message(provider_of[resource.urn]),
            )
        )
        # The engine attributes a resource's diagnostics to the analyzed resource.
        found += [
            (d.policyName, LEVEL_NAMES[d.enforcementLevel], resource.urn, d.message)
            for d in response.diagnostics
        ]
    response = stub.AnalyzeStack(
        analyzer_pb2.AnalyzeStackRequest(
            resources=[
                analyzer_pb2.AnalyzerResource(
                    type=r.type,
                    properties=struct(stack_props(r)),
                    urn=r.urn,
                    name=r.name,
                    options=options(r),
                    provider=provider_message(provider_of[r.urn]),
                    parent=r.parent or "",
                    dependencies=list(r.dependencies),
                    propertyDependencies={
                        k: analyzer_pb2.AnalyzerPropertyDependencies(urns=list(v))
                        for k, v in r.property_dependencies.items()
                    },
                )
                for r in resources
            ]
        )
    )
    found += [(d.policyName, LEVEL_NAMES[d.enforcementLevel], d.urn, d.message) for d in response.diagnostics]
    return sorted(found)


def offline(graph: ResourceGraph, policies: list[GfPolicy], config: dict[str, Any] | None) -> list[Violation]:
    by_name = {p.name: p for p in policies}

    def message(finding: Finding) -> str:
        description = by_name[finding.policy].description
        if finding.message.startswith("can't run policy "):
            return finding.message
        return f"{description}\n{finding.message}"

    result = evaluate_stack(graph, policies, config)
    rows = [(f.policy, f.enforcement, f.urn, message(f)) for f in result.violations]
    return sorted(_as_engine_shows_stack_unknowns(rows, by_name))


def _as_engine_shows_stack_unknowns(rows: list[Violation], by_name: dict[str, GfPolicy]) -> list[Violation]:
    """Offline, a stack policy's values it could not judge become one advisory finding per resource, at
    that resource's URN. The engine shows them as one diagnostic for the policy, with no URN and the
    per-resource texts joined: fold the offline rows back into that shape to compare."""
    kept: list[Violation] = []
    unjudged: dict[str, list[Violation]] = {}
    for row in rows:
        policy, _, _, text = row
        if isinstance(by_name[policy], GfStackPolicy) and text.startswith("can't run policy "):
            unjudged.setdefault(policy, []).append(row)
        else:
            kept.append(row)
    for policy, found in unjudged.items():
        prefix = found[0][3].split(" during preview: ", 1)[0] + " during preview: "
        texts = [text[len(prefix) :] for _, _, _, text in found]
        joined = (
            texts[0]
            if len(texts) == 1
            else f"{len(texts)} resources could not be judged: " + "; ".join(texts)
        )
        kept.append((policy, found[0][1], "", prefix + joined))
    return kept


def test_analyzer_info_lists_policies_levels_and_schemas(sample_pack: analyzer_pb2_grpc.AnalyzerStub) -> None:
    info = sample_pack.GetAnalyzerInfo(empty_pb2.Empty())
    assert info.name == "gpufleet"
    policies = {p.name: p for p in info.policies}
    assert sorted(policies) == sorted(p.name for p in sample_policies())
    retention = policies["sample-log-retention"]
    assert retention.enforcementLevel == analyzer_pb2.MANDATORY
    assert retention.description == "GF-AUD-901: Log groups keep logs at least min_days"
    assert dict(retention.configSchema.properties["min_days"]) == {
        "type": "integer",
        "default": 180.0,
        "minimum": 1.0,
    }
    assert retention.policy_type == analyzer_pb2.POLICY_TYPE_RESOURCE
    assert policies["sample-stack-budget"].policy_type == analyzer_pb2.POLICY_TYPE_STACK
    assert policies["sample-bucket-kms"].severity == analyzer_pb2.POLICY_SEVERITY_HIGH


@pytest.mark.parametrize(
    "config",
    [
        None,
        {"sample-log-retention": {"min_days": 20}, "sample-allowed-region": "mandatory"},
        {"all": "advisory", "sample-bucket-kms": "disabled"},
    ],
)
def test_grpc_violations_equal_offline_evaluation(
    sample_pack: analyzer_pb2_grpc.AnalyzerStub, config: dict[str, Any] | None
) -> None:
    graph = sample_graph()
    policies = sample_policies()
    configure(sample_pack, policies, config, graph)
    expected = offline(graph, policies, config)
    assert expected  # the sample graph violates several sample policies
    assert over_grpc(sample_pack, graph) == expected


def test_grpc_unknown_and_not_applicable(sample_pack: analyzer_pb2_grpc.AnalyzerStub) -> None:
    graph = sample_graph()
    configure(sample_pack, sample_policies(), None, graph)
    late = graph.get("urn:pulumi:dev::gpufleet::aws:cloudwatch/logGroup:LogGroup::late-logs")
    assert late is not None
    response = sample_pack.Analyze(
        analyzer_pb2.AnalyzeRequest(
            type=late.type,
            properties=struct(late.inputs),
            urn=late.urn,
            name=late.name,
            options=options(late),
        )
    )
    assert [(d.policyName, d.enforcementLevel, d.urn, d.message) for d in response.diagnostics] == [
        (
            "sample-raw-unknown",
            analyzer_pb2.ADVISORY,
            "",
            "can't run policy 'sample-raw-unknown' from policy pack 'gpufleet@v0.0.1' during preview: "
            "string value at .name can't be known during preview",
        )
    ]
    oss = graph.get("urn:pulumi:dev::gpufleet::alicloud:oss/bucket:Bucket::oss-ckpt")
    assert oss is not None
    response = sample_pack.Analyze(
        analyzer_pb2.AnalyzeRequest(
            type=oss.type,
            properties=struct(oss.inputs),
            urn=oss.urn,
            name=oss.name,
            options=options(oss),
        )
    )
    assert [(n.policy_name, n.reason) for n in response.not_applicable] == [
        ("sample-bucket-kms", "OSS buckets are judged elsewhere")
    ]
    assert list(response.diagnostics) == []


def test_real_pack_serves_the_registry(real_pack: analyzer_pb2_grpc.AnalyzerStub) -> None:
    from gpufleet.policies.registry import default_registry

    registry = list(default_registry())
    info = real_pack.GetAnalyzerInfo(empty_pb2.Empty())
    assert info.name == "gpufleet"
    assert sorted(p.name for p in info.policies) == sorted(p.name for p in registry)
    for served in info.policies:
        assert served.description.startswith("GF-")


def test_real_pack_matches_offline_evaluation(real_pack: analyzer_pb2_grpc.AnalyzerStub) -> None:
    from gpufleet.policies.registry import default_registry

    registry = list(default_registry())
    graph = sample_graph()
    configure(real_pack, registry, None, graph)
    assert over_grpc(real_pack, graph) == offline(graph, registry, None)


def test_real_pack_matches_offline_evaluation_on_a_mutated_golden_stack(
    real_pack: analyzer_pb2_grpc.AnalyzerStub,
) -> None:
    """The dev stack as the program builds it, with every dev mutation of the matrix applied at once: the
    engine path and the offline path must return the same violations, and there must be many."""
    from gpufleet.engine import run_program
    from gpufleet.policies.registry import default_registry
    from tests.mutation.edits import apply
    from tests.mutation.mutations import MUTATIONS

    registry = list(default_registry())
    graph = run_program(ROOT, "dev")
    for rule_id in ("GF-STOR-001", "GF-ACC-004", "GF-COST-004", "GF-AUD-002", "GF-IAM-001"):
        mutation = MUTATIONS[rule_id]
        assert mutation.stack == "dev"
        graph, _ = apply(graph, mutation.mutate)
    configure(real_pack, registry, None, graph)
    engine = over_grpc(real_pack, graph)
    assert engine == offline(graph, registry, None)
    found = {by_name for by_name, *_ in engine}
    names = {p.rule.id: p.name for p in registry}
    assert {
        names[r] for r in ("GF-STOR-001", "GF-ACC-004", "GF-COST-004", "GF-AUD-002", "GF-IAM-001")
    } <= found
