"""Each cloud's plain facts the cloud-neutral pool modules read, one module per cloud
(``facts/<cloud>.py``), found through :func:`gpufleet.components.clouds.cloud_parts`.

Each module holds, for its cloud: ``ENFORCEMENT``, how its alarms enforce the burst order's gate
(:mod:`gpufleet.components.pools.burst`); ``describe_gate(burst)``, the line ``gpufleet plan`` says of
it; and ``PROVIDER_ID``, the form of a joined node's ``--provider-id`` its cluster-autoscaler provider
parses (:mod:`gpufleet.components.pools.join`). These modules import no SDK and nothing of the pools, so
the pure compilers may read them at import time.
"""
