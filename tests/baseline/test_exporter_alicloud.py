"""The exporter script's Alibaba Cloud publish: signing vectors from Alibaba's documentation, the gated
value per pool from fake MNS answers, STS credential refresh, and one cloud failing while the other
publishes."""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from gpufleet.components.baseline import exporter_script as script
from gpufleet.components.pools import burst_custom
from gpufleet.components.pools.custom.alicloud import alicloud_datapoints

BASELINE = {"gpufleet.io/capacity": "baseline"}
SITE = "alicloud:cn-hangzhou"
ROLE_ARN = "acs:ram::1234567890123456:role/lab-burst-publisher"
PROVIDER_ARN = "acs:ram::1234567890123456:oidc-provider/lab-burst-publisher"
ALICLOUD: dict[str, Any] = {
    "account_id": "1234567890123456",
    "role_arn": ROLE_ARN,
    "oidc_provider_arn": PROVIDER_ARN,
    "token_file": "/var/run/secrets/gpufleet/alicloud/token",
    "session_name": "gpufleet-exporter",
    "sts_endpoint": "sts.aliyuncs.com",
    "sites": [
        {
            "site": SITE,
            "region": "cn-hangzhou",
            "ahead": ["aws:us-east-1"],
            "pools": [
                {"pool": "burst-a", "queue": "lab-cn-hangzhou-burst-a"},
                {"pool": "burst-b", "queue": "lab-cn-hangzhou-burst-b"},
            ],
        }
    ],
}
CONFIG = {
    "namespace": "gpufleet/Baseline",
    "interval_seconds": 60,
    "node_selector": BASELINE,
    "sites": [{"site": "aws:us-east-1", "region": "us-east-1", "ahead": []}],
    "alicloud": ALICLOUD,
}
NOW = 1_767_225_600.0  # 2026-01-01T00:00:00Z


def node(name: str, gpus: str = "8") -> dict[str, Any]:
    return {
        "metadata": {"name": name, "labels": BASELINE},
        "spec": {},
        "status": {
            "allocatable": {"nvidia.com/gpu": gpus},
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def busy(on: str, gpus: str) -> dict[str, Any]:
    resources = {"requests": {"nvidia.com/gpu": gpus}}
    return {
        "spec": {"nodeName": on, "containers": [{"resources": resources}]},
        "status": {"phase": "Running"},
    }


class FakeAlicloud:
    """``backlog`` answers from a table (an exception is raised), ``put`` records or raises."""

    def __init__(
        self, backlogs: Mapping[str, int | Exception], *, put_error: Exception | None = None
    ) -> None:
        self.backlogs, self.put_error = backlogs, put_error
        self.sent: list[tuple[str, list[dict[str, str]]]] = []

    def backlog(self, region: str, queue: str) -> int:
        answer = self.backlogs[queue]
        if isinstance(answer, Exception):
            raise answer
        return answer

    def put(self, region: str, items: Sequence[Mapping[str, str]]) -> None:
        if self.put_error is not None:
            raise self.put_error
        self.sent.append((region, [dict(i) for i in items]))


# ------------------------------------------------------------------------------------------ signing


def test_rpc_signature_matches_alibabas_worked_example() -> None:
    """The ECS signature document's example: DescribeRegions, AccessKey secret ``testsecret``."""
    params = {
        "Timestamp": "2016-02-23T12:46:24Z",
        "Format": "XML",
        "AccessKeyId": "testid",
        "Action": "DescribeRegions",
        "SignatureMethod": "HMAC-SHA1",
        "SignatureNonce": "3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf",
        "Version": "2014-05-26",
        "SignatureVersion": "1.0",
    }
    assert script.rpc_string_to_sign("GET", params) == (
        "GET&%2F&AccessKeyId%3Dtestid%26Action%3DDescribeRegions%26Format%3DXML%26SignatureMethod%3DHMAC-SHA1"
        "%26SignatureNonce%3D3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf%26SignatureVersion%3D1.0"
        "%26Timestamp%3D2016-02-23T12%253A46%253A24Z%26Version%3D2014-05-26"
    )
    assert script.rpc_signature("GET", params, "testsecret") == "OLeaidS1JvxuMvnyHOwuJ+uX5qY="


def test_percent_encoding_follows_the_rpc_rules() -> None:
    assert script.percent_encode("a b*c~d/é") == "a%20b%2Ac~d%2F%C3%A9"


# -------------------------------------------------------------------------------------- the values


@pytest.mark.parametrize(
    ("backlog", "free_ahead"),
    [(None, None), (0.0, None), (7.0, None), (7.0, 0.0), (7.0, 1.0), (7.0, 0.5), (3.0, float("nan"))],
)
def test_the_vendored_gate_agrees_with_the_contract(backlog: float | None, free_ahead: float | None) -> None:
    assert script.gated_backlog(backlog, free_ahead) == burst_custom.gated_backlog(backlog, free_ahead)
    backlogs = {"b": backlog, "a": 4.0}
    ours = script.alicloud_datapoints(SITE, backlogs, free_ahead=free_ahead, time_ms=1000)
    theirs = alicloud_datapoints(SITE, backlogs, free_ahead=free_ahead, time_ms=1000)
    assert ours == theirs
    assert (script.GATED_METRIC, script.POOL_DIMENSION) == (
        burst_custom.GATED_METRIC,
        burst_custom.POOL_DIMENSION,
    )


def item(metric: str, dimensions: dict[str, str], value: float) -> dict[str, str]:
    return {
        "MetricName": metric,
        "Dimensions": json.dumps(dimensions, sort_keys=True),
        "GroupId": "0",
        "Type": "0",
        "Period": "60",
        "Time": str(int(NOW * 1000)),
        "Values": json.dumps({"value": value}),
    }


@pytest.mark.parametrize(
    ("pods", "free", "gated_a"),
    [
        pytest.param([busy("gpu-01", "8")], 0.0, 12.0, id="baseline-full-passes-the-backlog"),
        pytest.param([busy("gpu-01", "6")], 2.0, 0.0, id="gpus-free-ahead-hold-it-back"),
    ],
)
def test_each_gated_pool_gets_its_queues_backlog_or_zero(
    pods: list[Any], free: float, gated_a: float
) -> None:
    fake = FakeAlicloud(
        {"lab-cn-hangzhou-burst-a": 12, "lab-cn-hangzhou-burst-b": OSError("mns: connection reset")}
    )
    logged: list[str] = []
    result = script.run_once(
        {**CONFIG, "sites": []},
        read=lambda: ([node("gpu-01")], pods),
        alicloud=fake,
        clock=lambda: NOW,
        log=logged.append,
    )
    expected = [
        item("FreeGpusAhead", {"Site": SITE}, free),
        item("GatedBacklog", {"Pool": "burst-a", "Site": SITE}, gated_a),
    ]  # burst-b's queue could not be read: nothing for it, its fallback alarm decides
    assert fake.sent == [("cn-hangzhou", expected)]
    assert result == {"failed": {}, "alicloud": {SITE: expected}}
    assert logged == [f"alicloud {SITE} burst-b: OSError: mns: connection reset"]


# ------------------------------------------------------------------------- one cloud fails, not both


def cluster() -> tuple[list[Any], list[Any]]:
    return [node("gpu-01")], [busy("gpu-01", "8")]


def test_aws_failing_does_not_stop_alibaba() -> None:
    def broken(by_region: Mapping[str, list[Any]], namespace: str) -> None:
        raise RuntimeError("no credentials from credential_process")

    fake = FakeAlicloud({"lab-cn-hangzhou-burst-a": 3, "lab-cn-hangzhou-burst-b": 0})
    logged: list[str] = []
    result = script.run_once(
        CONFIG, read=cluster, put=broken, alicloud=fake, clock=lambda: NOW, log=logged.append
    )
    assert "aws" not in result
    assert result["failed"] == {"aws": "RuntimeError: no credentials from credential_process"}
    assert [i["Values"] for i in result["alicloud"][SITE]] == [
        '{"value": 0.0}',
        '{"value": 3.0}',
        '{"value": 0.0}',
    ]
    assert len(fake.sent) == 1
    assert logged == ["aws: RuntimeError: no credentials from credential_process"]


def test_alibaba_failing_does_not_stop_aws() -> None:
    sent: list[Any] = []
    fake = FakeAlicloud(
        {"lab-cn-hangzhou-burst-a": 1, "lab-cn-hangzhou-burst-b": 1},
        put_error=RuntimeError("cms PutCustomMetric: HTTP 403"),
    )
    result = script.run_once(
        CONFIG,
        read=cluster,
        put=lambda by_region, namespace: sent.append(dict(by_region)),
        alicloud=fake,
        clock=lambda: NOW,
        log=lambda message: None,
    )
    assert fake.sent == []
    assert sent == [result["aws"]]
    assert result["aws"]["us-east-1"][0]["Value"] == 0.0
    assert result["failed"] == {
        "alicloud": f"RuntimeError: {SITE}: RuntimeError: cms PutCustomMetric: HTTP 403"
    }
    assert "alicloud" not in result


def test_nothing_published_raises_so_the_heartbeat_stays_stale() -> None:
    def broken(by_region: Mapping[str, list[Any]], namespace: str) -> None:
        raise RuntimeError("aws down")

    fake = FakeAlicloud(
        {"lab-cn-hangzhou-burst-a": 1, "lab-cn-hangzhou-burst-b": 1}, put_error=OSError("down")
    )
    with pytest.raises(script.NothingPublished, match="aws: RuntimeError: aws down; alicloud: "):
        script.run_once(CONFIG, read=cluster, put=broken, alicloud=fake, log=lambda message: None)


# ------------------------------------------------------------------------------------- credentials


class FakeHttp:
    """Answers STS, MNS and CloudMonitor like the services; records every request."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []
        self.expirations = ["2026-01-01T01:00:00Z", "2026-01-01T02:00:00Z"]

    def __call__(self, method: str, url: str, headers: Mapping[str, str], body: bytes) -> tuple[int, bytes]:
        self.requests.append((method, url, dict(headers), body))
        if url.startswith("https://sts."):
            n = sum(1 for r in self.requests if r[1].startswith("https://sts."))
            answer = {
                "Credentials": {
                    "AccessKeyId": f"STS.id{n}",
                    "AccessKeySecret": f"secret{n}",
                    "SecurityToken": f"token{n}",
                    "Expiration": self.expirations[n - 1],
                }
            }
            return 200, json.dumps(answer).encode()
        if form(body).get("Action") == "DescribeMetricLast":
            # DescribeMetricLast's answer: ``Datapoints`` is a JSON string; the newest point counts.
            queue = json.loads(form(body)["Dimensions"])[0]
            points = [
                {"timestamp": 1767225300000, "userId": "1", **queue, "Maximum": 9},
                {"timestamp": 1767225600000, "userId": "1", **queue, "Maximum": 17},
            ]
            answer = {"Code": "200", "Datapoints": json.dumps(points), "Success": True}
            return 200, json.dumps(answer).encode()
        return 200, b'{"Code": "200", "Message": "success", "RequestId": "r"}'


def client(tmp_path: Path, http: FakeHttp, clock: list[float]) -> script.AlicloudClient:
    token = tmp_path / "token"
    token.write_text("eyJ.first.jwt\n", encoding="utf-8")
    credentials = script.OidcCredentials(
        role_arn=ROLE_ARN,
        provider_arn=PROVIDER_ARN,
        token_file=str(token),
        session_name="gpufleet-exporter",
        endpoint="sts.aliyuncs.com",
        send=http,
        clock=lambda: clock[0],
    )
    return script.AlicloudClient(
        account_id="1234567890123456",
        credentials=credentials,
        send=http,
        clock=lambda: clock[0],
        nonce=lambda: "n1",
    )


def form(body: bytes) -> dict[str, str]:
    return dict(urllib.parse.parse_qsl(body.decode(), keep_blank_values=True))


def test_assume_role_with_oidc_is_anonymous_and_refreshed_before_expiry(tmp_path: Path) -> None:
    http, clock = FakeHttp(), [NOW]
    alibaba = client(tmp_path, http, clock)
    assert alibaba.backlog("cn-hangzhou", "q") == 17
    method, url, _, body = http.requests[0]
    assert (method, url) == ("POST", "https://sts.aliyuncs.com/")
    assert form(body) == {
        "Action": "AssumeRoleWithOIDC",
        "Format": "JSON",
        "Version": "2015-04-01",
        "Timestamp": "2026-01-01T00:00:00Z",
        "RoleArn": ROLE_ARN,
        "OIDCProviderArn": PROVIDER_ARN,
        "OIDCToken": "eyJ.first.jwt",
        "RoleSessionName": "gpufleet-exporter",
        "DurationSeconds": "3600",
    }  # no AccessKeyId, no Signature: the token is the credential
    clock[0] = NOW + 3600 - 301  # five minutes and a second before expiry: cached
    alibaba.backlog("cn-hangzhou", "q")
    assert sum(1 for r in http.requests if "sts." in r[1]) == 1
    (tmp_path / "token").write_text("eyJ.rotated.jwt", encoding="utf-8")
    clock[0] = NOW + 3600 - 300  # within the margin: a new exchange, with the rotated token
    alibaba.backlog("cn-hangzhou", "q")
    sts = [r for r in http.requests if "sts." in r[1]]
    assert len(sts) == 2
    assert form(sts[1][3])["OIDCToken"] == "eyJ.rotated.jwt"
    assert form(http.requests[-1][3])["SecurityToken"] == "token2"


def test_the_backlog_is_cloudmonitors_visible_messages_not_active_messages(tmp_path: Path) -> None:
    """MNS retires GetQueueAttributes' ActiveMessages (0 from then on); the backlog is the newest
    ``acs_mns_new`` ``NumberOfMessagesVisible`` of the queue, read with DescribeMetricLast."""
    http, clock = FakeHttp(), [NOW]
    assert client(tmp_path, http, clock).backlog("cn-hangzhou", "lab-cn-hangzhou-burst-a") == 17
    method, url, _, body = http.requests[1]
    assert (method, url) == ("POST", "https://metrics.cn-hangzhou.aliyuncs.com/")
    assert not any(".mns." in r[1] for r in http.requests)
    sent = form(body)
    signature = sent.pop("Signature")
    assert signature == script.rpc_signature("POST", sent, "secret1")
    assert sent == {
        "Action": "DescribeMetricLast",
        "Format": "JSON",
        "Version": "2019-01-01",
        "AccessKeyId": "STS.id1",
        "SecurityToken": "token1",
        "SignatureMethod": "HMAC-SHA1",
        "SignatureVersion": "1.0",
        "SignatureNonce": "n1",
        "Timestamp": "2026-01-01T00:00:00Z",
        "Namespace": "acs_mns_new",
        "MetricName": "NumberOfMessagesVisible",
        "Dimensions": '[{"queue": "lab-cn-hangzhou-burst-a", "region": "cn-hangzhou"}]',
    }


def test_no_datapoint_is_a_failure_not_an_empty_queue(tmp_path: Path) -> None:
    http, clock = FakeHttp(), [NOW]
    alibaba = client(tmp_path, http, clock)
    alibaba.send = lambda *a: (200, b'{"Code": "200", "Datapoints": "[]"}')
    with pytest.raises(RuntimeError, match="no datapoint"):
        alibaba.backlog("cn-hangzhou", "q")


def test_put_custom_metric_sends_the_metric_list_signed(tmp_path: Path) -> None:
    http, clock = FakeHttp(), [NOW]
    items = script.alicloud_datapoints(SITE, {"burst-a": 5.0}, free_ahead=0.0, time_ms=1000)
    client(tmp_path, http, clock).put("cn-hangzhou", items)
    method, url, _, body = http.requests[1]
    assert (method, url) == ("POST", "https://metrics.cn-hangzhou.aliyuncs.com/")
    sent = form(body)
    signature = sent.pop("Signature")
    assert signature == script.rpc_signature("POST", sent, "secret1")
    assert sent["Action"] == "PutCustomMetric"
    assert sent["Version"] == "2019-01-01"
    assert (sent["AccessKeyId"], sent["SecurityToken"]) == ("STS.id1", "token1")
    assert sent["MetricList.2.MetricName"] == "GatedBacklog"
    assert sent["MetricList.2.Dimensions"] == '{"Pool": "burst-a", "Site": "alicloud:cn-hangzhou"}'
    assert sent["MetricList.2.Values"] == '{"value": 5.0}'
    assert sent["MetricList.1.MetricName"] == "FreeGpusAhead"
    assert "MetricList.3.MetricName" not in sent


def test_an_error_code_from_cloudmonitor_is_a_failure(tmp_path: Path) -> None:
    http, clock = FakeHttp(), [NOW]
    alibaba = client(tmp_path, http, clock)
    alibaba.send = lambda *a: (200, b'{"Code": "403", "Message": "denied"}')
    with pytest.raises(RuntimeError, match="cms PutCustomMetric"):
        alibaba.put("cn-hangzhou", [])
