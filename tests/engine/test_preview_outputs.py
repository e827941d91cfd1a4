"""The run is a preview, and every output a provider would fill has a value of its declared type.

On each of the four providers: an output the mocks model (an ARN, a bucket URL, a Kubernetes uid) keeps
its modelled value, and an output they do not model is a typed placeholder, never None. Apply callbacks
on placeholders run, so resources built inside them are recorded. Placeholders reach the program only:
the graph (what policies judge) keeps the inputs and the modelled outputs.
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from gpufleet.engine import run_program
from gpufleet.graph import ResourceGraph
from tests.engine.projects import write_project

PROGRAM = """
import pulumi
import pulumi_alicloud as alicloud
import pulumi_aws as aws
import pulumi_kubernetes as k8s
import tencentcloud_iac_pulumi as tencentcloud

pulumi.export("dry_run", pulumi.runtime.is_dry_run())

# AWS
lb = aws.lb.LoadBalancer("web", internal=False, load_balancer_type="application")
pulumi.export("lb_dns", lb.dns_name)
lb.dns_name.apply(
    lambda dns: aws.route53.Record("web-alias", zone_id="Z1", name="www", type="CNAME", records=[dns], ttl=60)
)
stage = aws.apigateway.Stage("prod", rest_api="api-1", deployment="dep-1", stage_name="prod")
pulumi.export("execution_arn", stage.execution_arn)
cluster = aws.eks.Cluster(
    "gpu", role_arn="arn:aws:iam::123456789012:role/eks", vpc_config={"subnet_ids": ["subnet-1"]}
)
pulumi.export("ca_data", cluster.certificate_authority.data)
cert = aws.acm.Certificate("site", domain_name="example.com", validation_method="DNS")
pulumi.export("record_name", cert.domain_validation_options[0].resource_record_name)
bucket = aws.s3.Bucket("ckpt", bucket="ckpt-data")
pulumi.export("bucket_arn", bucket.arn)
token = aws.ecr.get_authorization_token()
pulumi.export("ecr_password", token.password)
pulumi.export("ecr_endpoint", token.proxy_endpoint)
credentials = aws.ecr.get_credentials(registry_id="123456789012")
pulumi.export("ecr_credentials", credentials.authorization_token)

# Alibaba Cloud
role = alicloud.ram.Role("node", role_name="gpu-node", assume_role_policy_document="{}")
pulumi.export("ram_arn", role.arn)
ecs = alicloud.ecs.Instance("gpu", instance_type="ecs.gn7i-c8g1.2xlarge", image_id="m-1", vswitch_id="vsw-1")
pulumi.export("ecs_public_ip", ecs.public_ip)
pulumi.export("ecs_secondary", ecs.secondary_private_ips[0])

# Tencent Cloud
cos = tencentcloud.cos.Bucket("ckpt", bucket="ckpt-1250000000", acl="private")
pulumi.export("cos_url", cos.cos_bucket_url)
clb = tencentcloud.clb.Instance("lb", network_type="OPEN", clb_name="gpu-lb")
pulumi.export("clb_vip", clb.clb_vips[0])
pulumi.export("clb_domain", clb.domain)

# Kubernetes
svc = k8s.core.v1.Service(
    "web", metadata={"name": "web"}, spec={"type": "LoadBalancer", "ports": [{"port": 80}]}
)
pulumi.export("svc_name", svc.metadata.name)
pulumi.export("svc_uid", svc.metadata.uid)
pulumi.export("svc_hostname", svc.status.load_balancer.ingress[0].hostname)
release = k8s.helm.v3.Release("ingress", chart="ingress-nginx", namespace="ingress")
pulumi.export("release_namespace", release.status.namespace)
pulumi.export("release_revision", release.status.revision)
"""

STACK = (
    "config:\n  aws:region: eu-west-1\n  alicloud:region: cn-shanghai\n  tencentcloud:region: ap-shanghai\n"
)


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> ResourceGraph:
    root = write_project(tmp_path_factory.mktemp("preview") / "p", PROGRAM, stacks={"dev": STACK})
    return run_program(root, "dev")


def test_the_program_runs_as_a_preview(graph: ResourceGraph) -> None:
    assert graph.outputs["dry_run"] is True


def test_aws_modelled_and_unmodelled_outputs(graph: ResourceGraph) -> None:
    out = graph.outputs
    assert out["bucket_arn"] == "arn:aws:s3:::ckpt-data"
    assert out["lb_dns"] == "web-dns-name.eu-west-1.placeholder.invalid"
    assert out["execution_arn"] == "arn:aws:execute-api:eu-west-1:123456789012:stage/prod-execution-arn"
    # base64 that decodes, as programs that write a kubeconfig or a docker login decode it
    assert base64.b64decode(out["ca_data"]).startswith(b"-----BEGIN CERTIFICATE-----\n")
    assert out["record_name"] == "site-resource-record-name"


def test_invokes_without_an_offline_answer_get_typed_placeholders(graph: ResourceGraph) -> None:
    out = graph.outputs
    assert out["ecr_password"] == "getAuthorizationToken-password"
    assert out["ecr_endpoint"] == "getAuthorizationToken-proxy-endpoint.eu-west-1.placeholder.invalid"
    user, password = base64.b64decode(out["ecr_credentials"]).decode().split(":")
    assert (user, password) == ("AWS", "offline-placeholder-password")
    assert any(
        "aws:ecr/getAuthorizationToken:getAuthorizationToken has no offline answer" in n for n in graph.notes
    )


def test_alicloud_modelled_and_unmodelled_outputs(graph: ResourceGraph) -> None:
    assert graph.outputs["ram_arn"] == "acs:ram::1234567890123456:role/gpu-node"
    assert graph.outputs["ecs_public_ip"] == "203.0.113.10"
    assert graph.outputs["ecs_secondary"] == "gpu-secondary-private-ips"


def test_tencentcloud_modelled_and_unmodelled_outputs(graph: ResourceGraph) -> None:
    assert graph.outputs["cos_url"] == "ckpt-1250000000.cos.ap-shanghai.myqcloud.com"
    assert graph.outputs["clb_vip"] == "lb-clb-vips"
    assert graph.outputs["clb_domain"] == "lb-domain.ap-shanghai.placeholder.invalid"


def test_kubernetes_modelled_and_unmodelled_outputs(graph: ResourceGraph) -> None:
    out = graph.outputs
    assert out["svc_name"] == "web"
    [service] = graph.of_type("kubernetes:core/v1:Service")
    assert out["svc_uid"] == service.outputs["metadata"]["uid"]
    assert out["svc_hostname"] == "web-hostname.local.placeholder.invalid"
    assert out["release_namespace"] == "ingress-namespace"
    assert out["release_revision"] == 1


def test_a_resource_built_in_an_apply_on_a_placeholder_is_recorded(graph: ResourceGraph) -> None:
    [record] = graph.of_type("aws:route53/record:Record")
    assert record.name == "web-alias"
    assert record.inputs["records"] == ["web-dns-name.eu-west-1.placeholder.invalid"]


def test_placeholders_are_not_recorded_as_outputs(graph: ResourceGraph) -> None:
    [lb] = graph.of_type("aws:lb/loadBalancer:LoadBalancer")
    assert "dnsName" not in lb.outputs
    assert lb.outputs["arn"].startswith("arn:aws:elasticloadbalancing:eu-west-1:123456789012:")
    assert lb.outputs["loadBalancerType"] == "application"
    [svc] = graph.of_type("kubernetes:core/v1:Service")
    assert "status" not in svc.outputs
    assert svc.outputs["spec"] == {"type": "LoadBalancer", "ports": [{"port": 80}]}


def test_resource_get_has_its_id_and_filled_outputs(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p",
        """
        import pulumi
        import pulumi_aws as aws

        vpc = aws.ec2.Vpc.get("shared", "vpc-0abc")
        pulumi.export("id", vpc.id)
        pulumi.export("cidr", vpc.cidr_block)
        pulumi.export("main_rtb", vpc.main_route_table_id)
        """,
        stacks={"dev": "config:\n  aws:region: us-east-1\n"},
    )
    graph = run_program(root, "dev")
    assert graph.outputs["id"] == "vpc-0abc"
    assert graph.outputs["cidr"] == "10.0.0.0/16"
    assert graph.outputs["main_rtb"] == "shared-main-route-table-id"
