"""A stack policy's violation finds its resource's tags by a URN index (`policies/rule.py`): the first
resource of a URN, as the scan it replaced, and a list that changed is indexed again."""

from __future__ import annotations

from types import SimpleNamespace

from gpufleet.policies import rule


def _resource(urn: str, team: str) -> SimpleNamespace:
    return SimpleNamespace(
        urn=urn, resource_type="aws:s3/bucket:Bucket", props={"tags": {"team": team}}, provider=None
    )


def test_the_first_resource_of_a_urn_is_the_one_found() -> None:
    resources = [_resource("urn:a", "first"), _resource("urn:b", "b"), _resource("urn:a", "second")]
    tags, provider_keys = rule._tags_at(SimpleNamespace(resources=resources), "urn:a")
    assert tags["team"] == "first"
    assert provider_keys == frozenset()
    assert rule._tags_at(SimpleNamespace(resources=resources), "urn:missing") == ({}, frozenset())


def test_a_list_that_grew_is_indexed_again() -> None:
    resources = [_resource("urn:a", "a")]
    args = SimpleNamespace(resources=resources)
    assert rule._tags_at(args, "urn:c") == ({}, frozenset())
    resources.append(_resource("urn:c", "c"))
    assert rule._tags_at(args, "urn:c")[0]["team"] == "c"
    # Another stack's list is its own index.
    other = [_resource("urn:a", "other")]
    assert rule._tags_at(SimpleNamespace(resources=other), "urn:a")[0]["team"] == "other"
    assert rule._tags_at(args, "urn:a")[0]["team"] == "a"
