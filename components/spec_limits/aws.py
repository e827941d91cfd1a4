"""AWS's limits the fleet spec checks: the fleet's shared resources (key, bucket, trail, log groups,
network, budget) are AWS resources, so these apply to every spec (``gpufleet.components.spec_limits``)."""

from __future__ import annotations

# The retention periods a CloudWatch Logs group takes (PutRetentionPolicy), in days.
LOG_RETENTION_DAYS: tuple[int, ...] = (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731)
LOG_RETENTION_DAYS += (1096, 1827, 2192, 2557, 2922, 3288, 3653)
# Tag limits (Tagging AWS resources): key and value length, tags a resource.
TAG_KEY_MAX, TAG_VALUE_MAX, TAGS_PER_RESOURCE = 128, 256, 50
# The prefix of the tag keys AWS reserves for itself (refused at deploy).
RESERVED_TAG_PREFIX = "aws:"


def image_route_problem(image: str, egress: str, region: str | None = None) -> str | None:
    """Why a private subnet of the fleet's network (``egress`` none or endpoints) cannot pull ``image``:
    ``endpoints`` builds the ecr.api and ecr.dkr endpoints (and S3's gateway, where the layers are),
    ``none`` builds none. An ECR image of another region is judged by the spec's own check
    (components/spec/aws.py), which knows the home region."""
    from gpufleet.components.spec_limits import ECR_IMAGE_RE

    in_ecr = ECR_IMAGE_RE.match(image) is not None
    if egress == "none" and in_ecr:
        return (
            "is in ECR, but network.egress none builds no ecr.api or ecr.dkr endpoint to pull it "
            "through: set network.egress: endpoints (or nat)"
        )
    if not in_ecr:
        return (
            f"is not in ECR, and network.egress {egress} gives the private subnets no route to "
            "another registry: set network.egress: nat, or push the image to ECR in the pool's "
            "region and use endpoints"
        )
    return None


def foreign_pull_problem(image: str, pool_cloud: str, registry: str) -> str | None:
    """Why a pool on another cloud (``pool_cloud``, its display name) cannot pull ``image``: a private
    ECR repository takes `docker login` with a token from ECR's GetAuthorizationToken, which only AWS
    credentials get, and the instance there runs under that cloud's own role."""
    from gpufleet.components.spec_limits import ECR_IMAGE_RE

    if ECR_IMAGE_RE.match(image) is None:
        return None
    return (
        "is in a private ECR repository, which only AWS credentials can pull (docker login with ECR's "
        f"GetAuthorizationToken), and an instance on {pool_cloud} has none: push the image to {registry}, "
        "or use a public image (public.ecr.aws, Docker Hub)"
    )
