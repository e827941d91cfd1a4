"""Each cloud's part of the burst signal's exporter (:mod:`gpufleet.components.baseline.exporter`), one
module per cloud that has one (``exporters/<cloud>.py``), read through
:func:`gpufleet.components.clouds.cloud_parts`. A module may hold ``SITES_REQUIRED`` (what the exporter's
``sites`` must hold, said when they are empty), ``config_data(args)`` (files the exporter's
ConfigMap carries beside the script and ``config.json``) and ``env(config_dir)`` (the container's
variables that point the cloud's SDK at them).
"""

# Where the exporter's pod mounts the client certificate and key (the Secret built from the stack's
# config), which the clouds' credential helpers read.
CLIENT_DIR = "/etc/gpufleet/client"
