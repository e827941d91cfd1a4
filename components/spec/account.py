"""The account's once-only resources and first deploy (AWS), and a pool's pinned machine image."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from gpufleet.components.spec.checks import _raise_first
from gpufleet.components.spec.values import _cross, _Model, _show

# ------------------------------------------------------------- account, first deploy and images (AWS)

_AMI_RE = re.compile(r"^ami-[0-9a-f]{8}([0-9a-f]{9})?$")
_SSM_PARAMETER_RE = re.compile(r"^/[A-Za-z0-9_.\-/]+:\d+$")


def _byok_material_checks(encryption: Any, material: Any) -> list[tuple[str, str]]:
    if material is not None and encryption != "byok":
        return [("byok_material", f"applies to encryption byok only; leave it out with {_show(encryption)}")]
    return []


def _account_checks(baseline: Any, roles: Any) -> list[tuple[str, str]]:
    if baseline == "separate" and roles == "create":
        return [
            (
                "service_linked_roles",
                "must be left out (or existing) with baseline separate: the account-baseline stack creates "
                "them, and a second create fails",
            )
        ]
    return []


def _image_checks(ami: Any, parameter: Any) -> list[tuple[str, str]]:
    if (ami is None) == (parameter is None):
        return [("image", "give exactly one of ami (an AMI id) or ssm_parameter (a name with :version)")]
    return []


class Account(_Model):
    """Where the account's once-only resources live (AWS): ``in-stack`` (this fleet creates them:
    single-stack accounts) or ``separate`` (the account-baseline stack does; see docs/first-deploy.md)."""

    baseline: Literal["in-stack", "separate"] = "in-stack"
    service_linked_roles: Literal["create", "existing"] | None = Field(
        default=None,
        description=(
            "the Auto Scaling service-linked role: create (in-stack default) or existing (the account "
            "already has it); with baseline separate the account-baseline stack owns it"
        ),
    )

    @model_validator(mode="after")
    def _cross_fields(self) -> Account:
        _raise_first(_account_checks(self.baseline, self.service_linked_roles))
        return self

    @property
    def creates_service_linked_roles(self) -> bool:
        return self.baseline == "in-stack" and self.service_linked_roles != "existing"


class Image(_Model):
    """The pool's machine image, pinned: an AMI id, or an SSM parameter name with its version
    (``/aws/service/...:42``), resolved by EC2 at each launch (``resolve:ssm:``)."""

    ami: str | None = Field(default=None, description="an AMI id like ami-0123456789abcdef0")
    ssm_parameter: str | None = Field(default=None, description="a parameter name with :version")

    @field_validator("ami")
    @classmethod
    def _ami_id(cls, value: str | None) -> str | None:
        if value is not None and not _AMI_RE.match(value):
            raise ValueError(f"must be an AMI id like ami-0123456789abcdef0, got {value!r}")
        return value

    @field_validator("ssm_parameter")
    @classmethod
    def _pinned(cls, value: str | None) -> str | None:
        if value is not None and not _SSM_PARAMETER_RE.match(value):
            raise ValueError(
                "must be an SSM parameter name with its version, like /aws/service/deeplearning/ami/"
                f"x86_64/base-oss-nvidia-driver-gpu-amazon-linux-2023/latest/ami-id:42, got {value!r}"
            )
        return value

    @model_validator(mode="after")
    def _cross_fields(self) -> Image:
        if _image_checks(self.ami, self.ssm_parameter):
            raise _cross(_image_checks(self.ami, self.ssm_parameter)[0][1])
        return self

    @property
    def image_id(self) -> str:
        """What a launch template's ``image_id`` takes."""
        return self.ami if self.ami is not None else f"resolve:ssm:{self.ssm_parameter}"
