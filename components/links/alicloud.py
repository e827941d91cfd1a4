"""A private link from on-prem into an Alibaba Cloud site's VPC.

- ``dedicated``: a virtual border router (VBR) on the named Express Connect physical connection, with
  the spec's VLAN and peering addresses and a BGP group and peer for the on-prem router (the MD5 key
  from secret config when named); the VBR and the VPC join a CEN instance (``cen_id``, else a new
  one). Two CEN route maps on what enters from the VBR let the on-prem ranges in and deny everything
  else, so what on-prem advertises (a default route included) never reaches the VPC.
- ``vpn``: a VPN gateway (pay-as-you-go, IPsec only, BGP route propagation off), a customer gateway
  and an IPsec connection whose ``ike_config`` and ``ipsec_config`` are set explicitly: IKEv2, aes256,
  sha256, DH group14 in both phases (the API defaults are IKEv1, aes, md5 and group2), the
  pre-shared key from secret config; BGP over the tunnel when the spec names the on-prem ASN.
  Each of the site's route tables gets a route entry to each on-prem range through the VPN gateway.
"""

from __future__ import annotations

import pulumi
import pulumi_alicloud as alicloud

from gpufleet.components.links import LinkFactory
from gpufleet.components.links.base import (
    LinkArgs,
    child_options,
    peer_addresses,
    range_slug,
    required,
    route_table_ids,
    secret_config,
)
from gpufleet.components.spec.links import DEFAULT_VPN_MBPS

IKE_VERSION = "ikev2"
ENCRYPTION = "aes256"
INTEGRITY = "sha256"
DH_GROUP = "group14"  # the strongest group the API offers (group1, group2, group5, group14)


def ike_config(psk: pulumi.Input[str]) -> alicloud.vpn.ConnectionIkeConfigArgs:
    return alicloud.vpn.ConnectionIkeConfigArgs(
        ike_version=IKE_VERSION,
        ike_mode="main",
        ike_enc_alg=ENCRYPTION,
        ike_auth_alg=INTEGRITY,
        ike_pfs=DH_GROUP,
        psk=psk,
    )


def ipsec_config() -> alicloud.vpn.ConnectionIpsecConfigArgs:
    return alicloud.vpn.ConnectionIpsecConfigArgs(
        ipsec_enc_alg=ENCRYPTION, ipsec_auth_alg=INTEGRITY, ipsec_pfs=DH_GROUP
    )


class AlicloudLink(pulumi.ComponentResource):
    """The link of one Alibaba Cloud site (see the module doc)."""

    gateway_id: pulumi.Output[str]

    def __init__(self, name: str, args: LinkArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:links:AlicloudLink", name, None, opts)
        child = child_options(self, args.site)
        if args.link.kind == "dedicated":
            self.gateway_id = self._dedicated(name, args, child)
        else:
            self.gateway_id = self._vpn(name, args, child)
        self.register_outputs({"gateway_id": self.gateway_id})

    @staticmethod
    def _vpn(name: str, args: LinkArgs, child: pulumi.ResourceOptions) -> pulumi.Output[str]:
        site, link = args.site, args.link
        tags = dict(args.tags)
        gateway = alicloud.vpn.Gateway(
            f"{name}-vpngw",
            vpn_gateway_name=f"{name}-vpngw",
            vpc_id=site.vpc_id,
            bandwidth=link.bandwidth_mbps or DEFAULT_VPN_MBPS,
            enable_ipsec=True,
            enable_ssl=False,
            network_type="public",
            payment_type="PayAsYouGo",
            auto_propagate=False,
            tags=tags,
            opts=child,
        )
        customer = alicloud.vpn.CustomerGateway(
            f"{name}-cgw",
            customer_gateway_name=f"{name}-cgw",
            ip_address=link.gateway_ip,
            asn=str(link.bgp_asn) if link.bgp_asn is not None else None,
            tags=tags,
            opts=child,
        )
        bgp = None
        if link.bgp_asn is not None:
            cloud_ip, _ = peer_addresses(str(required(link.bgp_tunnel_cidr, "bgp_tunnel_cidr")))
            bgp = alicloud.vpn.ConnectionBgpConfigArgs(
                enable=True, tunnel_cidr=str(link.bgp_tunnel_cidr), local_bgp_ip=cloud_ip
            )
        alicloud.vpn.Connection(
            f"{name}-ipsec",
            vpn_connection_name=f"{name}-ipsec",
            vpn_gateway_id=gateway.id,
            customer_gateway_id=customer.id,
            local_subnets=[required(site.vpc_cidr, "site.vpc_cidr")],
            remote_subnets=list(args.onprem_ranges),
            effect_immediately=True,
            enable_dpd=True,
            ike_config=ike_config(secret_config(required(link.psk_config, "psk_config"))),
            ipsec_config=ipsec_config(),
            bgp_config=bgp,
            tags=tags,
            opts=child,
        )
        for index, table_id in enumerate(route_table_ids(site)):
            for cidr in args.onprem_ranges:
                alicloud.vpc.RouteEntry(
                    f"{name}-rt{index}-{range_slug(cidr)}",
                    route_table_id=table_id,
                    destination_cidrblock=cidr,
                    nexthop_type="VpnGateway",
                    nexthop_id=gateway.id,
                    opts=child,
                )
        gateway_id: pulumi.Output[str] = gateway.id
        return gateway_id

    @staticmethod
    def _dedicated(name: str, args: LinkArgs, child: pulumi.ResourceOptions) -> pulumi.Output[str]:
        site, link = args.site, args.link
        cloud_ip, _, prefix = required(link.cloud_address, "cloud_address").partition("/")
        onprem_ip = required(link.onprem_address, "onprem_address").partition("/")[0]
        vbr = alicloud.expressconnect.VirtualBorderRouter(
            f"{name}-vbr",
            virtual_border_router_name=f"{name}-vbr",
            physical_connection_id=required(link.connection_id, "connection_id"),
            vlan_id=required(link.vlan, "vlan"),
            local_gateway_ip=cloud_ip,
            peer_gateway_ip=onprem_ip,
            peering_subnet_mask=_netmask(int(prefix)),
            tags=dict(args.tags),
            opts=child,
        )
        group = alicloud.vpc.BgpGroup(
            f"{name}-bgp",
            bgp_group_name=f"{name}-bgp",
            router_id=vbr.id,
            peer_asn=required(link.bgp_asn, "bgp_asn"),
            auth_key=secret_config(link.bgp_auth_config) if link.bgp_auth_config else None,
            opts=child,
        )
        alicloud.vpc.BgpPeer(
            f"{name}-bgp-peer", bgp_group_id=group.id, peer_ip_address=onprem_ip, enable_bfd=True, opts=child
        )
        cen_id: pulumi.Input[str]
        if link.cen_id is not None:
            cen_id = link.cen_id
        else:
            cen_id = alicloud.cen.Instance(
                f"{name}-cen",
                cen_instance_name=f"{name}-cen",
                protection_level="REDUCED",
                tags=dict(args.tags),
                opts=child,
            ).id
        for kind, instance_id in (("vpc", site.vpc_id), ("vbr", vbr.id)):
            alicloud.cen.InstanceAttachment(
                f"{name}-cen-{kind}",
                instance_id=cen_id,
                child_instance_id=instance_id,
                child_instance_type=kind.upper(),
                child_instance_region_id=site.region,
                opts=child,
            )
        alicloud.cen.RouteMap(
            f"{name}-cen-onprem-in",
            cen_id=cen_id,
            cen_region_id=site.region,
            transmit_direction="RegionIn",
            priority=1,
            map_result="Permit",
            source_instance_ids=[vbr.id],
            destination_cidr_blocks=list(args.onprem_ranges),
            cidr_match_mode="Include",
            description="on-prem ranges from the VBR",
            opts=child,
        )
        alicloud.cen.RouteMap(
            f"{name}-cen-other-deny",
            cen_id=cen_id,
            cen_region_id=site.region,
            transmit_direction="RegionIn",
            priority=2,
            map_result="Deny",
            source_instance_ids=[vbr.id],
            description="anything else the VBR learns",
            opts=child,
        )
        vbr_id: pulumi.Output[str] = vbr.id
        return vbr_id


def _netmask(prefix: int) -> str:
    """``30`` -> ``255.255.255.252``."""
    bits = (0xFFFFFFFF << (32 - prefix)) & 0xFFFFFFFF
    return ".".join(str((bits >> shift) & 0xFF) for shift in (24, 16, 8, 0))


# What :data:`gpufleet.components.links.LINKS` builds this cloud's links with.
LINK: LinkFactory = AlicloudLink
