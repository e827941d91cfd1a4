"""GF-ACC-001's shared core: an ingress permission as an `Entry`, the reading of protocols, port
ranges and sources every cloud writes, and which of SSH and RDP an entry opens to which sources."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, UnknownValueError

from gpufleet.policies.props import as_int, get_ref, is_unknown

_PREFIX_KEYS = ("prefixListIds", "prefixListId")

_SSH = 22
_RDP = 3389
_ALL = "all"


Ports = list[tuple[int, int]] | None  # None: every port


@dataclass(frozen=True)
class Entry:
    """One ingress permission: protocol (normalised), port span, sources, where it sits."""

    protocol: Any  # "tcp" | "udp" | "all" | other | unknown sentinel
    ports: Ports
    sources: list[Any]  # CIDRs (str) or non-CIDR sources (security groups, prefix lists)
    cidr_sources: frozenset[int]  # indices in `sources` that are CIDR ranges
    where: str
    path: str = ""
    # Set when a service template holds the protocols and ports: (protocol, ports) pairs, read only
    # once the sources offend; raises UnknownValueError when they cannot be known.
    service: Callable[[], list[tuple[Any, Ports]]] | None = None
    # Indices in `sources` of prefix-list references, and where a source came from (" (prefix list 'x')").
    prefix_lists: frozenset[int] = frozenset()
    origins: Mapping[int, str] = field(default_factory=dict)


class TemplateOutsideStack(UnknownValueError):
    """A template the stack does not manage decides the answer: like a value unknown at preview, the
    rule cannot be judged, and must neither pass nor fail."""

    def __init__(self, what: str, path: str) -> None:
        super().__init__(UNKNOWN_STRING_VALUE, [path])
        self.message = what


@dataclass(frozen=True)
class TemplateKinds:
    """The template resources of a cloud whose rules name service and address templates instead of
    writing ports and sources (Tencent Cloud): their type tokens, and the resource to manage in the
    stack (as the SDK spells it) so the service template's ports can be read."""

    protocol: str
    protocol_group: str
    address: str
    address_extra: str
    address_group: str
    protocol_resource: str


def _protocol(value: Any) -> Any:
    if value is None:
        return _ALL
    if is_unknown(value):
        return value
    text = str(value).strip().lower()
    return {"-1": _ALL, "all": _ALL, "6": "tcp", "17": "udp"}.get(text, text)


def _field(entry: Entry, name: str) -> list[str]:
    return [f"{entry.path}.{name}" if entry.path else name]


def _ports_covered(entry: Entry) -> list[str]:
    """Which of SSH/RDP the entry opens ("SSH (TCP 22)", "RDP (3389)")."""
    if is_unknown(entry.protocol):
        raise UnknownValueError(entry.protocol, _field(entry, "protocol"))
    protocol = entry.protocol
    opened: list[str] = []
    for port, label, protocols in ((_SSH, "SSH (TCP 22)", ("tcp",)), (_RDP, "RDP (3389)", ("tcp", "udp"))):
        if protocol != _ALL and protocol not in protocols:
            continue
        if entry.ports is None or any(low <= port <= high for low, high in entry.ports):
            opened.append(label)
    return opened


def _is_anywhere(cidr: str) -> bool:
    try:
        return ipaddress.ip_network(cidr.strip(), strict=False).prefixlen == 0
    except ValueError:
        return False


def _offending_sources(entry: Entry, strict: bool) -> list[str]:
    found: list[str] = []
    for index, source in enumerate(entry.sources):
        is_cidr = index in entry.cidr_sources
        if is_unknown(source):
            if strict:
                found.append("a source unknown at preview")
                continue
            if is_cidr:
                raise UnknownValueError(source, _field(entry, "cidr"))
            continue
        text = str(source)
        if strict or (is_cidr and _is_anywhere(text)):
            found.append(f"{text}{entry.origins.get(index, '')}")
    return found


def _span(low: Any, high: Any, path: str) -> list[tuple[int, int]] | None:
    for value, name in ((low, "fromPort"), (high, "toPort")):
        if is_unknown(value):
            raise UnknownValueError(value, [path, name])
    start, end = as_int(low), as_int(high)
    if start is None and end is None:
        return None
    start = end if start is None else start
    end = start if end is None else end
    assert start is not None and end is not None
    if start < 0 or end < 0:  # -1/-1 and 0/0 with protocol all: every port
        return None
    return [(min(start, end), max(start, end))]


def _range_text(text: Any, path: str, separators: str) -> list[tuple[int, int]] | None:
    """Ports written as text: "22", "20-25", "22,3389", "ALL", "22/22", "-1/-1", "1/65535"."""
    if text is None or text == "":
        return None
    if is_unknown(text):
        raise UnknownValueError(text, [path])
    raw = str(text).strip().lower()
    if raw in ("all", "-1/-1", "-1"):
        return None
    spans: list[tuple[int, int]] = []
    for part in raw.split(","):
        piece = part.strip()
        for separator in separators:
            if separator in piece[1:]:
                low_text, _, high_text = piece.partition(separator)
                break
        else:
            low_text = high_text = piece
        try:
            low, high = int(low_text), int(high_text)
        except ValueError:
            continue
        if low < 0 or high < 0:
            return None
        spans.append((min(low, high), max(low, high)))
    return spans


def _sources(item: Mapping[str, Any], cidr_keys: tuple[str, ...], other_keys: tuple[str, ...]) -> Entry:
    sources: list[Any] = []
    cidr_indices: set[int] = set()
    for key in cidr_keys:
        value = get_ref(item, key)
        values = value if isinstance(value, list) else [value]
        for one in values:
            if one is None or one == "":
                continue
            cidr_indices.add(len(sources))
            sources.append(one)
    prefix_indices: set[int] = set()
    for key in other_keys:
        value = get_ref(item, key)
        values = value if isinstance(value, list) else [value]
        for one in values:
            if one is None or one == "" or one is False:
                continue
            if key in _PREFIX_KEYS:
                prefix_indices.add(len(sources))
            sources.append("this security group" if one is True else one)
    return Entry(
        protocol=None,
        ports=None,
        sources=sources,
        cidr_sources=frozenset(cidr_indices),
        where="",
        prefix_lists=frozenset(prefix_indices),
    )


def _with(
    entry: Entry, protocol: Any, ports: list[tuple[int, int]] | None, where: str, path: str = ""
) -> Entry:
    return Entry(
        protocol,
        ports,
        entry.sources,
        entry.cidr_sources,
        where,
        path,
        prefix_lists=entry.prefix_lists,
        origins=entry.origins,
    )


def _merge(first: Entry, second: Entry) -> Entry:
    offset = len(first.sources)
    return Entry(
        None,
        None,
        [*first.sources, *second.sources],
        first.cidr_sources | frozenset(offset + i for i in second.cidr_sources),
        "",
    )
