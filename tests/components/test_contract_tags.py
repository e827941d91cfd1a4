"""Contract: every child whose SDK class takes ``tags`` carries every cost tag."""

from __future__ import annotations

import importlib
import inspect

from .builders import TAGS, build_everything
from .conftest import Registration, Runner


def _sdk_class(token: str) -> type:
    package, module_path, class_name = token.split(":")
    module = importlib.import_module(f"pulumi_{package}.{module_path.split('/')[0]}")
    return getattr(module, class_name)  # type: ignore[no-any-return]


def _taggable(token: str) -> bool:
    init = getattr(_sdk_class(token), "_internal_init")  # noqa: B009  (the SDK's full keyword list)
    return "tags" in inspect.signature(init).parameters


def _tag_map(registration: Registration) -> dict[str, str]:
    tags = registration.inputs.get("tags") or {}
    if isinstance(tags, list):  # Auto Scaling groups take a list of {key, value, propagateAtLaunch}
        assert all(t["propagateAtLaunch"] is True for t in tags), registration.name
        return {t["key"]: t["value"] for t in tags}
    return dict(tags)


def test_every_taggable_child_carries_the_cost_tags(run_pulumi: Runner) -> None:
    mocks = run_pulumi(build_everything)
    taggable = [r for r in mocks.custom() if _taggable(r.type)]
    untaggable = {r.type for r in mocks.custom()} - {r.type for r in taggable}
    # Guard the guard: the classification must actually split the children both ways.
    assert "aws:s3/bucket:Bucket" in {r.type for r in taggable}
    assert "aws:autoscaling/group:Group" in {r.type for r in taggable}
    assert "aws:s3/bucketPolicy:BucketPolicy" in untaggable
    missing = {
        f"{r.type} {r.name}": sorted(set(TAGS.items()) - set(_tag_map(r).items()))
        for r in taggable
        if not set(TAGS.items()) <= set(_tag_map(r).items())
    }
    assert missing == {}


def test_no_key_pairs_or_public_addresses_anywhere(run_pulumi: Runner) -> None:
    mocks = run_pulumi(build_everything)
    assert mocks.of_type("aws:ec2/keyPair:KeyPair") == []
    assert mocks.of_type("aws:ec2/eip:Eip") == []
    assert mocks.of_type("aws:ec2/internetGateway:InternetGateway") == []
    assert all("keyName" not in r.inputs for r in mocks.custom())
