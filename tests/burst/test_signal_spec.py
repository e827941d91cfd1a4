"""``onprem.signal``: the exporter's section, its errors, and the site plan's refusal of a burst order
that gates AWS pools without it."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.components.pools.burst import describe_burst_order
from gpufleet.components.spec import SpecError, parse_fleet, site_plans
from tests.burst.test_china_spec import GOOD
from tests.burst.test_spec import SOURCE, spec_with
from tests.spec.test_onprem import onprem

ANCHOR = "arn:aws:rolesanywhere:us-east-1:123456789012:trust-anchor/0a1b2c3d-1111-2222-3333-444455556666"
IMAGE = "ghcr.io/ml-platform/gpufleet-exporter:1.0.0@sha256:" + "ab" * 32
SIGNAL = {
    "trust_anchor_arn": ANCHOR,
    "client_certificate": "signalClientCert",
    "client_key": "gpufleet:signalClientKey",
    "client_cn": "gpufleet-exporter.lab.example",
    "image": IMAGE,
}
P = "gpufleet:fleet.onprem.signal"


def raw(signal: dict[str, Any] | None, *, burst: Any = None, with_onprem: bool = True) -> dict[str, Any]:
    spec = spec_with(burst if burst is not None else {"order": "by_price"})
    spec["network"] = {"regions": {"alicloud:cn-hangzhou": {"vpc_cidr": "10.50.0.0/16"}}}
    if with_onprem:
        spec["onprem"] = onprem()
        if signal is not None:
            spec["onprem"]["signal"] = signal
    return spec


def test_a_signal_section_parses_with_its_defaults() -> None:
    signal = parse_fleet(raw(SIGNAL)).onprem.signal  # type: ignore[union-attr]
    assert signal is not None
    assert (signal.trust_anchor_arn, signal.ca_certificate, signal.interval_seconds) == (ANCHOR, None, 60)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"trust_anchor_arn": None},
            f"{P}: give exactly one of trust_anchor_arn (an existing IAM Roles Anywhere trust anchor) or "
            "ca_certificate (the config key of the CA bundle the fleet builds a trust anchor from), got "
            "neither",
        ),
        (
            {"ca_certificate": "signalCa"},
            f"{P}: give exactly one of trust_anchor_arn (an existing IAM Roles Anywhere trust anchor) or "
            "ca_certificate (the config key of the CA bundle the fleet builds a trust anchor from), got "
            "trust_anchor_arn and ca_certificate",
        ),
        (
            {"trust_anchor_arn": "arn:aws:iam::123456789012:role/x"},
            f"{P}.trust_anchor_arn: must be an IAM Roles Anywhere trust anchor ARN "
            "(arn:aws:rolesanywhere:<region>:<account>:trust-anchor/<uuid>), got "
            "'arn:aws:iam::123456789012:role/x'",
        ),
        (
            {"client_key": "-----BEGIN PRIVATE KEY-----"},
            f"{P}.client_key: must name a stack config key like gpufleet:signalClientKey (set with pulumi "
            "config set --secret; certificates and keys never go in the spec), got '-----BEGIN PRIVATE "
            "KEY-----'",
        ),
        (
            {"image": "ghcr.io/ml-platform/gpufleet-exporter:1.0.0"},
            f"{P}.image: must be an image pinned by digest, like registry/name:tag@sha256:<64 hex digits>, "
            "got "
            "'ghcr.io/ml-platform/gpufleet-exporter:1.0.0'",
        ),
        (
            {"interval": "5m"},
            f"{P}.interval: must be between 10s and 60s (the gated alarms read one datapoint a minute; a "
            "minute "
            "without one reads as nothing free ahead), got 5m",
        ),
        ({"client_certificate": None}, f"{P}.client_certificate: must be a string, got null"),
        (
            {"client_cn": "*.lab.example"},
            f"{P}.client_cn: must be the client certificate's subject CN (1 to 64 printable characters, "
            "no '*'), got '*.lab.example'",
        ),
        (
            {"client_cn": "x" * 65},
            f"{P}.client_cn: must be the client certificate's subject CN (1 to 64 printable characters, "
            f"no '*'), got '{'x' * 65}'",
        ),
    ],
)
def test_errors_name_the_field_and_what_is_allowed(changes: dict[str, Any], message: str) -> None:
    signal = {**SIGNAL, **changes}
    signal = {k: v for k, v in signal.items() if v is not None or k == "client_certificate"}
    with pytest.raises(SpecError) as caught:
        parse_fleet(raw(signal), source=SOURCE)
    lines = caught.value.format().splitlines()
    assert lines == [f"{SOURCE}: {message}"]


PROVIDERS = {"aws": "us-east-1", "alicloud": "cn-hangzhou"}


def _plan_errors(spec: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(SpecError) as caught:
        site_plans(parse_fleet(spec), PROVIDERS, source=SOURCE)
    return caught.value.errors


def test_burst_on_aws_without_the_signal_is_refused_naming_what_to_add() -> None:
    assert _plan_errors(raw(None)) == [
        (
            "gpufleet:fleet.onprem.signal",
            "is missing: burst gates the AWS pools (train) on gpufleet/Baseline FreeGpusAhead, which only "
            "the "
            "on-prem exporter publishes; add onprem.signal with trust_anchor_arn or ca_certificate, "
            "client_certificate, client_key and image (see docs/burst-order.md), or remove burst",
        )
    ]


def test_burst_on_aws_without_onprem_is_refused() -> None:
    assert _plan_errors(raw(None, with_onprem=False)) == [
        (
            "gpufleet:fleet.onprem",
            "is missing: burst gates the AWS pools (train) on gpufleet/Baseline FreeGpusAhead, which only "
            "the "
            "on-prem exporter publishes; add onprem with its signal with trust_anchor_arn or ca_certificate, "
            "client_certificate, client_key and image (see docs/burst-order.md), or remove burst",
        )
    ]


def test_burst_without_aws_pools_needs_no_signal() -> None:
    pools = {"hz": spec_with(None)["pools"]["hz"]}
    plans = site_plans(parse_fleet(raw(None, burst={"order": "by_price"}) | {"pools": pools}), PROVIDERS)
    assert [plan.key for plan in plans] == ["alicloud:cn-hangzhou"]


def test_with_the_signal_the_plan_passes_and_plan_names_the_publisher() -> None:
    spec = parse_fleet(raw(SIGNAL))
    assert [plan.key for plan in site_plans(spec, PROVIDERS)] == ["aws:us-east-1", "alicloud:cn-hangzhou"]
    assert describe_burst_order(spec)[-1] == (
        "signal: gpufleet/Baseline FreeGpusAhead for aws:us-east-1, every 60s, by the on-prem exporter "
        f"(gpufleet-system) under the BaselineSignal role; IAM Roles Anywhere, trust anchor {ANCHOR}"
    )


def test_an_alibaba_publisher_without_the_exporter_is_refused() -> None:
    # Nothing would publish GatedBacklog: the gated alarms would never fire.
    burst = {"order": "by_price", "publishers": {"alicloud": dict(GOOD)}}
    errors = _plan_errors(raw(None, burst=burst))
    assert errors[0] == (
        "gpufleet:fleet.burst.publishers.alicloud",
        "needs the on-prem exporter, which is built with the AWS burst signal (onprem.signal); without it "
        "nothing publishes GatedBacklog and the Alibaba pools would burst on their fallback alarm alone: "
        "add it, or remove publishers.alicloud",
    )
    assert [field for field, _ in errors] == [
        "gpufleet:fleet.burst.publishers.alicloud",
        "gpufleet:fleet.onprem.signal",
    ]


def test_an_alibaba_publisher_without_aws_pools_is_refused() -> None:
    pools = {"hz": spec_with(None)["pools"]["hz"]}
    burst = {"order": "by_price", "publishers": {"alicloud": dict(GOOD)}}
    spec = raw(SIGNAL, burst=burst) | {"pools": pools}
    assert _plan_errors(spec) == [
        (
            "gpufleet:fleet.burst.publishers.alicloud",
            "needs the on-prem exporter, which is built with the AWS burst signal (an AWS pool in the burst "
            "order and onprem.signal); without it nothing publishes GatedBacklog and the Alibaba pools would "
            "burst on their fallback alarm alone: add it, or remove publishers.alicloud",
        )
    ]
