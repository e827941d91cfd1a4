"""What launches an Auto Scaling group's instances, and which namespaces the CloudWatch agent writes.

A group launches from a launch template (`launchTemplate.id|name`, or
`mixedInstancesPolicy.launchTemplate.launchTemplateSpecification.launchTemplateId|Name`) or a launch
configuration (`launchConfiguration`), joined by property dependency or literal id/name.

The agent writes to `CWAgent` unless its config's `metrics` section sets `"namespace"`. Configs are
found in launch-template and launch-configuration user data (base64 or plain) and instance user data,
and in SSM parameters (`aws:ssm/parameter:Parameter` `value`, as `amazon-cloudwatch-agent-ctl -c ssm:`
reads them): any text with `metrics_collected` is read as an agent config.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping

from gpufleet.policies.cost.pools import ResourceIndex, ResourceView
from gpufleet.policies.cost.pools.tokens.aws import (
    AWS_INSTANCE,
    AWS_LAUNCH_CONFIGURATION,
    AWS_LAUNCH_TEMPLATE,
)
from gpufleet.policies.ops._common import known_str
from gpufleet.policies.props import get_ref

AGENT_DEFAULT_NAMESPACE = "CWAgent"
SSM_PARAMETER = "aws:ssm/parameter:Parameter"
_NAMESPACE = re.compile(r'"namespace"\s*:\s*"([^"]+)"')


def group_templates(index: ResourceIndex, group: ResourceView) -> list[ResourceView]:
    found = {t.urn: t for t in index.refs(group, "launchTemplate", (AWS_LAUNCH_TEMPLATE,))}
    spec = get_ref(group.props, "mixedInstancesPolicy.launchTemplate.launchTemplateSpecification")
    for prop in ("launchTemplateId", "launchTemplateName"):
        value = get_ref(spec, prop) if isinstance(spec, Mapping) else None
        for template in index.refs(group, "mixedInstancesPolicy", (AWS_LAUNCH_TEMPLATE,), value=value):
            found[template.urn] = template
    for prop in ("id", "name"):
        value = get_ref(group.props, f"launchTemplate.{prop}")
        for template in index.refs(group, "launchTemplate", (AWS_LAUNCH_TEMPLATE,), value=value):
            found[template.urn] = template
    return list(found.values())


def group_sources(
    index: ResourceIndex, groups: list[ResourceView]
) -> list[tuple[ResourceView, ResourceView | None]]:
    """(launch source, its group) for every launch template or configuration the groups use."""
    out: list[tuple[ResourceView, ResourceView | None]] = []
    for group in groups:
        sources = group_templates(index, group)
        sources += index.refs(group, "launchConfiguration", (AWS_LAUNCH_CONFIGURATION,))
        out.extend((source, group) for source in sources)
    return out


def _decoded(text: str) -> str:
    try:
        return base64.b64decode(text, validate=True).decode("utf-8", errors="replace")
    except (binascii.Error, ValueError):
        return text


def agent_namespaces(index: ResourceIndex) -> set[str]:
    found = {AGENT_DEFAULT_NAMESPACE}
    texts: list[str] = []
    for source in index.of_type(AWS_LAUNCH_TEMPLATE, AWS_LAUNCH_CONFIGURATION, AWS_INSTANCE):
        for prop in ("userData", "userDataBase64"):
            text = known_str(get_ref(source.props, prop))
            if text:
                texts.append(_decoded(text))
    for parameter in index.of_type(SSM_PARAMETER):
        text = known_str(get_ref(parameter.props, "value"))
        if text:
            texts.append(text)
    for text in texts:
        if "metrics_collected" in text:
            found.update(_NAMESPACE.findall(text))
    return found
