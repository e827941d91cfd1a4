"""How the container entrypoint (``python -m gpufleet.worker``) builds a cloud's queue, instance and
checkpoints: ``<cloud>.py`` here, read through ``cloud_parts("gpufleet.worker.wiring")``, has
``parts(config)`` and may name extra region variables (``REGION_FALLBACK_ENVS``). A cloud without a
module here takes its clients injected (docs/worker.md)."""
