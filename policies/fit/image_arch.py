"""GF-FIT-003: a GPU pool boots an image of its instance types' CPU architecture.

The image's architecture is read from the stack's image table (`gpufleet:images`: image ids that say
nothing offline, an AMI id or a Tencent Cloud `img-...` id, mapped to their architecture, inline or from
the cloud CLI's describe-images JSON; the rule's `images` config, where the offline engine also puts what
the program's image lookups asked for: `ec2.getAmi` with an architecture filter or name,
`ssm.getParameter` of an AMI path, Alibaba Cloud `ecs.getImages`, Tencent Cloud images lookups), else from
what names it: an SSM parameter path or image name (`resolve:ssm:/aws/service/deeplearning/ami/arm64/...`,
an Alibaba Cloud image id such as `ubuntu_22_04_arm64_20G_alibase_...`), an EKS node group's `amiType`
(`AL2023_ARM_64_NVIDIA`), an AMI the stack itself builds, or the `gpufleet:image-arch` tag gpufleet's
launch templates and configurations carry (the Deep Learning AMI and Alibaba Cloud Linux 3 images they
look up are x86_64; a pool naming an Alibaba or Tencent image by id tags the `arch` the spec gives),
unless the image's name says otherwise. The types' architecture is the catalogue's (`arch`: arm64 for
g5g), else AWS Graviton families (a `g` after the generation digit); every Alibaba Cloud and Tencent Cloud
GPU family is x86_64. An image whose architecture cannot be told (a bare id not in the table) is not
judged. An image of the other architecture never boots: the cloud refuses the launch (EC2
`InvalidParameterValue`), in every environment.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.policies.cost._common import describe, stack_pools
from gpufleet.policies.cost.pools import Pool
from gpufleet.policies.cost.pools.tokens import POOL_TYPES
from gpufleet.policies.fit._facts import entries, fragments, image_arches, parts, rule_url, type_arch
from gpufleet.policies.gpu import current_catalog
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges

# Each cloud module's example of an image of the other architecture (`ARCH_IMAGE_HINT`).
_HINTS = "; ".join(fragments("ARCH_IMAGE_HINT").values())

RULE = Rule(
    id="GF-FIT-003",
    name="image-architecture-matches-type",
    description=(
        "A GPU pool's image is built for its instance types' CPU architecture (arm64 for g5g, x86_64 for "
        "the rest)."
    ),
    clouds=tuple(parts()),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        f"Boot the pool from an image of its types' architecture ({_HINTS}), "
        "or choose types of the image's architecture; in a gpufleet stack set `pools.<name>.image`."
    ),
    url=rule_url("GF-FIT-003"),
    config={
        "images": {
            "type": "object",
            "default": {},
            "description": (
                'image id -> architecture (x86_64 or arm64), e.g. {"ami-0123456789abcdef0": "arm64"}'
            ),
        }
    },
)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    table = dict(RULE.settings(args)["images"] or {})
    pools, index = stack_pools(args)
    catalog = current_catalog()
    for pool in pools:

        def check(pool: Pool = pool) -> None:
            arches: dict[str, list[str]] = {}
            for name, entry in entries(pool, catalog):
                arches.setdefault(type_arch(pool.cloud, name, entry), []).append(name)
            for arch, told_by, source in image_arches(pool, index, table):
                wrong = [name for type_arch_, names in arches.items() if type_arch_ != arch for name in names]
                if wrong:
                    other = next(a for a, names in arches.items() if wrong[0] in names)
                    report(
                        f"{describe(pool)} boots a {arch} image ({told_by} on '{source}') on "
                        f"{', '.join(wrong)}, which {'is' if len(wrong) == 1 else 'are'} "
                        f"{other}: "
                        "the launch is refused",
                        pool.urn,
                    )
                    return

        judge(pool.urn, check)


POLICY = GfStackPolicy(RULE, validate, judges(POOL_TYPES))
