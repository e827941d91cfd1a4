"""``burst.publishers``: the Alibaba exporter's identity settings, each error naming field and values;
Tencent has no publisher to configure."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.components.spec import SpecError, parse_fleet
from tests.burst.test_spec import SOURCE, spec_with

FINGERPRINT = "9e99a48a9960b14926bb7f3b02e22da2b0ab7280"
GOOD = {
    "issuer_url": "https://oidc.lab.example.com/k8s",
    "fingerprints": [FINGERPRINT],
    "service_account": "gpufleet-system/baseline-exporter",
}
FIELD = f"{SOURCE}: gpufleet:fleet.burst.publishers"


def _errors(publishers: Any) -> list[str]:
    with pytest.raises(SpecError) as caught:
        parse_fleet(spec_with({"order": "by_price", "publishers": publishers}), source=SOURCE)
    return caught.value.format().splitlines()


def test_publishers_default_to_none_and_keep_their_settings() -> None:
    burst = parse_fleet(spec_with({})).burst
    assert burst is not None and burst.publishers.alicloud is None
    burst = parse_fleet(spec_with({"publishers": {"alicloud": GOOD}})).burst
    assert burst is not None and burst.publishers.alicloud is not None
    settings = burst.publishers.alicloud
    assert settings.subject == "system:serviceaccount:gpufleet-system:baseline-exporter"
    assert settings.client_id == "sts.aliyuncs.com"
    assert settings.fallback_after_s == 1800


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"issuer_url": "http://oidc.lab.example.com"},
            ".alicloud.issuer_url: must be an https:// URL without query or fragment, got "
            "'http://oidc.lab.example.com'",
        ),
        (
            {"issuer_url": "https://oidc.lab.example.com/?x=1"},
            ".alicloud.issuer_url: must be an https:// URL without query or fragment, got "
            "'https://oidc.lab.example.com/?x=1'",
        ),
        ({"fingerprints": []}, ".alicloud.fingerprints: must list 1 to 5 fingerprints, got 0"),
        (
            {"fingerprints": [FINGERPRINT.upper()]},
            f".alicloud.fingerprints: item 0: must be a SHA-1 fingerprint (40 lower-case hex), got "
            f"'{FINGERPRINT.upper()}'",
        ),
        (
            {"service_account": "baseline-exporter"},
            ".alicloud.service_account: must be namespace/name (Kubernetes names), got 'baseline-exporter'",
        ),
        (
            {"service_account": "Kube/Exporter"},
            ".alicloud.service_account: must be namespace/name (Kubernetes names), got 'Kube/Exporter'",
        ),
        (
            {"client_id": "sts aliyuncs"},
            ".alicloud.client_id: must be 1 to 128 characters without spaces, got 'sts aliyuncs'",
        ),
        ({"fallback_after_s": 60}, ".alicloud.fallback_after_s: must be within 600..86400 seconds, got 60"),
        (
            {"role": "x"},
            ".alicloud: unknown field 'role'; allowed: issuer_url, fingerprints, service_account, client_id, "
            "fallback_after_s",
        ),
    ],
)
def test_bad_alicloud_publisher_settings_name_field_and_values(changes: dict[str, Any], message: str) -> None:
    assert _errors({"alicloud": {**GOOD, **changes}}) == [FIELD + message]


REACH = (
    ": Alibaba STS must reach the issuer's discovery document and keys over the public internet "
    "(docs/hybrid.md, the exporter's identity)"
)


@pytest.mark.parametrize(
    ("issuer", "why"),
    [
        ("https://kubernetes.default.svc", "'kubernetes.default.svc' is not a public DNS name"),
        (
            "https://kubernetes.default.svc.cluster.local",
            "'kubernetes.default.svc.cluster.local' is not a public DNS name",
        ),
        ("https://k8s-api.lab.internal/oidc", "'k8s-api.lab.internal' is not a public DNS name"),
        ("https://oidc.local:8443", "'oidc.local' is not a public DNS name"),
        ("https://oidc", "'oidc' is not a public DNS name"),
        ("https://10.20.0.5:6443", "10.20.0.5 is not a public address"),
        ("https://192.168.1.10", "192.168.1.10 is not a public address"),
        ("https://127.0.0.1", "127.0.0.1 is not a public address"),
    ],
)
def test_an_issuer_alibaba_sts_cannot_reach_is_refused(issuer: str, why: str) -> None:
    assert _errors({"alicloud": {**GOOD, "issuer_url": issuer}}) == [
        f"{FIELD}.alicloud.issuer_url: {why}{REACH}"
    ]


@pytest.mark.parametrize("issuer", ["https://oidc.lab.example.com/k8s", "https://8.8.8.8:8443/oidc"])
def test_a_public_issuer_is_taken(issuer: str) -> None:
    from gpufleet.components.spec.alicloud_publisher import issuer_host_problem

    assert issuer_host_problem(issuer) is None
    parse_fleet(spec_with({"order": "by_price", "publishers": {"alicloud": {**GOOD, "issuer_url": issuer}}}))


def test_a_tencent_publisher_is_refused_with_the_reason() -> None:
    assert _errors({"tencentcloud": GOOD}) == [
        f"{FIELD}.tencentcloud: Tencent Cloud alarm policies watch Tencent Cloud service metrics only "
        "(monitor_type MT_QCE), so no alarm could read what the exporter publishes and the Tencent pools "
        "are not gated: leave publishers.tencentcloud out (docs/burst-order.md)"
    ]
