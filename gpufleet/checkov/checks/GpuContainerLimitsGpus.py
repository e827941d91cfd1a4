from __future__ import annotations

from typing import Any

from checkov.common.models.enums import CheckResult
from checkov.kubernetes.checks.resource.base_container_check import BaseK8sContainerCheck

_GPU = "nvidia.com/gpu"


class GpuContainerLimitsGpus(BaseK8sContainerCheck):  # type: ignore[misc]
    """Extended resources such as `nvidia.com/gpu` are allocated from `limits`: a GPU only in
    `requests` is rejected by the API server, and a fractional count is not a GPU."""

    def __init__(self) -> None:
        super().__init__(
            name="Ensure containers asking for nvidia.com/gpu set it in limits as a whole number",
            id="CKV_GPUF_8",
        )

    def scan_container_conf(self, metadata: dict[str, Any], conf: dict[str, Any]) -> CheckResult:
        self.evaluated_container_keys = ["resources"]
        resources = conf.get("resources") or {}
        requests = resources.get("requests") or {}
        limits = resources.get("limits") or {}
        if _GPU not in requests and _GPU not in limits:
            return CheckResult.PASSED
        if _GPU not in limits:
            return CheckResult.FAILED
        try:
            count = float(limits[_GPU])
        except (TypeError, ValueError):
            return CheckResult.FAILED
        if not count.is_integer() or count < 1:
            return CheckResult.FAILED
        if _GPU in requests and str(requests[_GPU]) != str(limits[_GPU]):
            return CheckResult.FAILED
        return CheckResult.PASSED


check = GpuContainerLimitsGpus()
