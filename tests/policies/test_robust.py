"""Values a program can produce that once crashed the pack: each is a finding of the rule that reads
it, through `policy.validate` and through the whole pack on a graph, and never an exception.

Malformed input is "cannot be parsed: <field>, <at most 200 characters of the value>" at the rule's
enforcement; an unknown value is the advisory "could not be judged"; an internal error of one rule on
one resource is "could not be judged: internal error <type>" and the other verdicts survive.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.protobuf import struct_pb2
from pulumi.runtime.proto import analyzer_pb2
from pulumi_policy import EnforcementLevel, ResourceValidationArgs, Severity
from pulumi_policy.policy import _PolicyAnalyzerServicer

from gpufleet.evaluate import Finding, evaluate_stack
from gpufleet.graph import Resource, ResourceGraph
from gpufleet.policies.access.no_ssh_rdp_ingress import POLICY as NO_SSH
from gpufleet.policies.cost.autoscaling_sanity import POLICY as AUTOSCALING
from gpufleet.policies.cost.stack_budget import POLICY as BUDGET
from gpufleet.policies.iam.no_wildcard_actions import POLICY as NO_WILDCARD
from gpufleet.policies.k8s.gpu_namespace_quota import POLICY as NS_QUOTA
from gpufleet.policies.k8s.gpu_priority_disruption import POLICY as PRIORITY
from gpufleet.policies.k8s.pod_host_isolation import POLICY as HOST_ISOLATION
from gpufleet.policies.props import EXCERPT_CHARS, Malformed, excerpt, get_objects, json_value
from gpufleet.policies.registry import default_registry
from gpufleet.policies.rule import GfResourcePolicy, GfStackPolicy, Rule, judge, validate_collecting
from gpufleet.policies.storage.bucket_tls_only import POLICY as TLS_ONLY

from .support import UNKNOWN_STRING_VALUE, opts, res, run_resource, run_stack, urn_of

BUCKET = "aws:s3/bucket:Bucket"
BUCKET_POLICY = "aws:s3/bucketPolicy:BucketPolicy"
SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup"
ROLE = "aws:iam/role:Role"
DEPLOYMENT = "kubernetes:apps/v1:Deployment"
PDB = "kubernetes:policy/v1:PodDisruptionBudget"
HPA = "kubernetes:autoscaling/v2:HorizontalPodAutoscaler"
AWS_BUDGET = "aws:budgets/budget:Budget"


def deep_json(depth: int) -> str:
    return '{"Statement": ' + "[" * depth + "1" + "]" * depth + "}"


def deny_statement(**fields: Any) -> dict[str, Any]:
    statement: dict[str, Any] = {
        "Effect": "Deny",
        "Principal": "*",
        "Action": "s3:*",
        "Resource": "*",
        "Condition": {"Bool": {"aws:SecureTransport": "false"}},
    }
    statement.update(fields)
    return statement


def bucket_with_policy(policy: Any) -> list[Any]:
    bucket = res(BUCKET, "ckpt", {"bucket": "ckpt"})
    attached = res(
        BUCKET_POLICY, "ckpt-tls", {"bucket": "ckpt", "policy": policy}, prop_deps={"bucket": [bucket]}
    )
    return [bucket, attached]


def gpu_deployment(name: str = "train", namespace: Any = "ml", labels: Any = None) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": labels if labels is not None else {"app": name}},
                "spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
            },
        },
    }


# --- the accessors ------------------------------------------------------------------------------


def test_malformed_message_quotes_at_most_200_characters() -> None:
    error = Malformed(".ingress is a string, not a list of objects", "x" * 5000)
    assert error.message.startswith('cannot be parsed: .ingress is a string, not a list of objects, "xxx')
    assert len(error.excerpt or "") == EXCERPT_CHARS
    assert error.excerpt is not None and error.excerpt.endswith("...")
    assert error.about("IAM role 'r'") == f"cannot be parsed: IAM role 'r': {error.detail}"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (5.0, "5"),
        (123456789012.0, "123456789012"),
        (True, "true"),
        (None, "null"),
        (float("nan"), "NaN"),
        (10**400, "<a 1329-bit integer>"),
        ({"AWS": [1.5, "a"]}, '{"AWS": [1.5, "a"]}'),
        ("é中🚀", '"é中🚀"'),
    ],
)
def test_excerpt_is_json_like_and_safe(value: Any, shown: str) -> None:
    assert excerpt(value) == shown


def test_excerpt_of_a_deep_value_is_bounded() -> None:
    deep: Any = "leaf"
    for _ in range(5000):
        deep = [deep]
    text = excerpt(deep)
    assert len(text) <= EXCERPT_CHARS
    assert text.startswith("[[[[") and "..." in text


def test_json_value_of_a_document_nested_1000_deep_is_malformed() -> None:
    with pytest.raises(Malformed, match=r"the document at \.policy nests too deeply to read"):
        json_value(deep_json(1000), "policy")
    with pytest.raises(Malformed, match=r"the document at \.policy is not valid JSON"):
        json_value("1" * 5000, "policy")  # longer than Python reads as an integer
    assert json_value("", "policy") is None


def test_get_objects_shapes() -> None:
    assert get_objects({"ingress": {"fromPort": 22}}, "ingress") == [{"fromPort": 22}]
    assert get_objects({}, "ingress") == []
    with pytest.raises(
        Malformed, match=r"^cannot be parsed: \.ingress is a number, not a list of objects, 5$"
    ):
        get_objects({"ingress": 5.0}, "ingress")
    with pytest.raises(Malformed, match=r"\.ingress\.1 is a string, not an object"):
        get_objects({"ingress": [{}, "tcp"]}, "ingress")


# --- the known crash sites, one policy at a time --------------------------------------------------


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        (
            deny_statement(Principal={"AWS": 123456789012}),
            "cannot be parsed: .policy statement 0 Principal.AWS holds a number, not a string, 123456789012",
        ),
        (
            deny_statement(Action=5),
            "cannot be parsed: .policy statement 0 Action holds a number, not a string, 5",
        ),
        (
            deny_statement(Action=True),
            "cannot be parsed: .policy statement 0 Action holds a boolean, not a string, true",
        ),
    ],
)
def test_bucket_policy_deny_with_non_string_principal_or_action(
    statement: dict[str, Any], message: str
) -> None:
    for policy in ({"Statement": [statement]}, json.dumps({"Statement": [statement]})):
        resources = bucket_with_policy(policy)
        assert run_stack(TLS_ONLY, resources) == [(message, resources[0].urn)]


def test_bucket_policy_nested_1000_deep_cannot_be_parsed() -> None:
    resources = bucket_with_policy(deep_json(1000))
    [(message, urn)] = run_stack(TLS_ONLY, resources)
    assert urn == resources[0].urn
    assert message.startswith(
        'cannot be parsed: the document at .policy nests too deeply to read, "{\\"Statement'
    )
    assert len(message) <= len("cannot be parsed: the document at .policy nests too deeply to read, ") + 200


def test_iam_policy_nested_1000_deep_cannot_be_parsed() -> None:
    messages = run_resource(NO_WILDCARD, "aws:iam/policy:Policy", {"policy": deep_json(1000)}, "ci")
    assert len(messages) == 1
    assert messages[0].startswith(
        "cannot be parsed: IAM policy 'ci': the document at .policy nests too deeply"
    )


def test_security_group_ingress_number() -> None:
    group = res(SECURITY_GROUP, "gpu", {"ingress": 5})
    assert run_stack(NO_SSH, [group]) == [
        ("cannot be parsed: .ingress is a number, not a list of objects, 5", group.urn)
    ]


def test_role_inline_policies_boolean() -> None:
    props = {"assumeRolePolicy": json.dumps({"Statement": []}), "inlinePolicies": True}
    assert run_resource(NO_WILDCARD, ROLE, props, "gpu") == [
        "cannot be parsed: IAM role 'gpu': .inlinePolicies is a boolean, not a list of objects, true"
    ]


def test_inline_policies_entry_that_is_not_an_object() -> None:
    props = {"inlinePolicies": [{"name": "ok", "policy": json.dumps({"Statement": []})}, "x"]}
    assert run_resource(NO_WILDCARD, ROLE, props, "gpu") == [
        "cannot be parsed: IAM role 'gpu': .inlinePolicies.1 is a string, not an object, \"x\""
    ]


@pytest.mark.parametrize("match", [5, "app=train", ["app", "train"]])
def test_pod_disruption_budget_with_non_mapping_match_labels(match: Any) -> None:
    workload = res(DEPLOYMENT, "train", gpu_deployment())
    budget = res(
        PDB, "train", {"metadata": {"namespace": "ml"}, "spec": {"selector": {"matchLabels": match}}}
    )
    priority = res("kubernetes:scheduling.k8s.io/v1:PriorityClass", "gpu", {"value": 1000})
    found = run_stack(PRIORITY, [workload, budget, priority])
    assert found[0] == (
        f"cannot be parsed: .spec.selector.matchLabels is {_kind(match)}, not an object, {json.dumps(match)}",
        budget.urn,
    )
    # The budget cannot select the workload, so the workload is still judged (and fails).
    assert found[1][1] == workload.urn and "no PodDisruptionBudget in namespace 'ml'" in found[1][0]


def _kind(value: Any) -> str:
    return {int: "a number", str: "a string", list: "a list"}[type(value)]


@pytest.mark.parametrize("policy", [NS_QUOTA, PRIORITY, AUTOSCALING], ids=lambda p: p.rule.id)
def test_dict_namespace_is_a_finding_on_that_workload_only(policy: GfStackPolicy) -> None:
    odd = res(DEPLOYMENT, "odd", gpu_deployment("odd", namespace={"name": "ml"}))
    fine = res(DEPLOYMENT, "fine", gpu_deployment("fine", namespace="ml"))
    hpa = res(HPA, "fine", {"metadata": {"namespace": "ml"}, "spec": {"scaleTargetRef": {"name": "fine"}}})
    found = run_stack(policy, [odd, fine, hpa])
    assert (
        'cannot be parsed: .metadata.namespace is an object, not a name, {"name": "ml"}',
        odd.urn,
    ) in found
    assert all(urn != odd.urn or message.startswith("cannot be parsed") for message, urn in found)


def _aws_budget(kind: str, unit: str, amount: str) -> dict[str, Any]:
    return {
        "budgetType": kind,
        "limitAmount": amount,
        "limitUnit": unit,
        "timeUnit": "MONTHLY",
        "notifications": [
            {
                "threshold": 80,
                "thresholdType": "PERCENTAGE",
                "notificationType": "ACTUAL",
                "subscriberEmailAddresses": ["ops@example.com"],
            }
        ],
    }


ESTIMATE = {"monthly_estimates": {"aws": {"amount": 900, "currency": "USD"}}}


def test_usage_budget_in_gigabytes_is_not_a_spend_limit() -> None:
    cost = res(AWS_BUDGET, "spend", _aws_budget("COST", "USD", "1000"))
    usage = res(AWS_BUDGET, "egress", _aws_budget("USAGE", "GB", "500000"))
    assert run_stack(BUDGET, [cost, usage], ESTIMATE) == []
    # Judged as a usage budget: under the estimate the cost budget is what fails.
    low = res(AWS_BUDGET, "spend", _aws_budget("COST", "USD", "100"))
    assert run_stack(BUDGET, [low, usage], ESTIMATE) == [
        (
            "AWS budget 'spend' limits AWS spend to 100 USD a month, below the stack's monthly estimate "
            "(usage profile and schedules) of 900.00 USD; raise the limit or shrink the pools",
            low.urn,
        )
    ]


def test_cost_budget_in_a_unit_that_is_no_currency() -> None:
    odd = res(AWS_BUDGET, "spend", _aws_budget("COST", "GB", "1000"))
    assert run_stack(BUDGET, [odd], ESTIMATE) == [
        (
            "cannot be parsed: AWS budget 'spend': .limitUnit is not a currency the price catalogue "
            'knows, "GB"',
            odd.urn,
        )
    ]


# --- unknown stays advisory ------------------------------------------------------------------------


def test_unknown_ingress_is_not_judged_not_malformed() -> None:
    group = res(SECURITY_GROUP, "gpu", {"ingress": UNKNOWN_STRING_VALUE}, proxy=True)
    [(message, urn)] = run_stack(NO_SSH, [group])
    assert urn == group.urn
    assert message.startswith("could not be judged at preview")
    assert "ingress" in message


# --- the last resort --------------------------------------------------------------------------------

CRASH_RULE = Rule(
    id="GF-STOR-999",
    name="crash-test",
    description="Fails on purpose.",
    clouds=("aws",),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.LOW,
    remediation="none",
    url="https://example.com",
)


def _crash(args: Any, report: Any) -> None:
    raise ZeroDivisionError("boom")


def test_a_resource_policy_that_raises_reports_an_internal_error() -> None:
    assert run_resource(GfResourcePolicy(CRASH_RULE, _crash), BUCKET, {}) == [
        "could not be judged: internal error ZeroDivisionError"
    ]


def test_a_stack_policy_keeps_judging_after_one_resource_raises() -> None:
    def validate(args: Any, report: Any) -> None:
        for resource in args.resources:

            def check(resource: Any = resource) -> None:
                if resource.name == "bad":
                    raise KeyError("unknown currency")
                report("judged", resource.urn)

            judge(resource.urn, check)
        args.not_applicable("nothing more")

    bad, good = res(BUCKET, "bad", {}), res(BUCKET, "good", {})
    assert run_stack(GfStackPolicy(CRASH_RULE, validate), [bad, good]) == [
        ("could not be judged: internal error KeyError", bad.urn),
        ("judged", good.urn),
    ]


def test_outside_a_policy_judge_raises() -> None:
    with pytest.raises(Malformed):
        judge(None, lambda: get_objects({"ingress": 5}, "ingress") and None)


def test_validate_collecting_sees_the_internal_error() -> None:
    found: list[tuple[str, str | None]] = []
    args = ResourceValidationArgs(BUCKET, {}, urn_of(BUCKET, "b"), "b", opts(), None, {})
    validate_collecting(GfResourcePolicy(CRASH_RULE, _crash), args, lambda m, u=None: found.append((m, u)))
    assert found == [("could not be judged: internal error ZeroDivisionError", None)]


# --- the whole pack, offline and as the Pulumi engine's policy server ----------------------------------


def _resource(resource_type: str, name: str, inputs: dict[str, Any]) -> Resource:
    return Resource(
        urn=urn_of(resource_type, name), type=resource_type, name=name, custom=True, inputs=inputs
    )


HOSTILE = [
    _resource(BUCKET, "ckpt", {"bucket": "ckpt"}),
    _resource(
        BUCKET_POLICY,
        "ckpt-tls",
        {
            "bucket": "ckpt",
            "policy": json.dumps({"Statement": [deny_statement(Principal={"AWS": 123456789012})]}),
        },
    ),
    _resource("aws:iam/policy:Policy", "deep", {"policy": deep_json(1000)}),
    _resource(SECURITY_GROUP, "gpu", {"ingress": 5}),
    _resource(ROLE, "gpu", {"assumeRolePolicy": json.dumps({"Statement": []}), "inlinePolicies": True}),
    _resource(DEPLOYMENT, "train", gpu_deployment(namespace={"name": "ml"})),
    _resource(PDB, "train-pdb", {"metadata": {"namespace": "ml"}, "spec": {"selector": {"matchLabels": 5}}}),
    _resource(AWS_BUDGET, "egress", _aws_budget("USAGE", "GB", "500000")),
    _resource(AWS_BUDGET, "spend", _aws_budget("COST", "USD", "1000")),
]


def _parse_findings(findings: list[Finding]) -> set[tuple[str, str, str]]:
    return {
        (f.rule_id, f.urn.rsplit("::", 1)[-1], f.enforcement)
        for f in findings
        if f.message.startswith("cannot be parsed")
    }


def test_the_whole_pack_on_a_hostile_graph_reports_every_malformed_value() -> None:
    graph = ResourceGraph(project="gpufleet", stack="dev", resources=list(HOSTILE))
    result = evaluate_stack(graph, list(default_registry()))
    assert not [f for f in result.violations if "internal error" in f.message]
    assert _parse_findings(result.violations) == {
        ("GF-STOR-004", "ckpt", "mandatory"),
        ("GF-IAM-001", "deep", "mandatory"),
        ("GF-IAM-002", "deep", "mandatory"),
        ("GF-IAM-006", "deep", "mandatory"),
        ("GF-ACC-001", "gpu", "mandatory"),
        ("GF-IAM-001", "gpu", "mandatory"),
        ("GF-IAM-002", "gpu", "mandatory"),
        ("GF-IAM-006", "gpu", "mandatory"),
        ("GF-K8S-002", "train", "mandatory"),
        ("GF-K8S-004", "train", "advisory"),
        ("GF-K8S-004", "train-pdb", "advisory"),
        ("GF-COST-006", "train", "mandatory"),
    }
    # Other verdicts on the same resources survive: the cost tags are still judged on every resource
    # that carries cost (an IAM policy such as 'deep' carries none, so GF-COST-001 leaves it out).
    tagged = {f.urn.rsplit("::", 1)[-1] for f in result.violations if f.rule_id == "GF-COST-001"}
    assert {"ckpt", "gpu", "train"} <= tagged
    assert "deep" not in tagged


def _struct(values: dict[str, Any]) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    message.update(values)
    return message


def test_the_policy_server_answers_for_a_hostile_resource() -> None:
    policies = list(default_registry())
    servicer = _PolicyAnalyzerServicer("gpufleet", "0.0.1", policies, EnforcementLevel.ADVISORY)
    for resource in HOSTILE:
        request = analyzer_pb2.AnalyzeRequest(
            type=resource.type, properties=_struct(resource.inputs), urn=resource.urn, name=resource.name
        )
        response = servicer.Analyze(request, None)
        assert not [d for d in response.diagnostics if "internal error" in d.message], resource.name
    # A resource policy reading a malformed value answers with a finding.
    request = analyzer_pb2.AnalyzeRequest(
        type=ROLE, properties=_struct({"inlinePolicies": True}), urn=urn_of(ROLE, "r"), name="r"
    )
    messages = {d.policyName: d.message for d in servicer.Analyze(request, None).diagnostics}
    assert messages["no-wildcard-actions"].endswith(
        "cannot be parsed: IAM role 'r': .inlinePolicies is a boolean, not a list of objects, true"
    )


def test_the_policy_server_survives_a_policy_that_raises() -> None:
    crash = GfResourcePolicy(CRASH_RULE, _crash)
    servicer = _PolicyAnalyzerServicer("gpufleet", "0.0.1", [crash], EnforcementLevel.ADVISORY)
    request = analyzer_pb2.AnalyzeRequest(
        type=BUCKET, properties=_struct({}), urn=urn_of(BUCKET, "b"), name="b"
    )
    [diagnostic] = servicer.Analyze(request, None).diagnostics
    assert diagnostic.policyName == "crash-test"
    assert diagnostic.message.endswith("could not be judged: internal error ZeroDivisionError")


class _Unwrapped(GfResourcePolicy):
    """A policy whose own `validate` bypasses the pack's wrapper (as a third-party policy would)."""

    def validate(self, args: Any, report_violation: Any) -> None:
        raise ValueError("boom")


class _UnwrappedStack(GfStackPolicy):
    def validate(self, args: Any, report_violation: Any) -> None:
        raise RecursionError("deep")


def test_the_offline_evaluator_survives_a_policy_outside_the_wrapper() -> None:
    stack_rule = Rule(**{**CRASH_RULE.__dict__, "id": "GF-STOR-998", "name": "crash-stack"})
    policies = [_Unwrapped(CRASH_RULE, _crash), _UnwrappedStack(stack_rule, _crash), NO_WILDCARD]
    role = _resource(ROLE, "gpu", {"inlinePolicies": True})
    result = evaluate_stack(ResourceGraph(project="gpufleet", stack="dev", resources=[role]), policies)
    found = {(f.rule_id, f.urn.rsplit("::", 1)[-1], f.enforcement, f.message) for f in result.violations}
    assert ("GF-STOR-999", "gpu", "mandatory", "could not be judged: internal error ValueError") in found
    assert ("GF-STOR-998", "", "mandatory", "could not be judged: internal error RecursionError") in found
    # The other policy's verdict on the same resource is still there.
    assert (
        "GF-IAM-001",
        "gpu",
        "mandatory",
        "cannot be parsed: IAM role 'gpu': .inlinePolicies is a boolean, not a list of objects, true",
    ) in found


def test_the_same_fields_unknown_at_preview_are_advisory_not_malformed() -> None:
    unknown = UNKNOWN_STRING_VALUE  # gpufleet.graph.UNKNOWN_STRING, as the engine sends it
    graph = ResourceGraph(
        project="gpufleet",
        stack="dev",
        resources=[
            _resource(SECURITY_GROUP, "gpu", {"ingress": unknown}),
            _resource(
                ROLE, "gpu", {"assumeRolePolicy": json.dumps({"Statement": []}), "inlinePolicies": unknown}
            ),
            _resource(DEPLOYMENT, "train", gpu_deployment(namespace=unknown)),
            _resource(
                PDB,
                "train-pdb",
                {"metadata": {"namespace": "ml"}, "spec": {"selector": {"matchLabels": unknown}}},
            ),
        ],
    )
    result = evaluate_stack(graph, list(default_registry()))
    assert not [
        f for f in result.violations if "cannot be parsed" in f.message or "internal error" in f.message
    ]
    unjudged = {
        (f.rule_id, f.urn.rsplit("::", 1)[-1])
        for f in result.violations
        if "during preview" in f.message and f.enforcement == "advisory"
    }
    assert {
        ("GF-ACC-001", "gpu"),
        ("GF-IAM-001", "gpu"),
        ("GF-K8S-004", "train-pdb"),
    } <= unjudged


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (5, "cannot be parsed: .spec.template.spec is a number, not an object, 5"),
        (
            {"containers": "c"},
            'cannot be parsed: .spec.template.spec.containers is a string, not a list of objects, "c"',
        ),
        (
            {"containers": [{"name": "c"}], "initContainers": [True]},
            "cannot be parsed: .spec.template.spec.initContainers.0 is a boolean, not an object, true",
        ),
    ],
)
def test_a_malformed_pod_spec_is_a_finding_not_a_skip(spec: Any, message: str) -> None:
    props = {"metadata": {"name": "w"}, "spec": {"template": {"spec": spec}}}
    assert run_resource(HOST_ISOLATION, DEPLOYMENT, props, "w") == [message]
    workload = res(DEPLOYMENT, "w", props)
    assert (message, workload.urn) in run_stack(NS_QUOTA, [workload])
