"""AlicloudAudit: the SLS project, the nodes' log store and, in the home site, ActionTrail's store and
trail: every event of every region, kept for the spec's days."""

from __future__ import annotations

import json

import pytest

from gpufleet.components.audit.alicloud import AlicloudAudit, AlicloudAuditArgs, retention
from tests.components.alicloud_builders import TAGS
from tests.components.conftest import RecordingMocks, Runner

ACCOUNT = "1234567890123456"


def build(run_pulumi: Runner, **changes: object) -> RecordingMocks:
    values: dict[str, object] = {"name_prefix": "gf-cn", "region": "cn-hangzhou", "account_id": ACCOUNT}
    args = AlicloudAuditArgs(tags=TAGS, **{**values, **changes})  # type: ignore[arg-type]
    return run_pulumi(lambda: AlicloudAudit("audit", args))


def test_trail_writes_every_event_into_a_store_kept_180_days(run_pulumi: Runner) -> None:
    mocks = build(run_pulumi)
    store = mocks.one("alicloud:log/store:Store", "audit-trail-store").inputs
    assert store["logstoreName"] == "actiontrail_gf-cn-trail"
    assert store["retentionPeriod"] == 180
    trail = mocks.one("alicloud:actiontrail/trail:Trail", "audit-trail").inputs
    assert trail["trailName"] == "gf-cn-trail"
    assert trail["trailRegion"] == "All"
    assert trail["eventRw"] == "All"
    assert trail["status"] == "Enable"
    assert trail["slsProjectArn"] == f"acs:log:cn-hangzhou:{ACCOUNT}:project/gf-cn-{ACCOUNT}"
    # SLS project names are unique across accounts in a region: ours carries the account id.
    assert (
        mocks.one("alicloud:log/project:Project", "audit-project").inputs["projectName"] == f"gf-cn-{ACCOUNT}"
    )
    assert trail["slsWriteRoleArn"] == f"acs:ram::{ACCOUNT}:role/gf-cn-trail"
    role = mocks.one("alicloud:ram/role:Role", "audit-trail-role").inputs
    [statement] = json.loads(role["assumeRolePolicyDocument"])["Statement"]
    assert statement["Principal"] == {"Service": ["actiontrail.aliyuncs.com"]}
    attach = mocks.one("alicloud:ram/rolePolicyAttachment:RolePolicyAttachment", "audit-trail-role-policy")
    assert attach.inputs["policyName"] == "AliyunActionTrailRolePolicy"
    assert attach.inputs["policyType"] == "System"


def test_node_store_keeps_the_session_retention(run_pulumi: Runner) -> None:
    mocks = build(run_pulumi, node_log_retention_days=90, log_retention_days=0)
    assert mocks.one("alicloud:log/store:Store", "audit-nodes").inputs["retentionPeriod"] == 90
    # 0 keeps audit logs forever; SLS spells that 3650.
    assert mocks.one("alicloud:log/store:Store", "audit-trail-store").inputs["retentionPeriod"] == 3650


def test_a_second_site_builds_no_trail(run_pulumi: Runner) -> None:
    mocks = build(run_pulumi, trail=False)
    assert mocks.of_type("alicloud:actiontrail/trail:Trail") == []
    assert [r.name for r in mocks.of_type("alicloud:log/store:Store")] == ["audit-nodes"]


@pytest.mark.parametrize(("days", "kept"), [(0, 3650), (1, 1), (180, 180)])
def test_retention(days: int, kept: int) -> None:
    assert retention(days) == kept


def test_long_fleet_names_fit_the_trail_and_project_limits(run_pulumi: Runner) -> None:
    prefix = "gpufleet-research-platform-staging-cn-hangzhou-extra"
    mocks = build(run_pulumi, name_prefix=prefix)
    trail = mocks.one("alicloud:actiontrail/trail:Trail", "audit-trail").inputs["trailName"]
    assert trail == f"{prefix[:30]}-trail"
    assert len(trail) == 36
    project = mocks.one("alicloud:log/project:Project", "audit-project").inputs["projectName"]
    assert project == f"{prefix[:46]}-{ACCOUNT}"
    assert len(project) == 63
