"""GF-STOR-008 credits the account default: with EBS encryption by default enabled in the stack, AWS
encrypts every new volume of the region, explicit `encrypted: false` included, so instances and
launch templates with unencrypted volumes pass there and fail elsewhere."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.policies.storage.block_storage_encrypted import POLICY
from gpufleet.policies.storage.block_storage_encrypted.aws import (
    AWS_ENCRYPTION_BY_DEFAULT,
    AWS_INSTANCE,
    AWS_LAUNCH_TEMPLATE,
)

from .helpers import provider, res, run_stack

INSTANCE_PROPS = {"instanceType": "g5.xlarge", "rootBlockDevice": {"encrypted": False, "volumeSize": 200}}
TEMPLATE_PROPS = {"blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {"encrypted": "false"}}]}


@pytest.mark.parametrize("default", [{"enabled": True}, {}])
def test_default_covers_instances_and_templates_of_its_region(default: dict[str, Any]) -> None:
    east = provider("aws", "us-east-1")
    resources = [
        res(AWS_ENCRYPTION_BY_DEFAULT, "ebd", default, prov=east),
        res(AWS_INSTANCE, "train", INSTANCE_PROPS, prov=east),
        res(AWS_LAUNCH_TEMPLATE, "tpl", TEMPLATE_PROPS, prov=east),
        res(AWS_LAUNCH_TEMPLATE, "bare", {"instanceType": "g5.xlarge"}, prov=east),
    ]
    assert run_stack(POLICY, resources) == []


def test_without_default_or_in_another_region_the_volumes_fail() -> None:
    east, west = provider("aws", "us-east-1"), provider("aws", "us-west-2", "west")
    instance = res(AWS_INSTANCE, "train", INSTANCE_PROPS, prov=west)
    template = res(AWS_LAUNCH_TEMPLATE, "tpl", TEMPLATE_PROPS, prov=west)
    expected = [
        (
            "EC2 instance 'train' has an unencrypted root volume (rootBlockDevice.encrypted); encrypt it or "
            "enable the account's default volume encryption",
            instance.urn,
        ),
        (
            "EC2 launch template 'tpl' has an unencrypted volume /dev/xvda (ebs.encrypted); encrypt it or "
            "enable the account's default volume encryption",
            template.urn,
        ),
    ]
    assert run_stack(POLICY, [instance, template]) == expected
    elsewhere = res(AWS_ENCRYPTION_BY_DEFAULT, "ebd", {"enabled": True}, prov=east)
    assert run_stack(POLICY, [elsewhere, instance, template]) == expected
    disabled = res(AWS_ENCRYPTION_BY_DEFAULT, "ebd", {"enabled": False}, prov=west)
    assert run_stack(POLICY, [disabled, instance, template]) == expected
