"""AWS's part of the fleet (see :mod:`gpufleet.components.fleet_parts`).

- The burst order's signal (:func:`signal`): the exporter of ``gpufleet/Baseline`` ``FreeGpusAhead`` on
  the on-prem cluster, signing in through IAM Roles Anywhere as the AWS home site's publisher
  (:class:`gpufleet.components.baseline.aws_signal.BaselineSignal`, built when the burst order gates an
  AWS pool and the spec gives ``onprem.signal``).
- The cluster-autoscaler's credentials (:func:`autoscaler_access`): its own role
  (:mod:`gpufleet.components.baseline.aws_autoscaler`) through the signal's trust anchor and client
  certificate.
- The outputs AWS stacks exported before the fleet had sites (``LEGACY_OUTPUTS``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

import pulumi

if TYPE_CHECKING:
    from gpufleet.components.baseline.autoscalers.aws import AwsAccess
    from gpufleet.components.baseline.aws_signal import BaselineSignal
    from gpufleet.components.baseline.kubernetes import OnPremBaseline
    from gpufleet.components.pools.burst import Gate
    from gpufleet.components.pools.join import PoolJoin
    from gpufleet.components.sites import Site
    from gpufleet.components.spec import FleetSpec

CLOUD = "aws"
IMAGE_FIELDS = "image.ami or image.ssm_parameter"
LEGACY_OUTPUTS = True


def _secret(key: str) -> pulumi.Output[str]:
    from gpufleet.components.spec.onprem import full_config_key

    namespace, _, config_name = full_config_key(key).partition(":")
    return pulumi.Config(namespace).require_secret(config_name)


def signal(
    parent: pulumi.Resource,
    name: str,
    *,
    spec: FleetSpec,
    gates: Mapping[str, Gate],
    baseline: OnPremBaseline | None,
    tags: Mapping[str, str],
    home: Site | None,
    publishing: Callable[[], Mapping[str, Any]],
) -> BaselineSignal | None:
    """The exporter of ``gpufleet/Baseline`` ``FreeGpusAhead`` on the on-prem cluster, signing in as the
    AWS home site's publisher (its ``burst_publisher``), or None when the fleet has none. ``publishing``
    gives the other clouds' publishing, each into the exporter's field named after its cloud."""
    publisher = home.burst_publisher if home is not None else None
    aws_sites = {g.site: g.ahead for g in gates.values() if g.enforcement == "metric-math"}
    if publisher is None or baseline is None or spec.onprem is None or spec.onprem.signal is None:
        return None
    from gpufleet.components.baseline.exporter import (
        SignalExporter,
        SignalExporterArgs,
        SignalSite,
        cost_labels,
    )
    from gpufleet.components.baseline.kubernetes import CAPACITY_LABEL

    found = cast("BaselineSignal", publisher)
    config = spec.onprem.signal
    nodes = spec.onprem.gpu_nodes
    others = publishing()
    SignalExporter(
        f"{name}-signal-exporter",
        SignalExporterArgs(
            fleet=name,
            image=config.image,
            sites=[
                SignalSite(site=site, region=site.partition(":")[2], ahead=ahead)
                for site, ahead in aws_sites.items()
            ],
            node_selector={CAPACITY_LABEL: "baseline"} if nodes.names is not None else nodes.selector or {},
            order=sorted({g.site for g in gates.values()}, key=lambda site: _position(gates, site)),
            interval_seconds=config.interval_seconds,
            client_certificate=_secret(config.client_certificate),
            client_key=_secret(config.client_key),
            role_arn=found.role_arn,
            profile_arn=found.profile_arn,
            trust_anchor_arn=found.trust_anchor_arn,
            labels=cost_labels(name, tags),
            **others,
        ),
        pulumi.ResourceOptions(parent=parent, providers=[baseline.provider]),
    )
    return found


def autoscaler_access(
    parent: pulumi.Resource,
    name: str,
    *,
    spec: FleetSpec,
    joins: Mapping[str, PoolJoin],
    home: Site | None,
    tags: Mapping[str, str],
) -> AwsAccess | None:
    """The AWS autoscaler's credentials: its own role (:mod:`gpufleet.components.baseline.aws_autoscaler`)
    through the signal's Roles Anywhere trust anchor and client certificate, when AWS pools join and
    the fleet has the signal; None (and a warning) when they join without it."""
    aws_joins = [join for join in joins.values() if join.cloud == CLOUD]
    if not aws_joins or spec.onprem is None:
        return None
    found = cast("BaselineSignal | None", home.burst_publisher if home is not None else None)
    config = spec.onprem.signal
    if found is None or config is None:
        pulumi.log.warn(
            "the AWS cluster-autoscaler has no credentials: it signs in through the burst signal's Roles "
            "Anywhere trust anchor and client certificate (onprem.signal, and burst over an AWS pool)"
        )
        return None
    from gpufleet.components.baseline.autoscalers.aws import AwsAccess
    from gpufleet.components.baseline.aws_autoscaler import AutoscalerIdentity, AutoscalerIdentityArgs

    region = aws_joins[0].site.partition(":")[2]
    identity = AutoscalerIdentity(
        f"{name}-aws-autoscaler",
        AutoscalerIdentityArgs(
            cluster=name,
            region=region,
            client_cn=config.client_cn,
            trust_anchor_arn=found.trust_anchor_arn,
            tags={**tags, "gpufleet:site": f"aws:{region}"},
        ),
        pulumi.ResourceOptions(parent=parent),
    )
    return AwsAccess(
        image=config.image,
        client_certificate=_secret(config.client_certificate),
        client_key=_secret(config.client_key),
        trust_anchor_arn=identity.trust_anchor_arn,
        profile_arn=identity.profile_arn,
        role_arn=identity.role_arn,
    )


def _position(gates: Mapping[str, Gate], site: str) -> int:
    """A site's place in the burst order (1: the first site after the baseline)."""
    return next(g.position for g in gates.values() if g.site == site)
