"""Regenerate the data files of `gpufleet.policies.cost.taggable` from the installed provider SDKs.

Run `python -m gpufleet.policies.cost.taggable.generate` after a provider upgrade. A resource type is listed
when its SDK `<Class>Args` takes a `tags` input and it carries cost of its own; the type token is the
class's `@pulumi.type_token(...)` (or the token passed to `super().__init__`). `NO_COST` names the
tag-taking types that do not (each cloud's type-token prefixes, in `taggable/<cloud>.py`): objects
inside a bucket (the bucket's storage is billed to the bucket) and identity entities (IAM, RAM and
CAM roles, policies, users, groups, instance profiles, certificates and identity providers), which no
bill itemises.
"""

from __future__ import annotations

import re
from importlib.util import find_spec
from pathlib import Path

from gpufleet.components.clouds import SDK_PACKAGES as _PACKAGES
from gpufleet.components.clouds import cloud_parts, part_values

_TOKEN = re.compile(r'@pulumi\.type_token\("([^"]+)"\)\s*\nclass (\w+)\(pulumi\.CustomResource\)')
_ARGS = re.compile(r"\nclass (\w+)Args:\n(.*?)\n    def __init__\(__self__, \*,(.*?)\):", re.S)
# Each cloud's `NO_COST` prefixes (`taggable/<cloud>.py`), in the registry's order.
_NO_COST_PREFIXES = part_values(cloud_parts("gpufleet.policies.cost.taggable"), "NO_COST")
NO_COST = re.compile("^(" + "|".join(p for prefixes in _NO_COST_PREFIXES.values() for p in prefixes) + ")")


def taggable_tokens(package: str) -> list[str]:
    spec = find_spec(package)
    if spec is None or spec.origin is None:
        raise RuntimeError(f"{package} is not installed")
    root = Path(spec.origin).parent
    tokens: set[str] = set()
    for path in root.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "pulumi.CustomResource" not in text:
            continue
        args_with_tags = {
            name for name, _, params in _ARGS.findall(text) if re.search(r"\n\s+tags: ", params)
        }
        for token, cls in _TOKEN.findall(text):
            if cls in args_with_tags and not NO_COST.match(token):
                tokens.add(token)
    return sorted(tokens)


def render() -> dict[str, str]:
    """Each cloud's data file: its taggable type tokens, sorted, one a line."""
    return {
        cloud: "".join(f"{token}\n" for token in taggable_tokens(package))
        for cloud, package in _PACKAGES.items()
    }


if __name__ == "__main__":
    from gpufleet.policies.cost.taggable import data_file

    for cloud, text in render().items():
        target = data_file(cloud)
        target.write_text(text, encoding="utf-8")
        print(f"wrote {target}")
