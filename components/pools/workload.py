"""What a pool's instances run once they boot: a shell snippet, or a container image.

The boot script (:mod:`components.pools.userdata`) starts the CloudWatch agent first, then the workload.
A container is pulled by Docker (or nerdctl) on the instance; an image in ECR is pulled after a login
with the instance role's credentials, which is what lets a pool with ``network.egress: endpoints``
(ECR API and registry endpoints, layers through the S3 gateway) run containers with no route out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from gpufleet.components.clouds import cloud_parts
from gpufleet.components.identity.documents import Statement
from gpufleet.components.spec_limits import (
    ENV_NAME_RE,
    IMAGE_EXAMPLES,
    IMAGE_RE,
    MAX_WORKLOAD_CHARS,
    container_size,
)

# EC2 takes at most 16 KB of user data before base64; the agent's part of the script takes about 2.
MAX_USER_DATA_BYTES = 16_384
MAX_SNIPPET_CHARS = MAX_WORKLOAD_CHARS
_FACTS = cloud_parts("gpufleet.components.pools.facts")


class PrivateImage(Protocol):
    """An image in a registry the instance logs in to with its own role (ECR:
    :class:`gpufleet.components.pools.aws_ecr.EcrImage`)."""

    def login_lines(self) -> list[str]: ...

    def statements(self) -> list[Statement]: ...


def private_image(image: str) -> PrivateImage | None:
    """The private registry ``image`` lives in, from the first cloud whose pool facts recognise it
    (``private_image`` in components/pools/facts/<cloud>.py), or None for a public image."""
    for part in _FACTS.values():
        found: PrivateImage | None = part.private_image(image) if hasattr(part, "private_image") else None
        if found is not None:
            return found
    return None


@dataclass(frozen=True, kw_only=True)
class ContainerWorkload:
    """``docker run`` (or ``nerdctl run``) of ``image`` with every GPU, restarted when it stops;
    ``command`` replaces the image's command; ``env`` is visible to anyone who can read the launch
    template: no secrets (read them from Secrets Manager or SSM in the container)."""

    image: str
    command: Sequence[str] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    # Replaces the image's ENTRYPOINT (``--entrypoint``); None: the image's own.
    entrypoint: str | None = None

    @property
    def private(self) -> PrivateImage | None:
        """The private registry the image lives in (ECR), or None."""
        return private_image(self.image)

    def problems(self) -> list[str]:
        found = []
        if not IMAGE_RE.match(self.image):
            found.append(
                f"container.image: {self.image[:100]!r} is not an image reference like {IMAGE_EXAMPLES}"
            )
        found.extend(
            f"container.env: {name[:100]!r} is not an environment variable name (letters, digits, '_')"
            for name in self.env
            if not ENV_NAME_RE.match(name)
        )
        words = (*((self.entrypoint,) if self.entrypoint else ()), *self.command)
        size = container_size(self.image, words, self.env)
        if size > MAX_WORKLOAD_CHARS:
            found.append(
                f"container: image, command and env take about {size} characters of user data; at most "
                f"{MAX_WORKLOAD_CHARS} fit in EC2's 16 KB beside the agent's setup"
            )
        return found

    def statements(self) -> list[Statement]:
        """What the instance role needs to pull the image: ECR login and this repository, nothing for
        other registries."""
        private = self.private
        return private.statements() if private is not None else []


@dataclass(frozen=True, kw_only=True)
class ScriptWorkload:
    """A shell snippet run by bash as root after the agent starts (in a file of its own, so its
    shell options and exit status are its own; the boot log records its status)."""

    user_data: str

    def problems(self) -> list[str]:
        if not self.user_data.strip():
            return ["user_data: the snippet is empty"]
        if len(self.user_data) > MAX_SNIPPET_CHARS:
            return [
                f"user_data: {len(self.user_data)} characters; at most {MAX_SNIPPET_CHARS} fit in EC2's "
                "16 KB of user data beside the agent's setup: fetch a longer script from S3 instead"
            ]
        if "\x00" in self.user_data:
            return ["user_data: contains a NUL character"]
        return []

    def statements(self) -> list[Statement]:
        return []


Workload = ContainerWorkload | ScriptWorkload
