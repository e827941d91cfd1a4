"""An ordinary CPU web app on Kubernetes: namespace, Deployment, Service, ConfigMap and an HPA. No GPU."""

import pulumi
import pulumi_kubernetes as k8s

LABELS = {"project": "shop", "team": "web", "cost-center": "cc-100", "env": "prod"}
APP = {"app": "storefront"}

namespace = k8s.core.v1.Namespace("shop", metadata=k8s.meta.v1.ObjectMetaArgs(name="shop", labels=LABELS))
meta = k8s.meta.v1.ObjectMetaArgs(namespace=namespace.metadata.name, labels={**LABELS, **APP})

settings = k8s.core.v1.ConfigMap(
    "storefront",
    metadata=k8s.meta.v1.ObjectMetaArgs(name="storefront", namespace=namespace.metadata.name, labels=LABELS),
    data={"LOG_LEVEL": "info", "FEATURE_FLAGS": "checkout-v2", "UPSTREAM_URL": "https://api.example.com"},
)

deployment = k8s.apps.v1.Deployment(
    "storefront",
    metadata=k8s.meta.v1.ObjectMetaArgs(
        name="storefront", namespace=namespace.metadata.name, labels={**LABELS, **APP}
    ),
    spec=k8s.apps.v1.DeploymentSpecArgs(
        replicas=3,
        selector=k8s.meta.v1.LabelSelectorArgs(match_labels=APP),
        template=k8s.core.v1.PodTemplateSpecArgs(
            metadata=k8s.meta.v1.ObjectMetaArgs(labels={**LABELS, **APP}),
            spec=k8s.core.v1.PodSpecArgs(
                security_context=k8s.core.v1.PodSecurityContextArgs(run_as_non_root=True),
                containers=[
                    k8s.core.v1.ContainerArgs(
                        name="web",
                        image="ghcr.io/example/storefront:1.4.2",
                        ports=[k8s.core.v1.ContainerPortArgs(container_port=8080)],
                        env_from=[
                            k8s.core.v1.EnvFromSourceArgs(
                                config_map_ref=k8s.core.v1.ConfigMapEnvSourceArgs(name=settings.metadata.name)
                            )
                        ],
                        resources=k8s.core.v1.ResourceRequirementsArgs(
                            requests={"cpu": "250m", "memory": "256Mi"},
                            limits={"cpu": "1", "memory": "512Mi"},
                        ),
                        security_context=k8s.core.v1.SecurityContextArgs(allow_privilege_escalation=False),
                    )
                ],
            ),
        ),
    ),
)

service = k8s.core.v1.Service(
    "storefront",
    metadata=k8s.meta.v1.ObjectMetaArgs(name="storefront", namespace=namespace.metadata.name, labels=LABELS),
    spec=k8s.core.v1.ServiceSpecArgs(
        selector=APP, ports=[k8s.core.v1.ServicePortArgs(port=80, target_port=8080)], type="ClusterIP"
    ),
)

k8s.autoscaling.v2.HorizontalPodAutoscaler(
    "storefront",
    metadata=k8s.meta.v1.ObjectMetaArgs(name="storefront", namespace=namespace.metadata.name, labels=LABELS),
    spec=k8s.autoscaling.v2.HorizontalPodAutoscalerSpecArgs(
        scale_target_ref=k8s.autoscaling.v2.CrossVersionObjectReferenceArgs(
            api_version="apps/v1", kind="Deployment", name=deployment.metadata.name
        ),
        min_replicas=3,
        max_replicas=12,
        metrics=[
            k8s.autoscaling.v2.MetricSpecArgs(
                type="Resource",
                resource=k8s.autoscaling.v2.ResourceMetricSourceArgs(
                    name="cpu",
                    target=k8s.autoscaling.v2.MetricTargetArgs(type="Utilization", average_utilization=70),
                ),
            )
        ],
    ),
)

pulumi.export("service", service.metadata.name)
