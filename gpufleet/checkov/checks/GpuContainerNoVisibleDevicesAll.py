from __future__ import annotations

from typing import Any

from checkov.common.models.enums import CheckResult
from checkov.kubernetes.checks.resource.base_container_check import BaseK8sContainerCheck


class GpuContainerNoVisibleDevicesAll(BaseK8sContainerCheck):  # type: ignore[misc]
    """With the NVIDIA container runtime, `NVIDIA_VISIBLE_DEVICES=all` set on a container hands it every
    GPU of the node, whatever `nvidia.com/gpu` the device plugin allocated: one pod can read another's
    GPU memory."""

    def __init__(self) -> None:
        super().__init__(
            name="Ensure containers do not set NVIDIA_VISIBLE_DEVICES=all (it bypasses nvidia.com/gpu)",
            id="CKV_GPUF_7",
        )

    def scan_container_conf(self, metadata: dict[str, Any], conf: dict[str, Any]) -> CheckResult:
        self.evaluated_container_keys = ["env"]
        for variable in conf.get("env") or []:
            if (
                isinstance(variable, dict)
                and variable.get("name") == "NVIDIA_VISIBLE_DEVICES"
                and str(variable.get("value", "")).strip().lower() == "all"
            ):
                return CheckResult.FAILED
        return CheckResult.PASSED


check = GpuContainerNoVisibleDevicesAll()
