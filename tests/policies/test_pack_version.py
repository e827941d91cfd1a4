"""The pack's declared version is the package's: PulumiPolicy.yaml (what the Pulumi CLI reports) and
pyproject.toml agree. The "gpufleet@v0.0.1" inside "can't run policy" messages is not the pack's
version: pulumi_policy's servicer always reports 0.0.1 over gRPC (policy.py: 'We always return "0.0.1"
from here which will only be used if there isn't a version in PulumiPolicy.yaml'), and the offline
engine quotes the message as the servicer writes it (gpufleet.evaluate.SERVED_PACK_VERSION)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import yaml

from gpufleet.evaluate import SERVED_PACK_VERSION

ROOT = Path(__file__).resolve().parents[2]


def test_the_declared_pack_version_is_the_package_version() -> None:
    pack = yaml.safe_load((ROOT / "policies" / "PulumiPolicy.yaml").read_text(encoding="utf-8"))
    package = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert str(pack["version"]) == package == "0.1.0"


def test_messages_quote_the_servicers_fixed_version() -> None:
    import inspect

    import pulumi_policy.policy

    assert 'version = "0.0.1"' in inspect.getsource(pulumi_policy.policy)
    assert SERVED_PACK_VERSION == "0.0.1"
