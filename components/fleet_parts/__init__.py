"""What :class:`gpufleet.components.fleet.HybridGpuFleet` does for one cloud beyond building its sites and
links, one module per cloud (``fleet_parts/<cloud>.py``), read through
:func:`gpufleet.components.clouds.cloud_parts`. The modules import their cloud's components (and SDK)
only inside their functions, so the fleet loads a cloud's SDK only where that cloud is used.

Each module may hold:

- ``IMAGE_FIELDS``: the pool spec's image fields of the cloud, for the warning given when a joined pool
  boots the cloud's default image;
- ``join_warnings()``: what ``pulumi up`` warns once when pools of the cloud join the on-prem cluster;
- ``LEGACY_OUTPUTS``: True for the cloud whose sites fill the outputs stacks exported before the fleet
  had sites (``pool_asg_names``, ``regional_key_arns``, keys pending import by region, and the
  checkpoint replica: ``storage.checkpoints.replicate_to`` names a region of this cloud);
- ``signal(...)``: the burst order's signal exporter on the on-prem cluster, signing in as the cloud's
  home site's publisher;
- ``exporter_publishing(...)``: what that exporter publishes for the cloud's gated pools, passed to
  :class:`gpufleet.components.baseline.exporter.SignalExporterArgs` in its field named after the cloud;
- ``autoscaler_access(...)``: the credentials the cloud's cluster-autoscaler needs beyond the
  scheduler's (``BurstSchedulingArgs.access``).
"""
