"""Egress entries of security group rules, as GF-NET-004 (`onprem_egress`) judges them: the readers the
clouds' network facts (`aws.py`, `alicloud.py`, `tencentcloud.py`) build their entries with.

A cloud's module turns its rule resources into :class:`Egress` entries: ``egress_entries(type, props)``
for rules that apply in order (an earlier drop covers a later accept), ``egress_rule(props)`` returning a
:class:`PriorityRule` for rules that apply by priority within their group.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.props import as_int, is_unknown

MAX_PORTS = 4096


@dataclass(frozen=True)
class Egress:
    """One egress permission: opens every port (``wide``), towards ``cidr``, accepted or dropped."""

    wide: bool
    what: str  # "all protocols", "all TCP ports", "UDP ports 1-65535"
    cidr: Any
    accept: bool
    where: str = ""
    path: str = ""


@dataclass
class PriorityRule:
    """An egress rule that applies by priority (a smaller number first) among its group's rules."""

    group: Any
    priority: int
    entry: Egress


def _protocol(value: Any, path: str) -> str:
    if is_unknown(value):
        raise UnknownValueError(value, [path])
    if value is None:
        return "all"
    text = str(value).strip().lower()
    return {"-1": "all", "all": "all", "6": "tcp", "17": "udp"}.get(text, text)


def _kind(protocol: str, spans: list[tuple[int, int]] | None) -> tuple[bool, str]:
    """Whether a protocol and its port spans open too much, and how to say what they open."""
    if protocol == "all":
        return True, "all protocols"
    if protocol not in ("tcp", "udp"):
        return False, protocol
    if spans is None:
        return True, f"all {protocol.upper()} ports"
    count = sum(high - low + 1 for low, high in spans)
    shown = ",".join(str(low) if low == high else f"{low}-{high}" for low, high in spans)
    return count > MAX_PORTS, f"{protocol.upper()} ports {shown}"


def span(low: Any, high: Any, path: str) -> list[tuple[int, int]] | None:
    """The port span from a from/to pair; None for every port."""
    for value in (low, high):
        if is_unknown(value):
            raise UnknownValueError(value, [path])
    start, end = as_int(low), as_int(high)
    if start is None and end is None:
        return None
    start = end if start is None else start
    end = start if end is None else end
    assert start is not None and end is not None
    if start < 0 or end < 0 or (start == 0 and end in (0, 65535)):
        return None
    return [(min(start, end), max(start, end))]


def text_spans(text: Any, path: str, separator: str) -> list[tuple[int, int]] | None:
    """ "443", "30000-32767", "80,443", "ALL", "443/443", "-1/-1", "1/65535"."""
    if is_unknown(text):
        raise UnknownValueError(text, [path])
    raw = str(text if text is not None else "").strip().lower()
    if raw in ("", "all", "-1", "-1/-1"):
        return None
    spans: list[tuple[int, int]] = []
    for part in raw.split(","):
        low, _, high = part.strip().partition(separator)
        try:
            start, end = int(low), int(high or low)
        except ValueError:
            return None  # unreadable: read as every port, the safe side
        if start < 0 or end < 0:
            return None
        spans.append((min(start, end), max(start, end)))
    return spans


def entry(
    protocol_value: Any, spans: Any, cidr: Any, *, accept: bool, where: str = "", path: str = ""
) -> Egress:
    """The entry of a protocol, its port spans and a destination."""
    protocol = _protocol(protocol_value, f"{path}.protocol" if path else "protocol")
    wide, what = _kind(protocol, None if protocol == "all" else spans)
    return Egress(wide, what, cidr, accept, where, path)


def action(value: Any, path: str, default: str) -> bool:
    """Whether an action (unset: ``default``, the accepting one) accepts."""
    if is_unknown(value):
        raise UnknownValueError(value, [path])
    return str(value or default).strip().upper() == default.upper()
