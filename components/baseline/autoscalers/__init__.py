"""Each cloud's cluster-autoscaler provider, one module per cloud (``autoscalers/<cloud>.py``), read by
:mod:`gpufleet.components.baseline.autoscaler` and :mod:`~gpufleet.components.baseline.autoscaler_pod`
through :func:`gpufleet.components.clouds.cloud_parts`.

Each module holds: ``PROVIDER``, the ``--cloud-provider`` name cluster-autoscaler takes; ``ENDPOINTS``,
the API hosts its provider calls on TCP 443 (``{region}``: the site's region); ``command(flags, args,
site)``, the container's command with the cloud's node groups; ``env(args, site)``, its environment
(region, credentials). Optionally ``KEYS_FROM_ENV``, the reason checkov's CKV_K8S_35 is skipped where the
provider reads keys from the environment only, and ``sidecars(base, app, args, labels, opts)``, the
containers, volumes and resources the cloud's credentials need beside the autoscaler.
"""
