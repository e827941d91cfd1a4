"""The spec's `links` section: one link per site keyed cloud:region, each error naming its field and
what is allowed."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest

from gpufleet.components.spec import CONFIG_KEY, Link, SpecError, parse_fleet

SOURCE = "stacks/Pulumi.hybrid.yaml"
VPN = {"kind": "vpn", "gateway_ip": "203.0.113.10", "psk_config": "awsLinkPsk"}
DEDICATED = {
    "kind": "dedicated",
    "connection_id": "dxcon-ffabc123",
    "vlan": 301,
    "cloud_address": "169.254.10.1/30",
    "onprem_address": "169.254.10.2/30",
    "bgp_asn": 65010,
}


def spec_with(links: Any) -> dict[str, Any]:
    return {
        "environment": "dev",
        "tags": {"project": "vision", "team": "ml-platform", "cost-center": "cc-042"},
        "budget": {"monthly": 5000},
        "pools": {
            "train": {
                "instance_types": ["g5.2xlarge"],
                "size": {"max": 4},
                "workload": {"image_reads_queue": True},
            }
        },
        "links": links,
    }


def errors_of(links: Any) -> list[str]:
    with pytest.raises(SpecError) as caught:
        parse_fleet(spec_with(links), source=SOURCE)
    return caught.value.format().splitlines()


def test_links_default_to_none_and_parse_per_site() -> None:
    assert parse_fleet({k: v for k, v in spec_with({}).items() if k != "links"}).links == {}
    links = {
        "aws:us-east-1": {**VPN, "bgp_asn": 65010},
        "alicloud:cn-hangzhou": {
            **VPN,
            "psk_config": "aliLinkPsk",
            "bgp_asn": 65010,
            "bgp_tunnel_cidr": "169.254.30.0/30",
            "bandwidth_mbps": 200,
            "onprem_ranges": ["10.60.0.0/16", "10.70.0.0/20"],
        },
        "tencentcloud:ap-guangzhou": {
            **DEDICATED,
            "connection_id": "dc-kax48sg7",
            "bgp_asn": None,
            "ccn_id": "ccn-gree226l",
        },
    }
    spec = parse_fleet(spec_with(links))
    aws = spec.links["aws:us-east-1"]
    assert (aws.kind, aws.routing, aws.gateway_ip, aws.psk_config) == (
        "vpn",
        "bgp",
        "203.0.113.10",
        "awsLinkPsk",
    )
    assert aws.onprem_ranges is None
    ali = spec.links["alicloud:cn-hangzhou"]
    assert ali.onprem_ranges == [ipaddress.IPv4Network("10.60.0.0/16"), ipaddress.IPv4Network("10.70.0.0/20")]
    assert (ali.bgp_tunnel_cidr, ali.bandwidth_mbps) == (ipaddress.IPv4Network("169.254.30.0/30"), 200)
    tencent = spec.links["tencentcloud:ap-guangzhou"]
    assert (tencent.kind, tencent.routing, tencent.ccn_id, tencent.vlan) == (
        "dedicated",
        "static",
        "ccn-gree226l",
        301,
    )
    assert isinstance(tencent, Link)


PREFIX = f"{SOURCE}: {CONFIG_KEY}.links"


@pytest.mark.parametrize(
    ("links", "expected"),
    [
        ([VPN], [f"{PREFIX}: must be a mapping, got a list"]),
        ({"gcp:us-central1": VPN},
         [f"{PREFIX}: 'gcp:us-central1': links are keyed by their site, cloud:region, with cloud one of "
          "aws, alicloud, tencentcloud (like aws:us-east-1 or alicloud:cn-hangzhou)"]),
        ({"aws:us-east-1": {**VPN, "kind": "ipsec"}},
         [f"{PREFIX}.aws:us-east-1.kind: must be one of vpn, dedicated, got 'ipsec'"]),
        ({"aws:us-east-1": {"kind": "vpn"}},
         [f"{PREFIX}.aws:us-east-1: gateway_ip: is required for a vpn link; "
          "psk_config: is required for a vpn link"]),
        ({"aws:us-east-1": {**VPN, "gateway_ip": "192.168.1.1"}},
         [f"{PREFIX}.aws:us-east-1.gateway_ip: must be the on-prem VPN gateway's public IPv4 address, "
          "got 192.168.1.1 (not publicly routable)"]),
        ({"aws:us-east-1": {**VPN, "gateway_ip": "vpn.example.com"}},
         [f"{PREFIX}.aws:us-east-1.gateway_ip: must be an IPv4 address like 203.0.113.10, "
          "got 'vpn.example.com'"]),
        # The key itself in the spec: refused, the spec names only the config key that holds it.
        ({"aws:us-east-1": {**VPN, "psk_config": "s3cr3t key!"}},
         [f"{PREFIX}.aws:us-east-1.psk_config: must name a secret stack config key of the gpufleet "
          "namespace, like awsLinkPsk (set it with pulumi config set --secret gpufleet:awsLinkPsk ...), "
          "not the key itself; got 's3cr3t key!'"]),
        ({"aws:us-east-1": {**VPN, "psk": "hunter2"}},
         [f"{PREFIX}.aws:us-east-1: unknown field 'psk'; allowed: kind, onprem_ranges, bgp_asn, "
          "gateway_ip, psk_config, bgp_tunnel_cidr, bandwidth_mbps, connection_id, vlan, cloud_address, "
          "onprem_address, bgp_auth_config, cen_id, ccn_id"]),
        ({"aws:us-east-1": {**VPN, "onprem_ranges": ["0.0.0.0/0"]}},
         [f"{PREFIX}.aws:us-east-1.onprem_ranges: must name on-prem ranges of /8 or smaller, got "
          "0.0.0.0/0: a link routes these ranges and nothing else (no default route)"]),
        ({"aws:us-east-1": {**VPN, "onprem_ranges": ["10.60.0.0/16", "10.60.4.0/24"]}},
         [f"{PREFIX}.aws:us-east-1.onprem_ranges: ranges 10.60.0.0/16 and 10.60.4.0/24 overlap: "
          "list each range once"]),
        ({"aws:us-east-1": {**VPN, "bgp_asn": 0}},
         [f"{PREFIX}.aws:us-east-1.bgp_asn: must be >= 1, got 0"]),
        ({"aws:us-east-1": {**VPN, "bgp_asn": 64512}},
         [f"{PREFIX}: aws:us-east-1.bgp_asn: 64512 is the AWS side's ASN (VPN gateway 64512, Direct "
          "Connect gateway 64513); give the on-prem router's own ASN"]),
        ({"aws:us-east-1": {**VPN, "bandwidth_mbps": 100}},
         [f"{PREFIX}: aws:us-east-1.bandwidth_mbps: an AWS VPN tunnel's bandwidth is fixed; leave it out"]),
        ({"alicloud:cn-hangzhou": {**VPN, "bgp_asn": 65010}},
         [f"{PREFIX}: alicloud:cn-hangzhou.bgp_tunnel_cidr: is required for BGP over an Alibaba or "
          "Tencent VPN: a /30 inside 169.254.0.0/16 (the cloud side takes its first address, on-prem "
          "the second)"]),
        ({"tencentcloud:ap-guangzhou": {**VPN, "bgp_asn": 65010, "bgp_tunnel_cidr": "10.0.0.0/30"}},
         [f"{PREFIX}.tencentcloud:ap-guangzhou: bgp_tunnel_cidr: must be a /30 inside 169.254.0.0/16, "
          "got 10.0.0.0/30"]),
        ({"alicloud:cn-hangzhou": {**VPN, "bandwidth_mbps": 30}},
         [f"{PREFIX}.alicloud:cn-hangzhou.bandwidth_mbps: must be one of 5, 10, 20, 50, 100, 200, 500, "
          "1000, got 30"]),
        ({"aws:us-east-1": {**VPN, "connection_id": "dxcon-ffabc123"}},
         [f"{PREFIX}.aws:us-east-1: connection_id: is for dedicated links only; leave it out of a "
          "vpn link"]),
        ({"aws:us-east-1": {"kind": "dedicated"}},
         [f"{PREFIX}.aws:us-east-1: connection_id: is required for a dedicated link; vlan: is required "
          "for a dedicated link; cloud_address: is required for a dedicated link; onprem_address: is "
          "required for a dedicated link"]),
        ({"aws:us-east-1": {**DEDICATED, "onprem_address": "169.254.11.2/30"}},
         [f"{PREFIX}.aws:us-east-1: onprem_address: must be another address in cloud_address's network "
          "169.254.10.0/30, got 169.254.11.2/30"]),
        ({"aws:us-east-1": {**DEDICATED, "cloud_address": "169.254.10.0/30"}},
         [f"{PREFIX}.aws:us-east-1.cloud_address: must be a host address in a /24 to /30 peering "
          "network, got '169.254.10.0/30'"]),
        ({"aws:us-east-1": {**DEDICATED, "connection_id": "pc-bp1ciz7ekd2grn1as"}},
         [f"{PREFIX}: aws:us-east-1.connection_id: must be an AWS Direct Connect connection id like "
          "dxcon-ffabc123, got 'pc-bp1ciz7ekd2grn1as'"]),
        ({"aws:us-east-1": {**DEDICATED, "bgp_asn": None}},
         [f"{PREFIX}: aws:us-east-1.bgp_asn: is required for a dedicated link on aws and alicloud: AWS "
          "private virtual interfaces always route with BGP, and gpufleet peers Express Connect VBRs "
          "with BGP"]),
        ({"tencentcloud:ap-guangzhou": {**DEDICATED, "connection_id": "dc-kax48sg7", "vlan": 3001,
                                        "cen_id": "cen-7qthudw0ll6jmc"}},
         [f"{PREFIX}: tencentcloud:ap-guangzhou.vlan: must be 0 to 3000 on tencentcloud, got 3001; "
          "tencentcloud:ap-guangzhou.cen_id: is for alicloud links only: an existing CEN instance id "
          "like cen-7qthudw0ll6jmc****, got 'cen-7qthudw0ll6jmc'"]),
        ({"aws:us-east-1": {**DEDICATED, "bgp_asn": None, "bgp_auth_config": "bgpKey"}},
         [f"{PREFIX}.aws:us-east-1: bgp_auth_config: needs bgp_asn (a BGP key is only used with BGP)"]),
    ],
)  # fmt: skip
def test_errors_name_the_field_and_what_is_allowed(links: Any, expected: list[str]) -> None:
    assert errors_of(links) == expected
