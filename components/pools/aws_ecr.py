"""A workload image in Amazon ECR (:mod:`gpufleet.components.pools.workload`): the registry to log in
to at boot (with the instance role's credentials, which is what lets a pool with ``network.egress:
endpoints`` pull through the ECR API and registry endpoints, layers through the S3 gateway) and what
the instance role needs to pull it. Found for a pool's image through the AWS pool facts'
``private_image`` (:mod:`gpufleet.components.pools.facts.aws`)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from gpufleet.components.identity.documents import Statement
from gpufleet.components.spec_limits import ECR_IMAGE_RE

ECR_PULL_ACTIONS = ("ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer", "ecr:BatchCheckLayerAvailability")


@dataclass(frozen=True)
class EcrImage:
    account: str
    region: str
    repository: str
    partition: str

    @property
    def registry(self) -> str:
        suffix = ".amazonaws.com.cn" if self.partition == "aws-cn" else ".amazonaws.com"
        return f"{self.account}.dkr.ecr.{self.region}{suffix}"

    @property
    def repository_arn(self) -> str:
        return f"arn:{self.partition}:ecr:{self.region}:{self.account}:repository/{self.repository}"

    def login_lines(self) -> list[str]:
        """Boot-script lines (inside the container runtime's block) that log ``$runtime`` in to the
        registry with the instance role's credentials, saying so in the log when they cannot."""
        registry = shlex.quote(self.registry)
        return [
            f"  aws ecr get-login-password --region {self.region} \\",
            f'    | "$runtime" login --username AWS --password-stdin {registry} \\',
            f'    || log "could not log in to {self.registry}: the image cannot be pulled"',
        ]

    def statements(self) -> list[Statement]:
        """What the instance role needs to pull the image: ECR login and this repository."""
        return [
            # GetAuthorizationToken names no repository: AWS accepts only "*" for it.
            Statement(sid="LogInToEcr", actions=("ecr:GetAuthorizationToken",), resources=["*"]),
            Statement(sid="PullWorkloadImage", actions=ECR_PULL_ACTIONS, resources=[self.repository_arn]),
        ]


def ecr_image(image: str) -> EcrImage | None:
    """The ECR repository ``image`` lives in, or None for an image of another registry."""
    match = ECR_IMAGE_RE.match(image)
    if match is None:
        return None
    partition = "aws-cn" if match.group("china") else "aws"
    return EcrImage(match.group("account"), match.group("region"), match.group("repository"), partition)


__all__ = ["ECR_PULL_ACTIONS", "EcrImage", "ecr_image"]
