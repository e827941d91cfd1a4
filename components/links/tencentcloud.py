"""A private link from on-prem into a Tencent Cloud site's VPC.

- ``dedicated``: a Direct Connect gateway (on the VPC, or on the CCN instance ``ccn_id``) and a
  dedicated tunnel on the named connection, with the spec's VLAN and peering addresses; BGP with the
  on-prem ASN (the MD5 key from secret config when named), else static routes to the on-prem ranges.
  On a VPC gateway, each of the site's route tables gets a route entry to each on-prem range through
  it; on a CCN gateway, the gateway publishes the on-prem ranges (and only those) to the CCN, whose
  route reaches the VPC attached to it.
- ``vpn``: a VPN gateway (pay by the hour, IPsec), a customer gateway and a VPN connection whose
  crypto is set explicitly: IKEv2, AES-CBC-256, SHA-256, DH GROUP14 in IKE and DH-GROUP14 PFS in IPsec
  (the API defaults are IKEv1, 3DES-CBC, MD5, GROUP1 and no PFS), the pre-shared key from secret
  config; the SPD policy names the VPC range and the on-prem ranges. Static routes on the gateway to
  the connection, or BGP over the tunnel when the spec names the on-prem ASN. Each of the site's route
  tables gets a route entry to each on-prem range through the VPN gateway.
"""

from __future__ import annotations

import pulumi
import tencentcloud_iac_pulumi as tencentcloud

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

IKE_VERSION = "IKEV2"
ENCRYPTION = "AES-CBC-256"
INTEGRITY = "SHA-256"
IKE_DH_GROUP = "GROUP14"  # the strongest of GROUP1, 2, 5, 14 and 24 (24 has a small subgroup)
PFS_DH_GROUP = "DH-GROUP14"


class TencentLink(pulumi.ComponentResource):
    """The link of one Tencent Cloud site (see the module doc)."""

    gateway_id: pulumi.Output[str]

    def __init__(self, name: str, args: LinkArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:links:TencentLink", name, None, opts)
        child = child_options(self, args.site)
        if args.link.kind == "dedicated":
            gateway, next_type, vpc_routes = self._dedicated(name, args, child)
        else:
            gateway, next_type, vpc_routes = self._vpn(name, args, child), "VPN", True
        if vpc_routes:
            for index, table_id in enumerate(route_table_ids(args.site)):
                for cidr in args.onprem_ranges:
                    tencentcloud.route.TableEntry(
                        f"{name}-rt{index}-{range_slug(cidr)}",
                        route_table_id=table_id,
                        destination_cidr_block=cidr,
                        next_type=next_type,
                        next_hub=gateway,
                        description=f"on-prem {cidr} over {name}",
                        opts=child,
                    )
        self.gateway_id = gateway
        self.register_outputs({"gateway_id": self.gateway_id})

    @staticmethod
    def _vpn(name: str, args: LinkArgs, child: pulumi.ResourceOptions) -> pulumi.Output[str]:
        site, link = args.site, args.link
        tags = dict(args.tags)
        gateway = tencentcloud.vpn.Gateway(
            f"{name}-vpngw",
            name=f"{name}-vpngw",
            vpc_id=site.vpc_id,
            bandwidth=link.bandwidth_mbps or DEFAULT_VPN_MBPS,
            charge_type="POSTPAID_BY_HOUR",
            type="IPSEC",
            tags=tags,
            opts=child,
        )
        customer = tencentcloud.vpn.CustomerGateway(
            f"{name}-cgw",
            name=f"{name}-cgw",
            public_ip_address=link.gateway_ip,
            bgp_asn=link.bgp_asn,
            tags=tags,
            opts=child,
        )
        bgp = None
        if link.bgp_asn is not None:
            tunnel = str(required(link.bgp_tunnel_cidr, "bgp_tunnel_cidr"))
            cloud_ip, onprem_ip = peer_addresses(tunnel)
            bgp = tencentcloud.vpn.ConnectionBgpConfigArgs(
                tunnel_cidr=tunnel, local_bgp_ip=cloud_ip, remote_bgp_ip=onprem_ip
            )
        connection = tencentcloud.vpn.Connection(
            f"{name}-ipsec",
            name=f"{name}-ipsec",
            vpc_id=site.vpc_id,
            vpn_gateway_id=gateway.id,
            customer_gateway_id=customer.id,
            pre_share_key=secret_config(required(link.psk_config, "psk_config")),
            route_type="Bgp" if bgp is not None else "StaticRoute",
            bgp_config=bgp,
            security_group_policies=[
                tencentcloud.vpn.ConnectionSecurityGroupPolicyArgs(
                    local_cidr_block=required(site.vpc_cidr, "site.vpc_cidr"),
                    remote_cidr_blocks=list(args.onprem_ranges),
                )
            ],
            ike_version=IKE_VERSION,
            ike_exchange_mode="MAIN",
            ike_proto_encry_algorithm=ENCRYPTION,
            ike_proto_authen_algorithm=INTEGRITY,
            ike_dh_group_name=IKE_DH_GROUP,
            ipsec_encrypt_algorithm=ENCRYPTION,
            ipsec_integrity_algorithm=INTEGRITY,
            ipsec_pfs_dh_group=PFS_DH_GROUP,
            tags=tags,
            opts=child,
        )
        if bgp is None:
            for cidr in args.onprem_ranges:
                tencentcloud.vpn.GatewayRoute(
                    f"{name}-vpn-{range_slug(cidr)}",
                    vpn_gateway_id=gateway.id,
                    destination_cidr_block=cidr,
                    instance_type="VPNCONN",
                    instance_id=connection.id,
                    priority=0,
                    status="ENABLE",
                    opts=child,
                )
        gateway_id: pulumi.Output[str] = gateway.id
        return gateway_id

    @staticmethod
    def _dedicated(
        name: str, args: LinkArgs, child: pulumi.ResourceOptions
    ) -> tuple[pulumi.Output[str], str, bool]:
        site, link = args.site, args.link
        on_ccn = link.ccn_id is not None
        gateway = tencentcloud.dc.Gateway(
            f"{name}-dcg",
            name=f"{name}-dcg",
            network_type="CCN" if on_ccn else "VPC",
            network_instance_id=link.ccn_id if link.ccn_id is not None else site.vpc_id,
            gateway_type="NORMAL",
            opts=child,
        )
        static = link.bgp_asn is None
        tencentcloud.dcx.Instance(
            f"{name}-tunnel",
            name=f"{name}-tunnel",
            dc_id=required(link.connection_id, "connection_id"),
            dcg_id=gateway.id,
            network_type="CCN" if on_ccn else "VPC",
            vpc_id=None if on_ccn else site.vpc_id,
            network_region=site.region,
            vlan=required(link.vlan, "vlan"),
            tencent_address=link.cloud_address,
            customer_address=link.onprem_address,
            route_type="STATIC" if static else "BGP",
            bgp_asn=link.bgp_asn,
            bgp_auth_key=secret_config(link.bgp_auth_config) if link.bgp_auth_config else None,
            route_filter_prefixes=list(args.onprem_ranges) if static else None,
            opts=child,
        )
        if on_ccn:
            tencentcloud.ccn.AttachmentV2(
                f"{name}-ccn-vpc",
                ccn_id=link.ccn_id,
                instance_type="VPC",
                instance_id=site.vpc_id,
                instance_region=site.region,
                opts=child,
            )
            for cidr in args.onprem_ranges:
                tencentcloud.dc.GatewayCcnRoute(
                    f"{name}-ccn-{range_slug(cidr)}", dcg_id=gateway.id, cidr_block=cidr, opts=child
                )
        gateway_id: pulumi.Output[str] = gateway.id
        return gateway_id, "DIRECTCONNECT", not on_ccn


# What :data:`gpufleet.components.links.LINKS` builds this cloud's links with.
LINK: LinkFactory = TencentLink
