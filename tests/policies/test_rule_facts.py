"""A rule whose cloud modules give a one-per-rule fact (its URL) zero or several times fails at import with
an error naming the attribute and the modules, so the file to fix is in the message."""

from __future__ import annotations

from types import ModuleType

import pytest

from gpufleet.policies.rule_facts import rule_url, sole


def _module(name: str, **attributes: object) -> ModuleType:
    module = ModuleType(name)
    for key, value in attributes.items():
        setattr(module, key, value)
    return module


AWS = _module("gpufleet.policies.demo.aws", URL="https://a", URLS={"GF-X-001": "https://a"})
ALI = _module("gpufleet.policies.demo.alicloud", URL="https://l", URLS={"GF-X-001": "https://l"})
TC = _module("gpufleet.policies.demo.tencentcloud")


def test_sole_gives_the_one_value() -> None:
    assert sole({"aws": AWS, "tencentcloud": TC}, "URL") == "https://a"


def test_sole_names_the_modules_that_define_it_twice() -> None:
    with pytest.raises(ValueError) as error:
        sole({"aws": AWS, "alicloud": ALI, "tencentcloud": TC}, "URL")
    message = str(error.value)
    assert message.startswith("URL must be defined by exactly one of gpufleet.policies.demo.aws, ")
    assert message.endswith("defined by gpufleet.policies.demo.aws, gpufleet.policies.demo.alicloud")


def test_sole_says_none_defines_it() -> None:
    with pytest.raises(ValueError, match=r"one of gpufleet\.policies\.demo\.tencentcloud; defined by none$"):
        sole({"tencentcloud": TC}, "URL")


def test_rule_url_names_the_modules_that_give_it() -> None:
    assert rule_url({"aws": AWS, "tencentcloud": TC}, "GF-X-001") == "https://a"
    with pytest.raises(
        ValueError, match=r"^GF-X-001: .* must give its URL in URLS; given by .*demo\.aws, .*demo\.alicloud$"
    ):
        rule_url({"aws": AWS, "alicloud": ALI}, "GF-X-001")
    with pytest.raises(ValueError, match=r"given by none$"):
        rule_url({"tencentcloud": TC}, "GF-X-001")
