"""The whole policy pack on the Alibaba Cloud site, run by the offline engine as `gpufleet check` runs a
stack: every mandatory rule passes on the site as built, and one mutation per rule the site's Alibaba
resources can break trips that rule (and only it), so the pass is not the pack looking away."""

from __future__ import annotations

import base64
import dataclasses
import functools
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpufleet.engine import run_program
from gpufleet.evaluate import StackResult, evaluate_stack
from gpufleet.graph import ResourceGraph
from gpufleet.new import get_template, render
from gpufleet.policies.registry import default_registry
from tests.cli.helpers import invoke
from tests.realworld.alicloud.support import replaced

PROJECT = Path(__file__).parent / "alicloud_site"
ROOT = Path(__file__).resolve().parents[2]  # the project itself: infra/ and stacks/Pulumi.cn-dev.yaml
CN_DEV = ROOT / "stacks" / "Pulumi.cn-dev.yaml"
P = "gpufleet-cn-dev-cn-hangzhou"
# Alibaba Cloud has no budget resource: the budget is declared in the pack's config (GF-COST-002).
CONFIG: dict[str, Any] = {"stack-has-budget-alert": {"budgets": {"monthly": 20000, "currency": "CNY"}}}
MANDATORY_ALIBABA = {
    rule.id
    for rule in (policy.rule for policy in default_registry())
    if "alicloud" in rule.clouds and rule.enforcement.value == "mandatory"
}


@functools.cache
def graph(variant: str = "") -> ResourceGraph:
    return run_program(PROJECT, "dev", config_overrides={"variant": variant} if variant else None)


def judge(g: ResourceGraph, config: dict[str, Any] | None = None) -> StackResult:
    return evaluate_stack(g, list(default_registry()), config or CONFIG)


def found(result: StackResult) -> list[tuple[str, str, str]]:
    return [(v.rule_id, v.urn.rsplit("::", 1)[-1], v.message) for v in result.violations]


def removed(g: ResourceGraph, name: str) -> ResourceGraph:
    left = [r for r in g.resources if r.name != name]
    assert len(left) == len(g.resources) - 1, name
    return ResourceGraph(project=g.project, stack=g.stack, resources=left, config=g.config)


def added(g: ResourceGraph, like: str, name: str, typ: str, inputs: dict[str, Any]) -> ResourceGraph:
    """``g`` with one more resource of type ``typ``, parented and provided like resource ``like``."""
    model = next(r for r in g.resources if r.name == like)
    urn = model.urn.rsplit("::", 2)[0] + f"::{typ}::{name}"
    extra = dataclasses.replace(
        model, urn=urn, type=typ, name=name, inputs=inputs, outputs=dict(inputs), property_dependencies={}
    )
    return ResourceGraph(project=g.project, stack=g.stack, resources=[*g.resources, extra], config=g.config)


def document(g: ResourceGraph, name: str, prop: str) -> dict[str, Any]:
    resource = next(r for r in g.resources if r.name == name)
    loaded: dict[str, Any] = json.loads(resource.inputs[prop])
    return loaded


@pytest.mark.parametrize("variant", ["", "imported", "nat", "existing"])
def test_every_rule_passes_on_the_site(variant: str) -> None:
    # The engine answers every lookup the site makes (caller identity, zones, images, vSwitches).
    assert graph(variant).notes == []
    result = judge(graph(variant))
    advisory_expected = {("GF-NET-003", f"{P}-pool-a10-group")} if variant == "existing" else set()
    assert {(v.rule_id, v.urn.rsplit("::", 1)[-1]) for v in result.violations} == advisory_expected, found(
        result
    )


def test_the_rules_that_matter_judge_the_site_rather_than_skip_it() -> None:
    result = judge(graph())
    judged_somewhere = {n["rule_id"] for n in result.not_applicable if not n["urn"]}
    # Stack rules that had nothing to judge say so without a URN; none of these may.
    for rule_id in ("GF-OPS-001", "GF-OPS-003", "GF-COST-002", "GF-COST-004", "GF-COST-005", "GF-AUD-002"):
        assert rule_id not in judged_somewhere, rule_id
    skipped = {n["rule_id"] for n in result.not_applicable if n["urn"]}
    for rule_id in ("GF-STOR-001", "GF-STOR-003", "GF-STOR-004", "GF-ACC-002", "GF-ACC-005", "GF-STOR-008"):
        assert rule_id not in skipped, rule_id


def test_the_queue_alarm_targets_the_scale_out_rule_by_its_arn() -> None:
    alarm = next(r for r in graph().resources if r.name == f"{P}-pool-a10-queue-deep")
    [target] = alarm.inputs["targets"]
    assert target["arn"].startswith("acs:ess:cn-hangzhou:1234567890123456:scalingGroupId/asg-bp1")
    assert ":scalingRuleId/asr-bp1" in target["arn"]


def _with_statement(g: ResourceGraph, name: str, index: int, **changes: Any) -> ResourceGraph:
    doc = document(g, f"{P}-pool-a10-policy", "policyDocument")
    doc["Statement"][index].update(changes)
    return replaced(g, name, "policyDocument", json.dumps(doc))


def _trust_any(g: ResourceGraph) -> ResourceGraph:
    doc = document(g, f"{P}-pool-a10-role", "assumeRolePolicyDocument")
    doc["Statement"][0]["Principal"] = {"RAM": ["*"]}
    return replaced(g, f"{P}-pool-a10-role", "assumeRolePolicyDocument", json.dumps(doc))


def _ssh_rule(g: ResourceGraph) -> ResourceGraph:
    group = next(r for r in g.resources if r.name == f"{P}-network-sg")
    rule = {
        "type": "ingress",
        "ipProtocol": "tcp",
        "portRange": "22/22",
        "cidrIp": "0.0.0.0/0",
        "policy": "accept",
        "securityGroupId": group.id,
    }
    return added(g, f"{P}-network-sg", "ssh-in", "alicloud:ecs/securityGroupRule:SecurityGroupRule", rule)


def _access_key(g: ResourceGraph) -> ResourceGraph:
    return added(g, f"{P}-pool-a10-role", "ci-key", "alicloud:ram/accessKey:AccessKey", {"userName": "ci"})


def _no_agent(g: ResourceGraph) -> ResourceGraph:
    silent = base64.b64encode(b"#!/bin/bash\necho no agent\n").decode()
    return replaced(g, f"{P}-pool-a10-template", "userData", silent)


def _archive_at_7(g: ResourceGraph) -> ResourceGraph:
    # Archive bills 60 days from the object's creation, past the checkpoints' 30-day expiry.
    rules = next(r for r in g.resources if r.name == f"{P}-checkpoints-bucket").inputs["lifecycleRules"]
    rule = {**rules[0], "transitions": [{"days": 7, "storageClass": "Archive"}]}
    return replaced(g, f"{P}-checkpoints-bucket", "lifecycleRules", [rule, *rules[1:]])


def _expire_at(days: int) -> Any:
    def mutate(g: ResourceGraph) -> ResourceGraph:
        rules = next(r for r in g.resources if r.name == f"{P}-checkpoints-bucket").inputs["lifecycleRules"]
        return replaced(
            g,
            f"{P}-checkpoints-bucket",
            "lifecycleRules",
            [{**rules[0], "expirations": [{"days": days}]}, *rules[1:]],
        )

    return mutate


def _set(name: str, path: str, value: Any) -> Any:
    return lambda g: replaced(g, f"{P}-{name}", path, value)


# rule id -> (mutation, name of the resource the finding is on ("" for the stack), words in the message)
MUTATIONS: dict[str, tuple[Any, str, str]] = {
    "GF-ACC-001": (_ssh_rule, "ssh-in", "SSH (TCP 22)"),
    "GF-ACC-002": (
        _set("pool-a10-template", "keyPairName", "ops-keypair"),
        "pool-a10-template",
        "'ops-keypair'",
    ),
    "GF-ACC-003": (lambda g: removed(g, f"{P}-session-manager"), "pool-a10-group", "Session Manager"),
    "GF-ACC-005": (_set("pool-a10-template", "internetMaxBandwidthOut", 10), "pool-a10-template", "10"),
    "GF-AUD-002": (_set("audit-trail-store", "retentionPeriod", 30), "audit-trail-store", "30 days"),
    "GF-COST-001": (_set("checkpoints-bucket", "tags.team", ""), "checkpoints-bucket", "team"),
    "GF-COST-003": (
        _set("pool-a10-group", "launchTemplateOverrides.1.instanceType", "ecs.gn7-c12g1.3xlarge"),
        "pool-a10-group",
        "ecs.gn7-c12g1.3xlarge",
    ),
    "GF-COST-004": (
        _set("pool-a10-group", "onDemandPercentageAboveBaseCapacity", 50),
        "pool-a10-group",
        "spot",
    ),
    # Neither the night stop nor the idle scale-in: nothing takes the dev pool to zero.
    "GF-COST-005": (
        lambda g: removed(removed(g, f"{P}-pool-a10-off-hours-stop"), f"{P}-pool-a10-gpu-low"),
        "pool-a10-group",
        "off-hours",
    ),
    "GF-COST-006": (
        _set("pool-a10-gpu-low", "threshold", "80"),
        "pool-a10-group",
        "scales out at 70 but in at 80",
    ),
    "GF-COST-007": (_set("pool-a10-group", "maxSize", 5000), "", "5000"),
    "GF-IAM-001": (
        lambda g: _with_statement(g, f"{P}-pool-a10-policy", 2, Action="*"),
        "pool-a10-policy",
        "'*'",
    ),
    "GF-IAM-002": (
        lambda g: _with_statement(g, f"{P}-pool-a10-policy", 2, Resource="*"),
        "pool-a10-policy",
        "oss:PutObject",
    ),
    "GF-IAM-003": (
        lambda g: replaced(
            _set("pool-a10-attach", "policyType", "System")(g),
            f"{P}-pool-a10-attach",
            "policyName",
            "AdministratorAccess",
        ),
        "pool-a10-attach",
        "AdministratorAccess",
    ),
    "GF-IAM-004": (_trust_any, "pool-a10-role", "any principal"),
    "GF-IAM-005": (_access_key, "ci-key", "access key"),
    "GF-KMS-001": (_set("key-key", "automaticRotation", "Disabled"), "key-key", "Disabled"),
    "GF-OPS-001": (
        _set("pool-a10-queue-deep", "metricDimensions", '[{"queue": "someone-elses"}]'),
        "pool-a10-queue-deep",
        "queue 'someone-elses', which the stack does not create",
    ),
    "GF-OPS-003": (_set("pool-a10-scale-in", "cooldown", 60), "pool-a10-scale-in", "cooldown of 60 s"),
    "GF-STOR-001": (
        _set("checkpoints-bucket", "serverSideEncryptionRule.sseAlgorithm", "AES256"),
        "checkpoints-bucket",
        "AES256",
    ),
    "GF-STOR-002": (
        _set("checkpoints-bucket", "tags.data-classification", "restricted"),
        "checkpoints-bucket",
        "restricted",
    ),
    "GF-STOR-003": (_set("checkpoints-acl", "acl", "public-read"), "checkpoints-bucket", "public-read"),
    "GF-STOR-004": (
        lambda g: removed(g, f"{P}-checkpoints-tls-only"),
        "checkpoints-bucket",
        "acs:SecureTransport",
    ),
    "GF-STOR-005": (_expire_at(90), "checkpoints-bucket", "90 days"),
    "GF-STOR-006": (_archive_at_7, "checkpoints-bucket", "60-day minimum storage duration"),
    "GF-STOR-008": (
        _set("pool-a10-template", "systemDisk.encrypted", False),
        "pool-a10-template",
        "unencrypted",
    ),
    # CloudMonitor takes '>' and its kin, not CloudWatch's names: the provider refuses this one.
    "GF-DEPLOY-001": (
        _set("pool-a10-queue-deep", "escalationsCritical.comparisonOperator", "GreaterThanThreshold"),
        "pool-a10-queue-deep",
        "GreaterThanThreshold",
    ),
    "GF-DEPLOY-003": (
        _set("pool-a10-off-hours-stop", "launchTime", "2020-01-01T12:00Z"),
        "pool-a10-off-hours-stop",
        "2020-01-01T12:00Z",
    ),
    # Two /28 vSwitches (16 addresses, of which Alibaba keeps some) for a pool of up to 40 instances.
    "GF-FIT-002": (
        lambda g: _set("pool-a10-group", "maxSize", 40)(
            _set("network-vswitch-1", "cidrBlock", "10.60.16.0/28")(
                _set("network-vswitch-0", "cidrBlock", "10.60.0.0/28")(g)
            )
        ),
        "pool-a10-group",
        "40",
    ),
    "GF-FIT-003": (
        _set("pool-a10-template", "imageId", "ubuntu_22_04_arm64_20G_alibase_20240101.vhd"),
        "pool-a10-group",
        "arm64",
    ),
    # The A10 (24 GiB) and T4 (16 GiB) types asked to hold a 40 GiB model.
    "GF-FIT-004": (
        _set("pool-a10-group", "tags.gpufleet:fit", "model_memory_gib=40"),
        "pool-a10-group",
        "40",
    ),
}


def test_every_mandatory_alibaba_rule_the_site_can_break_has_a_mutation() -> None:
    # GF-NET-001 judges VPN links, which a site does not build (the links do); the budget and the
    # on-prem ranges are the pack's config (tests below); GF-NET-004 needs on-prem ranges too (a linked
    # Alibaba site's egress is mutated in tests/hybrid/test_hybrid_egress.py).
    # GF-FIT-001 and GF-FIT-006 judge the quotas and the price ceiling the pack's config declares (tests
    # below).
    assert MANDATORY_ALIBABA - set(MUTATIONS) == {
        "GF-NET-001",
        "GF-COST-002",
        "GF-NET-002",
        "GF-NET-004",
        "GF-FIT-001",
        "GF-FIT-006",
    }


@pytest.mark.parametrize("rule_id", sorted(MUTATIONS))
def test_each_mutation_trips_its_rule(rule_id: str) -> None:
    mutate, name, words = MUTATIONS[rule_id]
    result = judge(mutate(graph()))
    mine = [v for v in result.violations if v.rule_id == rule_id]
    assert mine, found(result)
    for finding in mine:
        if not name:
            assert finding.urn == ""
        else:
            assert finding.urn.endswith(f"::{name}" if name in ("ci-key", "ssh-in") else f"::{P}-{name}")
        assert words in finding.message, finding.message
        assert "could not be judged" not in finding.message


def test_pending_byok_builds_the_key_alone_and_only_the_trail_advice_remains() -> None:
    g = graph("pending")
    custom = sorted((r.type, r.name) for r in g.resources if r.custom and not r.is_provider)
    assert custom == [
        ("alicloud:kms/alias:Alias", f"{P}-key-alias"),
        ("alicloud:kms/key:Key", f"{P}-key-key"),
    ]
    result = judge(g)
    assert [(v.rule_id, v.enforcement) for v in result.violations] == [("GF-AUD-001", "advisory")]


def test_a_site_without_a_declared_budget_trips_the_budget_rule() -> None:
    result = judge(graph(), {"stack-has-budget-alert": {}})
    [finding] = [v for v in result.violations if v.rule_id == "GF-COST-002"]
    assert finding.urn == ""
    assert (
        "creates Alibaba Cloud resources but declares no budget (Alibaba Cloud has no budget resource)"
        in (finding.message)
    )


def test_an_onprem_range_overlapping_the_site_vpc_trips_the_overlap_rule() -> None:
    config = {**CONFIG, "network-ranges-no-overlap": {"onprem_cidrs": ["10.60.128.0/17"]}}
    result = judge(graph(), config)
    [finding] = [v for v in result.violations if v.rule_id == "GF-NET-002"]
    assert finding.urn.endswith(f"::{P}-network-vpc")
    assert "10.60.0.0/16" in finding.message


def test_the_cn_dev_stack_builds_a_site_the_pack_passes() -> None:
    stack = yaml.safe_load(CN_DEV.read_text(encoding="utf-8"))["config"]
    assert "aws:region" not in stack
    assert stack["alicloud:region"] == "cn-hangzhou"
    g = run_program(ROOT, "cn-dev")  # the project's own program: infra/ -> HybridGpuFleet -> the site
    # `gpufleet check` hands the spec's budget to GF-COST-002 (Alibaba has no budget resource).
    budget = stack["gpufleet:fleet"]["budget"]
    result = judge(
        g, {"stack-has-budget-alert": {"budgets": {k: budget[k] for k in ("monthly", "currency")}}}
    )
    assert found(result) == []
    groups = [r for r in g.resources if r.type == "alicloud:ess/scalingGroup:ScalingGroup"]
    assert [(r.name, r.inputs["maxSize"]) for r in groups] == [(f"{P}-pool-a10-dev-group", 4)]
    tasks = sorted(
        r.inputs["recurrenceValue"] for r in g.resources if r.type.endswith("scheduledTask:ScheduledTask")
    )
    assert tasks == ["0 0 * * 1-5", "0 12 * * *"]


def test_a_template_that_inherits_the_images_password_trips_the_credentials_rule() -> None:
    result = judge(replaced(graph(), f"{P}-pool-a10-template", "passwordInherit", True))
    [finding] = [v for v in result.violations if v.rule_id == "GF-ACC-002"]
    assert finding.urn.endswith(f"::{P}-pool-a10-template")
    assert "a login password inherited from the image (passwordInherit)" in finding.message


def test_gpufleet_check_judges_and_prices_the_cn_dev_site_in_cny() -> None:
    run = invoke("check", str(ROOT), "-s", "cn-dev", "--format", "json", "--no-checkov")
    assert run.exit_code == 0, run.stderr
    [stack] = json.loads(run.stdout)["stacks"]
    assert stack["violations"] == []
    assert stack["cost"]["currency"] == "CNY"
    assert stack["cost"]["budget"] == 20000
    # One A10 on spot (3.34 CNY/h: 9.5326 on demand, Alibaba's list price, less 65%), 8 hours a day on
    # 22 days less the weekends the schedule stops (15.71 days): 419.43 CNY of GPU time, plus 17.22 CNY
    # of system disk, plus the OSS bucket: 200 GiB written a month, 7 days Standard at 0.12 CNY a
    # GiB-month then IA at 0.08 to day 37 (30 + 7 as noncurrent versions), and 500 GiB of datasets
    # Standard, 81.30 CNY.
    assert stack["cost"]["monthly_estimate"] == pytest.approx(517.96, abs=0.01)


def test_the_alicloud_dev_template_writes_the_cn_dev_fleet() -> None:
    values = {
        "project": "vision",
        "team": "ml-platform",
        "cost_center": "cc-042",
        "budget": 20000,
        "region": "cn-hangzhou",
        "timezone": "Asia/Shanghai",
        "stack_file": "stacks/Pulumi.cn-dev.yaml",
        "stack_name": "cn-dev",
    }
    rendered = yaml.safe_load(render(get_template("alicloud-dev"), values))["config"]
    shipped = yaml.safe_load(CN_DEV.read_text(encoding="utf-8"))["config"]
    assert rendered == shipped


def test_a_declared_spot_quota_below_the_pools_maximum_trips_the_quota_rule() -> None:
    # The A10 pool buys spot only, up to 4 instances of 8 vCPUs: 32 preemptible vCPUs at its maximum.
    quotas = {
        "alicloud:cn-hangzhou": {"max-spot-instance-vcpu-count": 8, "max-postpaid-instance-vcpu-count": 100}
    }
    result = judge(graph(), {**CONFIG, "gpu-quota-covers-max-size": {"quotas": quotas}})
    [finding] = [v for v in result.violations if v.rule_id == "GF-FIT-001"]
    assert finding.urn.endswith(f"::{P}-pool-a10-group")
    assert "max-spot-instance-vcpu-count (Alibaba Cloud preemptible instance vCPUs) allows 8 vCPUs" in (
        finding.message
    )
    assert "need 32" in finding.message


def test_a_dev_price_ceiling_under_the_a10s_spot_price_trips_the_ceiling_rule() -> None:
    ceiling = {"instance_ceiling": {"dev": {"*": 0.5, "currency": "CNY"}}}
    result = judge(graph(), {**CONFIG, "instance-price-under-ceiling": ceiling})
    [finding] = [v for v in result.violations if v.rule_id == "GF-FIT-006"]
    assert finding.urn.endswith(f"::{P}-pool-a10-group")
    assert "0.5" in finding.message and "CNY" in finding.message
