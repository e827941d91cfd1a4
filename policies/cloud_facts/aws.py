"""AWS facts of the pack's shared helpers (see `gpufleet.policies.cloud_facts`).

GPU families: the accelerated-computing families with NVIDIA/AMD GPUs, `g*` (g3, g4dn, g4ad, g5, g5g,
g6, g6e, gr6, ...) and `p*` (p2, p3, p4d, p5, p6-b200, ...). Trainium, Inferentia and Gaudi (`trn*`,
`inf*`, `dl1`) are accelerators without GPUs and are not counted. AWS Batch compute environments take
bare family names (`g5`, `p4d`) in `instanceTypes`. An AWS provider's `defaultTags.tags` apply to every
taggable resource it creates except Auto Scaling groups.
"""

from __future__ import annotations

import re

GPU_FAMILY = re.compile(r"^(g\d|gr\d|p\d)[a-z0-9-]*\.", re.IGNORECASE)
BARE_GPU_FAMILY = re.compile(r"^(g\d|gr\d|p\d)[a-z0-9-]*$", re.IGNORECASE)

# The GPU class a family carries, for types the catalogue does not list (a GPU family missing here
# is still a GPU family, with its class unknown).
GPU_CLASSES: dict[str, str] = {
    "g4dn": "T4",
    "g4ad": "V520",
    "g5g": "T4G",
    "g5": "A10G",
    "g6e": "L40S",
    "g6f": "L4",
    "gr6": "L4",
    "g6": "L4",
    "gr6f": "L4",
    "p3dn": "V100",
    "p3": "V100",
    "p4de": "A100",
    "p4d": "A100",
    "p5en": "H200",
    "p5e": "H200",
    "p5": "H100",
    "p6": "B200",
    "p6-b300": "B300",
    "p6e": "GB200",
    "g7e": "RTX PRO 6000",
    "g3s": "M60",
    "g3": "M60",
    "p2": "K80",
}


def gpu_class(name: str) -> str | None:
    """The GPU class of the type `name` of a GPU family (`p6-b200` is generation p6, its GPU in the
    suffix)."""
    family = name.split(".", 1)[0].lower()
    return GPU_CLASSES.get(family) or GPU_CLASSES.get(family.split("-", 1)[0])


DEFAULT_TAGS_PROVIDER = "pulumi:providers:aws"
NO_DEFAULT_TAGS = frozenset({"aws:autoscaling/group:Group"})

EXAMPLE_TYPE = "aws:s3/bucket:Bucket"
