"""The export in `terraform show -json` shape: exact values per mapped type, against a golden file."""

from __future__ import annotations

import json
import os
from pathlib import Path

from gpufleet.checkov.export import export_graph, load_table, object_id
from tests.checkov.fixtures import BUCKET, SG, fixture_graph, urn

GOLDEN = Path(__file__).with_name("golden") / "fixture_export.json"


def _exported() -> dict[str, object]:
    export = export_graph(fixture_graph())
    return {
        "plan": export.plan,
        "manifests": export.manifests,
        "addresses": {a: o.urn for a, o in export.addresses.items()},
        "objects": {k: o.urn for k, o in export.objects.items()},
        "unmapped": dict(export.unmapped),
    }


def _values(address: str) -> dict[str, object]:
    plan = export_graph(fixture_graph()).plan
    found = [r for r in plan["planned_values"]["root_module"]["resources"] if r["address"] == address]
    assert len(found) == 1, address
    values: dict[str, object] = found[0]["values"]
    return values


def test_export_matches_the_golden_file() -> None:
    got = _exported()
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    assert got == json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_plan_header_is_what_checkov_requires() -> None:
    plan = export_graph(fixture_graph()).plan
    assert plan["terraform_version"]
    for r in plan["planned_values"]["root_module"]["resources"]:
        assert r["mode"] == "managed"
        assert r["address"] == f"{r['type']}.{r['name']}"


def test_security_group_blocks_snake_cased_and_integral_floats_are_ints() -> None:
    values = _values("aws_security_group.ssh-open")
    assert values["ingress"] == [
        {
            "protocol": "tcp",
            "from_port": 22,
            "to_port": 22,
            "cidr_blocks": ["0.0.0.0/0"],
            "description": "ssh",
        }
    ]
    assert isinstance(values["ingress"][0]["from_port"], int)  # type: ignore[index]
    # An empty list is dropped, not exported as []: checkov reads [] as "unknown".
    assert "egress" not in values
    # Map keys are data: never snake-cased.
    assert values["tags"] == {"Team": "ml", "cost-center": "cc-1"}


def test_instance_plural_blocks_renamed_and_single_objects_as_one_block() -> None:
    values = _values("aws_instance.imdsv1")
    assert values["ebs_block_device"] == [
        {"device_name": "/dev/sdb", "encrypted": False, "volume_size": 100.5}
    ]
    assert values["metadata_options"] == [{"http_tokens": "optional", "http_put_response_hop_limit": 1}]
    assert values["root_block_device"] == [{"encrypted": True, "volume_size": 200}]
    for dropped in ("ephemeral_block_device", "user_data", "key_name", "vpc_security_group_ids"):
        assert dropped not in values


def test_references_to_other_resources_become_terraform_references() -> None:
    plan = export_graph(fixture_graph()).plan
    configured = {r["address"]: r["expressions"] for r in plan["configuration"]["root_module"]["resources"]}
    assert configured["aws_instance.imdsv1"] == {
        "vpc_security_group_ids": {
            "references": ["aws_security_group.ssh-open.id", "aws_security_group.ssh-open"]
        }
    }
    assert configured["aws_s3_bucket_public_access_block.ckpt-public-access"] == {
        "bucket": {"references": ["aws_s3_bucket.ckpt.id", "aws_s3_bucket.ckpt"]}
    }
    assert "bucket" not in _values("aws_s3_bucket_public_access_block.ckpt-public-access")


def test_iam_documents_given_as_dicts_are_json_strings() -> None:
    values = _values("aws_iam_role.node-role")
    assert json.loads(values["assume_role_policy"])["Statement"][0]["Principal"] == {  # type: ignore[arg-type]
        "Service": "ec2.amazonaws.com"
    }
    inline = values["inline_policy"]
    assert isinstance(inline, list)
    assert inline[0]["name"] == "all"
    assert json.loads(inline[0]["policy"])["Statement"][0]["Action"] == "*"


def test_autoscaling_group_tags_are_tag_blocks() -> None:
    values = _values("aws_autoscaling_group.pool")
    assert values["tag"] == [{"key": "team", "value": "ml", "propagate_at_launch": True}]
    assert values["vpc_zone_identifier"] == ["subnet-1", "subnet-2"]
    template = values["mixed_instances_policy"][0]["launch_template"][0]  # type: ignore[index]
    assert template["override"] == [{"instance_type": "g5.xlarge"}, {"instance_type": "g6.xlarge"}]


def test_alibaba_and_tencent_shapes() -> None:
    oss = _values("alicloud_oss_bucket.ali-ckpt")
    assert oss["server_side_encryption_rule"] == [{"sse_algorithm": "AES256"}]
    assert oss["lifecycle_rule"] == [{"enabled": True, "prefix": "ckpt/", "expiration": [{"days": 30}]}]
    vm = _values("alicloud_instance.ali-gpu")
    assert "password" not in vm  # secrets never reach the file checkov reads
    assert vm["data_disks"] == [{"size": 100, "encrypted": False}]
    rules = _values("tencentcloud_security_group_rule_set.tc-rules")
    assert rules["ingress"] == [
        {"action": "ACCEPT", "cidr_block": "0.0.0.0/0", "protocol": "ALL", "port": "ALL"}
    ]
    assert _values("tencentcloud_cbs_storage.tc-disk")["encrypt"] is False


def test_kubernetes_objects_become_manifests_with_checkov_ids() -> None:
    export = export_graph(fixture_graph())
    (manifest,) = export.manifests
    assert manifest["apiVersion"] == "apps/v1"
    assert manifest["kind"] == "Deployment"
    assert manifest["spec"]["replicas"] == 1
    assert object_id(manifest) == "Deployment.ml.trainer"
    assert export.objects["Deployment.ml.trainer"].urn == urn("kubernetes:apps/v1:Deployment", "trainer")


def test_unmapped_bridged_types_are_counted_and_others_ignored() -> None:
    export = export_graph(fixture_graph())
    assert dict(export.unmapped) == {"aws:lambda/function:Function": 1}
    assert export.addresses["aws_security_group.ssh-open"].urn == urn(SG, "ssh-open")
    assert export.addresses["aws_s3_bucket.ckpt"].urn == urn(BUCKET, "ckpt")
    assert len(export.addresses) == 12


def test_duplicate_logical_names_get_distinct_addresses() -> None:
    from gpufleet.graph import ResourceGraph
    from tests.checkov.fixtures import resource

    graph = ResourceGraph(
        project="p",
        stack="s",
        resources=[
            resource(BUCKET, "a.b", {}, id="x1"),
            resource(BUCKET, "a_b", {}, id="x2"),
            resource(BUCKET, "9", {}, id="x3"),
        ],
    )
    assert list(export_graph(graph).addresses) == [
        "aws_s3_bucket.a_b",
        "aws_s3_bucket.a_b_2",
        "aws_s3_bucket._9",
    ]


def test_every_table_token_is_a_resource_of_the_installed_sdks() -> None:
    import importlib.util

    roots = {}
    for package, module in (
        ("aws", "pulumi_aws"),
        ("alicloud", "pulumi_alicloud"),
        ("tencentcloud", "tencentcloud_iac_pulumi"),
    ):
        spec = importlib.util.find_spec(module)
        assert spec is not None and spec.origin is not None
        roots[package] = Path(spec.origin).parent
    registered: set[str] = set()
    for package, root in roots.items():
        for path in root.glob("*/*.py"):
            text = path.read_text(encoding="utf-8")
            for line in text.splitlines():
                stripped = line.strip()
                if stripped.startswith(f"'{package}:") and stripped.endswith("',"):
                    registered.add(stripped[1:-2])
    missing = sorted(t for t in load_table().resources if t not in registered)
    assert missing == []


def test_references_inside_blocks_become_nested_expressions() -> None:
    from gpufleet.graph import ResourceGraph
    from tests.checkov.fixtures import resource

    sg = resource(SG, "web", {}, id="sg-9")
    lt = resource(
        "aws:ec2/launchTemplate:LaunchTemplate",
        "lt",
        {"networkInterfaces": [{"deviceIndex": 0.0, "securityGroups": ["sg-9"]}, {"deviceIndex": 1.0}]},
        deps={"networkInterfaces": [sg.urn]},
    )
    plan = export_graph(ResourceGraph(project="p", stack="s", resources=[sg, lt])).plan
    (planned_lt,) = [r for r in plan["planned_values"]["root_module"]["resources"] if r["name"] == "lt"]
    assert planned_lt["values"]["network_interfaces"] == [{"device_index": 0}, {"device_index": 1}]
    (configured,) = plan["configuration"]["root_module"]["resources"]
    assert configured["expressions"] == {
        "network_interfaces": [
            {"security_groups": {"references": ["aws_security_group.web.id", "aws_security_group.web"]}},
            {},
        ]
    }


def test_hostile_kubernetes_inputs_still_export() -> None:
    from gpufleet.graph import ResourceGraph
    from tests.checkov.fixtures import resource

    graph = ResourceGraph(
        project="p",
        stack="s",
        resources=[
            resource("kubernetes:core/v1:ConfigMap", "cm", {"metadata": "not an object", "data": {"a": "b"}}),
            resource("kubernetes:core/v1:Namespace", "ns", {"metadata": {"name": 7, "namespace": ["x"]}}),
            resource("kubernetes:apps/v1:DeploymentPatch", "patch", {"metadata": {"name": "d"}}),
        ],
    )
    export = export_graph(graph)
    assert [m["metadata"]["name"] for m in export.manifests] == ["cm", "ns"]
    # A namespace that is not a string is not a namespace: checkov's id takes `default`.
    assert list(export.objects) == ["ConfigMap.default.cm", "Namespace.default.ns"]
