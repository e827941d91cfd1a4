"""AlicloudKey: a rotating KMS key, or a BYOK key of origin EXTERNAL, with its alias."""

from __future__ import annotations

import pytest

from gpufleet.components.keys.alicloud import MATERIAL_TAG, AlicloudKey, AlicloudKeyArgs
from tests.components.alicloud_builders import TAGS
from tests.components.conftest import Runner


def test_sse_kms_key_rotates_yearly(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: AlicloudKey("fk", AlicloudKeyArgs(encryption="sse-kms", tags=TAGS)))
    key = mocks.one("alicloud:kms/key:Key", "fk-key").inputs
    assert key["origin"] == "Aliyun_KMS"
    assert key["automaticRotation"] == "Enabled"
    assert key["rotationInterval"] == "365d"
    assert key["pendingWindowInDays"] == 30
    assert key["keyUsage"] == "ENCRYPT/DECRYPT"
    assert key["tags"] == TAGS
    alias = mocks.one("alicloud:kms/alias:Alias", "fk-alias").inputs
    assert alias == {"aliasName": "alias/fk", "keyId": "fk-key-id"}
    assert mocks.names_by_type() == [
        ("alicloud:kms/alias:Alias", "fk-alias"),
        ("alicloud:kms/key:Key", "fk-key"),
        ("gpufleet:keys:AlicloudKey", "fk"),
    ]


def test_byok_key_is_external_and_not_rotated(run_pulumi: Runner) -> None:
    mocks = run_pulumi(lambda: AlicloudKey("bk", AlicloudKeyArgs(encryption="byok", tags=TAGS)))
    key = mocks.one("alicloud:kms/key:Key", "bk-key").inputs
    assert key["origin"] == "EXTERNAL"
    assert "automaticRotation" not in key
    assert "rotationInterval" not in key
    assert MATERIAL_TAG not in key["tags"]


def test_imported_material_is_said_with_the_tag(run_pulumi: Runner) -> None:
    args = AlicloudKeyArgs(encryption="byok", tags=TAGS, material_imported=True)
    mocks = run_pulumi(lambda: AlicloudKey("bk", args))
    assert mocks.one("alicloud:kms/key:Key", "bk-key").inputs["tags"] == {**TAGS, MATERIAL_TAG: "imported"}


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"tags": {"project": "vision"}}, "missing cost tag 'team'"),
        ({"material_imported": True}, "material_imported: applies to byok keys only"),
        ({"pending_window_days": 3}, "pending_window_days: 3 is outside 7..366"),
    ],
)
def test_bad_arguments_are_refused(changes: dict[str, object], words: str) -> None:
    values: dict[str, object] = {"encryption": "sse-kms", "tags": TAGS, **changes}
    with pytest.raises(ValueError, match=words):
        AlicloudKeyArgs(**values)  # type: ignore[arg-type]
