"""A private link from on-prem into an AWS site's VPC.

- ``dedicated``: a Direct Connect gateway on the named connection, a private virtual interface (BGP,
  with the spec's VLAN and peering addresses, the MD5 key from secret config when named) and the
  gateway's association with a virtual private gateway attached to the VPC, advertising the VPC range
  only.
- ``vpn``: a Site-to-Site VPN: a customer gateway for the on-prem gateway, a virtual private gateway
  attached to the VPC and a VPN connection whose two tunnels are both set explicitly to IKEv2 only,
  AES256-GCM-16 and SHA2-384 in phase 1 and 2, DH groups 20 and 21 (AWS otherwise also offers IKEv1,
  AES128, SHA1 and group 2), with the pre-shared key from secret config. Static routes to the on-prem
  ranges, or BGP when the spec names the on-prem ASN.

Either way, each of the site's route tables gets a static route to each on-prem range through the
virtual private gateway, and nothing else (no route propagation: what on-prem advertises over BGP, a
default route included, never reaches the tables).
"""

from __future__ import annotations

import pulumi
import pulumi_aws as aws

from gpufleet.components.links import LinkFactory
from gpufleet.components.links.base import (
    LinkArgs,
    child_options,
    range_slug,
    required,
    route_table_ids,
    secret_config,
)
from gpufleet.components.spec.aws import AWS_SIDE_ASNS
from gpufleet.components.tags import with_tags

IKE_VERSIONS = ["ikev2"]
ENCRYPTION = ["AES256-GCM-16"]
INTEGRITY = ["SHA2-384"]
DH_GROUPS = [20, 21]
# The customer gateway's ASN when the link routes statically (AWS requires one; it is not used).
STATIC_CUSTOMER_ASN = "65000"


class AwsLink(pulumi.ComponentResource):
    """The link of one AWS site (see the module doc)."""

    vpn_gateway_id: pulumi.Output[str]
    connection_id: pulumi.Output[str]

    def __init__(self, name: str, args: LinkArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:links:AwsLink", name, None, opts)
        site, link = args.site, args.link
        child = child_options(self, site)
        region = site.region
        vgw = aws.ec2.VpnGateway(
            f"{name}-vgw",
            vpc_id=site.vpc_id,
            amazon_side_asn=str(AWS_SIDE_ASNS[0]),
            region=region,
            tags=with_tags(args.tags, Name=f"{name}-vgw"),
            opts=child,
        )
        if link.kind == "dedicated":
            connection = self._dedicated(name, args, vgw, child)
        else:
            connection = self._vpn(name, args, vgw, child)
        for index, table_id in enumerate(route_table_ids(site)):
            for cidr in args.onprem_ranges:
                aws.ec2.Route(
                    f"{name}-rt{index}-{range_slug(cidr)}",
                    route_table_id=table_id,
                    destination_cidr_block=cidr,
                    gateway_id=vgw.id,
                    region=region,
                    opts=child,
                )
        self.vpn_gateway_id = vgw.id
        self.connection_id = connection
        self.register_outputs({"vpn_gateway_id": self.vpn_gateway_id, "connection_id": self.connection_id})

    @staticmethod
    def _vpn(
        name: str, args: LinkArgs, vgw: aws.ec2.VpnGateway, child: pulumi.ResourceOptions
    ) -> pulumi.Output[str]:
        link, region = args.link, args.site.region
        static = link.bgp_asn is None
        customer = aws.ec2.CustomerGateway(
            f"{name}-cgw",
            bgp_asn=STATIC_CUSTOMER_ASN if static else str(link.bgp_asn),
            ip_address=link.gateway_ip,
            type="ipsec.1",
            region=region,
            tags=with_tags(args.tags, Name=f"{name}-cgw"),
            opts=child,
        )
        psk = secret_config(required(link.psk_config, "psk_config"))
        vpn = aws.ec2.VpnConnection(
            f"{name}-vpn",
            aws.ec2.VpnConnectionArgs(
                customer_gateway_id=customer.id,
                vpn_gateway_id=vgw.id,
                type="ipsec.1",
                static_routes_only=static,
                region=region,
                tags=with_tags(args.tags, Name=f"{name}-vpn"),
                tunnel1_ike_versions=IKE_VERSIONS,
                tunnel1_phase1_encryption_algorithms=ENCRYPTION,
                tunnel1_phase1_integrity_algorithms=INTEGRITY,
                tunnel1_phase1_dh_group_numbers=DH_GROUPS,
                tunnel1_phase2_encryption_algorithms=ENCRYPTION,
                tunnel1_phase2_integrity_algorithms=INTEGRITY,
                tunnel1_phase2_dh_group_numbers=DH_GROUPS,
                tunnel1_preshared_key=psk,
                tunnel2_ike_versions=IKE_VERSIONS,
                tunnel2_phase1_encryption_algorithms=ENCRYPTION,
                tunnel2_phase1_integrity_algorithms=INTEGRITY,
                tunnel2_phase1_dh_group_numbers=DH_GROUPS,
                tunnel2_phase2_encryption_algorithms=ENCRYPTION,
                tunnel2_phase2_integrity_algorithms=INTEGRITY,
                tunnel2_phase2_dh_group_numbers=DH_GROUPS,
                tunnel2_preshared_key=psk,
            ),
            opts=child,
        )
        if static:
            for cidr in args.onprem_ranges:
                aws.ec2.VpnConnectionRoute(
                    f"{name}-vpn-{range_slug(cidr)}",
                    vpn_connection_id=vpn.id,
                    destination_cidr_block=cidr,
                    region=region,
                    opts=child,
                )
        vpn_id: pulumi.Output[str] = vpn.id
        return vpn_id

    @staticmethod
    def _dedicated(
        name: str, args: LinkArgs, vgw: aws.ec2.VpnGateway, child: pulumi.ResourceOptions
    ) -> pulumi.Output[str]:
        link, site = args.link, args.site
        gateway = aws.directconnect.Gateway(
            f"{name}-dxgw",
            name=f"{name}-dxgw",
            amazon_side_asn=str(AWS_SIDE_ASNS[1]),
            tags=dict(args.tags),
            opts=child,
        )
        aws.directconnect.PrivateVirtualInterface(
            f"{name}-vif",
            name=f"{name}-vif",
            connection_id=required(link.connection_id, "connection_id"),
            dx_gateway_id=gateway.id,
            vlan=required(link.vlan, "vlan"),
            address_family="ipv4",
            bgp_asn=required(link.bgp_asn, "bgp_asn"),
            amazon_address=link.cloud_address,
            customer_address=link.onprem_address,
            bgp_auth_key=secret_config(link.bgp_auth_config) if link.bgp_auth_config else None,
            region=site.region,
            tags=dict(args.tags),
            opts=child,
        )
        aws.directconnect.GatewayAssociation(
            f"{name}-dxgw-vgw",
            dx_gateway_id=gateway.id,
            associated_gateway_id=vgw.id,
            allowed_prefixes=[required(site.vpc_cidr, "site.vpc_cidr")],
            opts=child,
        )
        return gateway.id


# What :data:`gpufleet.components.links.LINKS` builds this cloud's links with.
LINK: LinkFactory = AwsLink
