"""The credentials a cloud's quota read takes from the environment: all set, or one error naming them."""

from __future__ import annotations

import pytest

from gpufleet.preflight.clients import NoCredentials, _credentials

NAMES = ("TENCENTCLOUD_SECRET_ID", "TENCENTCLOUD_SECRET_KEY")


def test_both_set_are_returned_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TENCENTCLOUD_SECRET_ID", "AKIDexample")
    monkeypatch.setenv("TENCENTCLOUD_SECRET_KEY", "secret")
    assert _credentials("tencentcloud", *NAMES) == ["AKIDexample", "secret"]


@pytest.mark.parametrize("unset", [(), ("TENCENTCLOUD_SECRET_KEY",), NAMES])
def test_a_missing_or_empty_one_names_them_all(
    monkeypatch: pytest.MonkeyPatch, unset: tuple[str, ...]
) -> None:
    monkeypatch.setenv("TENCENTCLOUD_SECRET_ID", "AKIDexample")
    monkeypatch.setenv("TENCENTCLOUD_SECRET_KEY", "")
    for name in unset:
        monkeypatch.delenv(name)
    with pytest.raises(NoCredentials) as caught:
        _credentials("tencentcloud", *NAMES)
    assert str(caught.value) == (
        "reading tencentcloud quotas needs TENCENTCLOUD_SECRET_ID and TENCENTCLOUD_SECRET_KEY: "
        "install it and set the credentials, or run `gpufleet preflight --offline` with the quotas "
        "declared in gpufleet:quotas"
    )
