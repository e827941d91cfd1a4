"""``links``: one private link per site, from the on-prem network into that site's VPC.

Keyed by the site, ``cloud:region`` (``aws:us-east-1``, ``alicloud:cn-hangzhou``,
``tencentcloud:ap-guangzhou``). A link is either

- ``kind: vpn``: an IPsec site-to-site VPN to the on-prem gateway at ``gateway_ip``. Routing is BGP
  when ``bgp_asn`` (the on-prem side's ASN) is given, else static routes to ``onprem_ranges``. Alibaba
  and Tencent BGP over IPsec also need ``bgp_tunnel_cidr`` (a /30 in 169.254.0.0/16: the cloud side
  takes its first address, on-prem the second). The pre-shared key is never written in the spec:
  ``psk_config`` names a secret stack config key of the ``gpufleet`` namespace
  (``pulumi config set --secret gpufleet:awsLinkPsk ...``).
- ``kind: dedicated``: a line that already exists, named by ``connection_id`` (AWS Direct Connect
  ``dxcon-...``, Alibaba Express Connect physical connection ``pc-...``, Tencent Direct Connect
  ``dc-...``), with the ``vlan`` and the point-to-point ``cloud_address``/``onprem_address`` of the
  virtual interface (VBR, dedicated tunnel). AWS private virtual interfaces always speak BGP, so
  ``bgp_asn`` is required there; Alibaba and Tencent route statically without it. Alibaba joins the
  VBR and the VPC through a CEN instance (``cen_id``, or a new one); Tencent attaches its Direct
  Connect gateway to the VPC, or to a CCN instance when ``ccn_id`` is given.

``onprem_ranges``: the on-prem ranges the site's nodes may reach (routes are added for these and
nothing else); left out, the fleet's on-prem node and data ranges.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal, cast

from pydantic import AfterValidator, BeforeValidator, Field, model_validator

from gpufleet.components import spec_limits as limits
from gpufleet.components.clouds import CLOUDS, Cloud, cloud_parts, part_values, profile
from gpufleet.components.spec.values import Ipv4Net, _Model, _show

LINK_CLOUDS = CLOUDS
_KEY_RE = re.compile("^(" + "|".join(CLOUDS) + r"):([a-z]{2}(-[a-z]+)+-\d+|[a-z]{2}-[a-z]+)$")
_CONFIG_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
# Each cloud's link facts (``spec/<cloud>.py``): its connection id form, VLAN range, whether its VPN
# takes a BGP tunnel range and a bandwidth, why a dedicated link needs BGP, the instance a dedicated link
# may join, and checks of its own.
_PARTS = cloud_parts("gpufleet.components.spec")
_CONNECTION_ID_RE = cast(Mapping[str, tuple[re.Pattern[str], str]], part_values(_PARTS, "CONNECTION_ID"))
# VLAN ids each cloud accepts on a virtual interface / VBR / dedicated tunnel.
VLAN_RANGES = cast(Mapping[str, tuple[int, int]], part_values(_PARTS, "VLAN_RANGE"))
_TUNNEL_CLOUDS = [cloud for cloud in _PARTS if getattr(_PARTS[cloud], "BGP_TUNNEL_CIDR", False)]
_BANDWIDTH_CLOUDS = [cloud for cloud in _PARTS if getattr(_PARTS[cloud], "VPN_BANDWIDTH", False)]
_DEDICATED_BGP = cast(Mapping[str, str], part_values(_PARTS, "DEDICATED_BGP"))
_ATTACHMENTS = cast(
    Mapping[str, tuple[str, re.Pattern[str], str, str]], part_values(_PARTS, "LINK_ATTACHMENT")
)
_ATTACHED = {field: f"dedicated, {cloud}: {what}" for cloud, (field, _, _, what) in _ATTACHMENTS.items()}
# 2-byte and 4-byte ASNs, without 0, AS_TRANS (23456) and the last (reserved) 4-byte value.
_MAX_ASN = 4_294_967_294
_LINK_LOCAL = ipaddress.IPv4Network("169.254.0.0/16")
# Where an on-prem VPN gateway's public address cannot be (the documentation ranges are allowed: examples).
_NOT_PUBLIC = tuple(
    ipaddress.IPv4Network(net)
    for net in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "224.0.0.0/4",
        "240.0.0.0/4",
    )
)


def _ipv4_address(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"must be an IPv4 address like 203.0.113.10, got {_show(value)}")
    try:
        address = ipaddress.IPv4Address(value.strip())
    except ValueError:
        raise ValueError(f"must be an IPv4 address like 203.0.113.10, got {_show(value)}") from None
    if any(address in net for net in _NOT_PUBLIC):
        raise ValueError(
            f"must be the on-prem VPN gateway's public IPv4 address, got {address} (not publicly routable)"
        )
    return str(address)


def _ipv4_interface(value: Any) -> str:
    form = "an address with its prefix length like 169.254.10.1/30"
    if not isinstance(value, str):
        raise ValueError(f"must be {form}, got {_show(value)}")
    try:
        interface = ipaddress.IPv4Interface(value.strip())
    except ValueError:
        raise ValueError(f"must be {form}, got {_show(value)}") from None
    if interface.network.prefixlen < 24 or interface.ip in (
        interface.network.network_address,
        interface.network.broadcast_address,
    ):
        raise ValueError(f"must be a host address in a /24 to /30 peering network, got {_show(value)}")
    return str(interface)


# The example config key messages give: the first cloud's link's pre-shared key.
_PSK_EXAMPLE = f"{CLOUDS[0]}LinkPsk"


def _config_name(value: Any) -> str:
    if not isinstance(value, str) or not _CONFIG_NAME_RE.match(value):
        raise ValueError(
            f"must name a secret stack config key of the gpufleet namespace, like {_PSK_EXAMPLE} (set it "
            f"with pulumi config set --secret gpufleet:{_PSK_EXAMPLE} ...), not the key itself; got "
            f"{_show(value)}"
        )
    return value


def _onprem_ranges(value: list[ipaddress.IPv4Network] | None) -> list[ipaddress.IPv4Network] | None:
    if value is None:
        return None
    if not value:
        raise ValueError("must list at least one on-prem range, or be left out for the on-prem ranges")
    for net in value:
        if net.prefixlen < 8:
            raise ValueError(
                f"must name on-prem ranges of /8 or smaller, got {net}: a link routes these ranges and "
                "nothing else (no default route)"
            )
    for index, net in enumerate(value):
        for other in value[index + 1 :]:
            if net.overlaps(other):
                raise ValueError(f"ranges {net} and {other} overlap: list each range once")
    return value


IPv4Address = Annotated[str, BeforeValidator(_ipv4_address)]
IPv4Interface = Annotated[str, BeforeValidator(_ipv4_interface)]
ConfigName = Annotated[str, BeforeValidator(_config_name)]
Asn = Annotated[int, Field(ge=1, le=_MAX_ASN)]

_VPN_FIELDS = ("gateway_ip", "psk_config", "bgp_tunnel_cidr", "bandwidth_mbps")
DEFAULT_VPN_MBPS = 100
_DEDICATED_FIELDS = ("connection_id", "vlan", "cloud_address", "onprem_address", "bgp_auth_config")
_DEDICATED_ONLY = (*_DEDICATED_FIELDS, "cen_id", "ccn_id")


class Link(_Model):
    """One site's private link (see the module doc for each field)."""

    kind: Literal["vpn", "dedicated"]
    onprem_ranges: Annotated[list[Ipv4Net] | None, AfterValidator(_onprem_ranges)] = Field(
        default=None,
        description="on-prem ranges the site's nodes may reach; none: the on-prem node and data ranges",
    )
    bgp_asn: Asn | None = Field(default=None, description="the on-prem side's BGP ASN; none: static routes")
    # vpn
    gateway_ip: IPv4Address | None = Field(default=None, description="vpn: the on-prem gateway's public IP")
    psk_config: ConfigName | None = Field(
        default=None, description="vpn: the secret gpufleet config key that holds the pre-shared key"
    )
    bgp_tunnel_cidr: Ipv4Net | None = Field(
        default=None, description=f"vpn with BGP on {'/'.join(_TUNNEL_CLOUDS)}: a /30 in 169.254.0.0/16"
    )
    bandwidth_mbps: Literal[5, 10, 20, 50, 100, 200, 500, 1000] | None = Field(
        default=None,
        description=(
            f"vpn on {'/'.join(_BANDWIDTH_CLOUDS)}: the VPN gateway's bandwidth; none: {DEFAULT_VPN_MBPS}"
        ),
    )
    # dedicated
    connection_id: str | None = Field(default=None, description="dedicated: the existing line's id")
    vlan: int | None = Field(default=None, ge=0, le=4094, description="dedicated: the VLAN id")
    cloud_address: IPv4Interface | None = Field(
        default=None, description="dedicated: the cloud side's peering address, like 169.254.10.1/30"
    )
    onprem_address: IPv4Interface | None = Field(
        default=None, description="dedicated: the on-prem side's peering address, like 169.254.10.2/30"
    )
    bgp_auth_config: ConfigName | None = Field(
        default=None, description="dedicated: the secret gpufleet config key of the BGP MD5 key"
    )
    cen_id: str | None = Field(default=None, description=_ATTACHED["cen_id"])
    ccn_id: str | None = Field(default=None, description=_ATTACHED["ccn_id"])

    @model_validator(mode="after")
    def _fields_of_kind(self) -> Link:
        problems = kind_problems(self)
        if problems:
            raise ValueError("; ".join(problems))
        return self

    @property
    def routing(self) -> Literal["bgp", "static"]:
        return "bgp" if self.bgp_asn is not None else "static"


def kind_problems(link: Link) -> list[str]:
    """What a link of its kind lacks or must leave out, each naming the field."""
    problems: list[str] = []
    if link.kind == "vpn":
        problems += [
            f"{name}: is required for a vpn link"
            for name in ("gateway_ip", "psk_config")
            if getattr(link, name) is None
        ]
        problems += [
            f"{name}: is for dedicated links only; leave it out of a vpn link"
            for name in _DEDICATED_ONLY
            if getattr(link, name) is not None
        ]
        cidr = link.bgp_tunnel_cidr
        if cidr is not None and (cidr.prefixlen != 30 or not cidr.subnet_of(_LINK_LOCAL)):
            problems.append(f"bgp_tunnel_cidr: must be a /30 inside 169.254.0.0/16, got {cidr}")
        if cidr is not None and link.bgp_asn is None:
            problems.append("bgp_tunnel_cidr: needs bgp_asn (without it the link routes statically)")
        return problems
    required = ("connection_id", "vlan", "cloud_address", "onprem_address")
    problems += [
        f"{name}: is required for a dedicated link" for name in required if getattr(link, name) is None
    ]
    problems += [
        f"{name}: is for vpn links only; leave it out of a dedicated link"
        for name in _VPN_FIELDS
        if getattr(link, name) is not None
    ]
    if link.cloud_address and link.onprem_address:
        cloud, onprem = (
            ipaddress.IPv4Interface(link.cloud_address),
            ipaddress.IPv4Interface(link.onprem_address),
        )
        if cloud.network != onprem.network or cloud.ip == onprem.ip:
            problems.append(
                f"onprem_address: must be another address in cloud_address's network {cloud.network}, "
                f"got {link.onprem_address}"
            )
    if link.bgp_auth_config is not None and link.bgp_asn is None:
        problems.append("bgp_auth_config: needs bgp_asn (a BGP key is only used with BGP)")
    return problems


def cloud_problems(cloud: str, link: Link) -> list[str]:
    """What the link's cloud cannot build, each naming the field and what is allowed."""
    part: Any = _PARTS.get(cast(Cloud, cloud))
    problems: list[str] = list(part.link_problems(link)) if hasattr(part, "link_problems") else []
    if link.kind == "vpn":
        if cloud in _TUNNEL_CLOUDS and link.bgp_asn is not None and link.bgp_tunnel_cidr is None:
            names = " or ".join(_PARTS[c].SHORT_NAME for c in _TUNNEL_CLOUDS)
            problems.append(
                f"bgp_tunnel_cidr: is required for BGP over an {names} VPN: a /30 inside "
                "169.254.0.0/16 (the cloud side takes its first address, on-prem the second)"
            )
        if hasattr(part, "vpn_problems"):
            problems += part.vpn_problems(link)
        return problems
    pattern, form = _CONNECTION_ID_RE[cloud]
    if link.connection_id is not None and not pattern.match(link.connection_id):
        problems.append(f"connection_id: must be {form}, got {limits.quote(link.connection_id, 60)}")
    low, high = VLAN_RANGES[cloud]
    if link.vlan is not None and not low <= link.vlan <= high:
        problems.append(f"vlan: must be {low} to {high} on {cloud}, got {link.vlan}")
    if cloud in _DEDICATED_BGP and link.bgp_asn is None:
        problems.append(
            f"bgp_asn: is required for a dedicated link on {' and '.join(_DEDICATED_BGP)}: "
            + ", and ".join(_DEDICATED_BGP.values())
        )
    for owner, (field, pattern, form, _) in _ATTACHMENTS.items():
        value = getattr(link, field)
        if value is not None and (cloud != owner or not pattern.match(value)):
            problems.append(f"{field}: is for {owner} links only: {form}, got {limits.quote(value, 60)}")
    return problems


_KEY_EXAMPLES = " or ".join(f"{p.key}:{p.default_region}" for p in map(profile, LINK_CLOUDS[:2]))


def _link_keys(value: dict[str, Link]) -> dict[str, Link]:
    problems: list[str] = []
    for key, link in value.items():
        shown = limits.quote(key, 60)
        if not _KEY_RE.match(key):
            problems.append(
                f"{shown}: links are keyed by their site, cloud:region, with cloud one of "
                f"{', '.join(LINK_CLOUDS)} (like {_KEY_EXAMPLES})"
            )
            continue
        problems += [f"{key}.{problem}" for problem in cloud_problems(key.split(":", 1)[0], link)]
    if problems:
        raise ValueError("; ".join(problems))
    return value


Links = Annotated[dict[str, Link], AfterValidator(_link_keys)]


def link_cloud(key: str) -> str:
    """The cloud of a link key (``aws`` of ``aws:us-east-1``)."""
    return key.split(":", 1)[0]
