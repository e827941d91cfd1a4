"""KEDA in ``BurstScheduling`` (:mod:`gpufleet.components.baseline.scheduling`): per
``scheduler.serving`` entry a ``ScaledObject`` on the Deployment's pods' average
``DCGM_FI_DEV_GPU_UTIL`` (Prometheus), above the threshold over the window."""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from gpufleet.components.baseline.autoscaler import _minutes

KEDA = "keda.sh/v1alpha1"


class KedaParts:
    """The KEDA part of ``BurstScheduling``: a ``ScaledObject`` per serving Deployment."""

    _labels: dict[str, str]

    def _serving(self, name: str, prometheus: str, serving: Any, opts: pulumi.ResourceOptions) -> None:
        from gpufleet.components.spec.scheduler import window_seconds

        window = _minutes(window_seconds(serving))
        query = (
            f'avg(avg_over_time(DCGM_FI_DEV_GPU_UTIL{{namespace="{serving.namespace}",'
            f'pod=~"{serving.deployment}-.*"}}[{window}]))'
        )
        k8s.apiextensions.CustomResource(
            f"{name}-serving-{serving.namespace}-{serving.deployment}",
            api_version=KEDA,
            kind="ScaledObject",
            metadata={
                "name": f"{serving.deployment}-gpu",
                "namespace": serving.namespace,
                "labels": self._labels,
            },
            spec={
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": serving.deployment},
                "minReplicaCount": serving.min_replicas,
                "maxReplicaCount": serving.max_replicas,
                "triggers": [
                    {
                        "type": "prometheus",
                        "metricType": "AverageValue",
                        "metadata": {
                            "serverAddress": prometheus,
                            "query": query,
                            "threshold": str(serving.utilisation),
                        },
                    }
                ],
            },
            opts=opts,
        )
