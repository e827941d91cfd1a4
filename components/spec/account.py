"""The account's once-only resources and first deploy (AWS), and a pool's pinned machine image."""

from __future__ import annotations

import re
from typing import Any, Literal, cast

from pydantic import Field, field_validator, model_validator

from gpufleet.components.clouds import Cloud, cloud_parts, part_values, profile
from gpufleet.components.spec.checks import _raise_first
from gpufleet.components.spec.values import _cross, _Model, _show

# ------------------------------------------------------------- account, first deploy and images (AWS)

_AMI_RE = re.compile(r"^ami-[0-9a-f]{8}([0-9a-f]{9})?$")
_SSM_PARAMETER_RE = re.compile(r"^/[A-Za-z0-9_.\-/]+:\d+$")
# The clouds whose pools name their image by ``id``, each with its id format and the example a message
# gives (``IMAGE_ID_FORMAT`` of ``spec/<cloud>.py``); the other clouds' pools name an AMI or an SSM
# parameter (AWS).
PARTS = cloud_parts("gpufleet.components.spec")
IMAGE_ID_FORMATS = cast(dict[str, tuple[re.Pattern[str], str]], part_values(PARTS, "IMAGE_ID_FORMAT"))
_ID_NAMES = [PARTS[cast(Cloud, cloud)].SHORT_NAME for cloud in IMAGE_ID_FORMATS]
_AMI_CLOUD = next(cloud for cloud in PARTS if cloud not in IMAGE_ID_FORMATS)
_AMI_NAME = profile(_AMI_CLOUD).name
_SSM_PARAMETER_EXAMPLE: str = PARTS[_AMI_CLOUD].SSM_PARAMETER_EXAMPLE


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


def _image_checks(ami: Any, parameter: Any, image_id: Any = None, arch: Any = None) -> list[tuple[str, str]]:
    if sum(v is not None for v in (ami, parameter, image_id)) != 1:
        return [
            (
                "image",
                "give exactly one of ami (an AMI id), ssm_parameter (a name with :version) or id (an "
                f"{' or '.join(_ID_NAMES)} image id)",
            )
        ]
    if arch is not None and image_id is None:
        said = f"arch goes with id (an {' or '.join(_ID_NAMES)} image); an AMI's is told by GF-FIT-003"
        return [("image", said)]
    return []


def image_cloud_checks(cloud: Any, ami: Any, parameter: Any, image_id: Any) -> list[tuple[str, str]]:
    """What a pool of ``cloud`` may name: AWS an AMI or SSM parameter, Alibaba and Tencent an ``id`` of
    that cloud's format (:data:`IMAGE_ID_FORMATS`)."""
    if cloud == _AMI_CLOUD and image_id is not None:
        said = f"is for {' and '.join(_ID_NAMES)} pools; an {_AMI_NAME} pool names ami or ssm_parameter"
        return [("image.id", said)]
    if cloud in IMAGE_ID_FORMATS:
        if ami is not None or parameter is not None:
            return [
                (
                    "image",
                    f"ami and ssm_parameter are {_AMI_NAME} images; {PARTS[cloud].POOL_OF} pool names its "
                    "image by id",
                )
            ]
        pattern, example = IMAGE_ID_FORMATS[cloud]
        if isinstance(image_id, str) and not pattern.match(image_id):
            return [("image.id", f"must be {example}, got {image_id!r}")]
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
    """The pool's machine image, pinned. AWS: an AMI id, or an SSM parameter name with its version
    (``/aws/service/...:42``), resolved by EC2 at each launch (``resolve:ssm:``). Alibaba and Tencent:
    the image ``id`` (checked against the pool's cloud by the pool), with its ``arch`` when the id does
    not name it."""

    ami: str | None = Field(default=None, description="an AMI id like ami-0123456789abcdef0")
    ssm_parameter: str | None = Field(default=None, description="a parameter name with :version")
    id: str | None = Field(
        default=None,
        description=(
            f"{' and '.join(_ID_NAMES)} pools: the image id "
            f"({'; '.join(PARTS[cast(Cloud, cloud)].IMAGE_ID_HINT for cloud in IMAGE_ID_FORMATS)})"
        ),
    )
    arch: Literal["x86_64", "arm64"] | None = Field(
        default=None,
        description=(
            "with id: the image's CPU architecture, tagged gpufleet:image-arch on the launch template or "
            "configuration for GF-FIT-003; none: read from the id when it names one (x64, arm64)"
        ),
    )

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
                f"must be an SSM parameter name with its version, like {_SSM_PARAMETER_EXAMPLE}, "
                f"got {value!r}"
            )
        return value

    @model_validator(mode="after")
    def _cross_fields(self) -> Image:
        found = _image_checks(self.ami, self.ssm_parameter, self.id, self.arch)
        if found:
            raise _cross(found[0][1])
        return self

    @property
    def named_arch(self) -> str | None:
        """The architecture of an ``id`` image: ``arch``, else what the id names (x64, arm64)."""
        if self.id is None:
            return None
        if self.arch is not None:
            return self.arch
        if re.search(r"arm64|aarch64", self.id):
            return "arm64"
        return "x86_64" if re.search(r"(^|_)x64(_|$)|x86_64", self.id) else None

    @property
    def image_id(self) -> str:
        """What a launch template's ``image_id`` takes."""
        if self.id is not None:
            return self.id
        return self.ami if self.ami is not None else f"resolve:ssm:{self.ssm_parameter}"
