"""Our own checkov checks (`CKV_GPUF_*`) for what checkov does not check on the resource types a GPU
fleet uses: Alibaba instances, RAM roles and security group rules, Tencent COS buckets, and GPU
containers in Kubernetes. One class per file; checkov loads them with `--external-checks-dir` (gpufleet
passes it) and users can pass this directory to their own checkov runs too. They run inside checkov's
environment, not gpufleet's: checkov's modules are imported only there.
"""
