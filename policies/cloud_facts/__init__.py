"""Each cloud's facts that the pack's shared helpers read: GPU family prefixes and the GPU class of each
family (`gpufleet.policies.gpu`), provider default tags (`gpufleet.policies.context`) and the example
type token of waiver messages (`gpufleet.policies.waivers`).

A cloud's facts live in the module named after its key (`aws.py`, `alicloud.py`, `tencentcloud.py`);
the shared helpers read them through :data:`PARTS` and :func:`facts_of`, so adding a cloud adds a module
here. Names a cloud's module may define:

- ``GPU_FAMILY``: pattern matching the cloud's GPU instance types by family prefix;
- ``gpu_class(name)``: the GPU class of a type of a GPU family, None when the family is not listed;
- ``BARE_GPU_FAMILY``: pattern matching a bare GPU family name some resources take for a type (`g5`);
- ``DEFAULT_TAGS_PROVIDER``: the type token prefix of a provider whose ``defaultTags.tags`` land on the
  resources it creates, and ``NO_DEFAULT_TAGS``: the resource types it never gives them to;
- ``EXAMPLE_TYPE``: a type token used as an example in messages.
"""

from __future__ import annotations

from types import ModuleType

from gpufleet.components.clouds import as_cloud, cloud_parts

PARTS = cloud_parts(__name__)


def facts_of(cloud: str) -> ModuleType | None:
    """The facts module of the cloud ``cloud``, None for a key no cloud has (kubernetes, random)."""
    key = as_cloud(cloud)
    return PARTS.get(key) if key is not None else None
