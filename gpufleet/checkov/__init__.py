"""checkov on Pulumi programs: the offline graph exported as a `terraform show -json` plan (and
Kubernetes manifests), one checkov run per `gpufleet check`, its findings mapped back to Pulumi URNs."""
