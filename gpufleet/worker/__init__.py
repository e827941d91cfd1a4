"""A reference worker for gpufleet pools: one job at a time from the pool's queue, with scale-in
protection while it runs and a checkpoint on a termination notice (``docs/worker.md``).

Standard library only; each cloud's adapter needs its optional extra (``worker-aws``: boto3).
"""
