"""Each cloud's plain facts the cloud-neutral pool modules read, one module per cloud
(``facts/<cloud>.py``), found through :func:`gpufleet.components.clouds.cloud_parts`.

Each module holds, for its cloud: ``ENFORCEMENT``, how its alarms enforce the burst order's gate
(:mod:`gpufleet.components.pools.burst`); ``describe_gate(burst)``, the line ``gpufleet plan`` says of
it; and ``PROVIDER_ID``, the form of a joined node's ``--provider-id`` its cluster-autoscaler provider
parses (:mod:`gpufleet.components.pools.join`). Optionally, hooks into the boot script
(:mod:`gpufleet.components.pools.userdata`, :mod:`~gpufleet.components.pools.workload`):
``private_image(image)``, the image's private registry the instance logs in to (or None), and
``group_lookup(region)``, the shell lines that find the instance's scaling group for its worker. These
modules import no SDK and nothing of the pools at import time (the hooks import their cloud's module
when called), so the pure compilers may read them at import time.
"""
