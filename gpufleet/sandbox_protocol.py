"""What travels on the sandbox's pipes (`gpufleet.sandbox`), and how the caller reads it.

The runner leaves one JSON object on the result pipe (`leave`): `{"kind": "ok", "value": ...}`,
`{"kind": "raised", ...}` for an exception (`raised`), or `{"kind": "exit", ...}` for an `os._exit`.
The namespace's init and the warden each write one JSON line on the status pipe. The caller parses
both strictly (`parse_json`: UTF-8, no deeper than MAX_DEPTH) and turns anything but a value into one
of the `ChildProblem`s below; it never unpickles, imports or executes what the child sent.
"""

from __future__ import annotations

import json
import os
import signal
import traceback
from typing import Any, NoReturn

MAX_DEPTH = 200
"""Deepest nesting of a result the caller parses (Python's own JSON parser recurses)."""

Frames = tuple[tuple[str, int], ...]
"""(file name, line number) of each frame, outermost first."""


class ChildProblem(Exception):
    """The child ended without a result: a time-out, an `os._exit`, a crash or an exception."""


class TimedOut(ChildProblem):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"no result within {seconds:g} s")
        self.seconds = seconds


class ExitCalled(ChildProblem):
    """The function's code called `os._exit(status)`."""

    def __init__(self, status: int, frames: Frames) -> None:
        super().__init__(f"os._exit({status})")
        self.status = status
        self.frames = frames


class Died(ChildProblem):
    """The child ended by itself without a result, by a signal or with an exit status."""

    def __init__(self, signal_number: int | None, status: int | None) -> None:
        if signal_number is not None:
            super().__init__(f"killed by signal {signal_name(signal_number)}")
        else:
            super().__init__(f"ended with status {status}")
        self.signal = signal_number
        self.status = status


class ChildRaised(ChildProblem):
    """The function raised: its type's name, message and traceback, as text (never the object)."""

    def __init__(self, type_name: str, message: str, trace: str) -> None:
        super().__init__(f"{type_name}: {message}" if message else type_name)
        self.type_name = type_name
        self.message = message
        self.trace = trace


class BadResult(ChildProblem):
    """The child sent something that is not a result: not JSON, too large, too deep, or of no known form."""


class Stopped(ChildProblem):
    """The caller was asked to stop (SIGTERM, SIGHUP) while the child ran."""

    def __init__(self, signal_number: int) -> None:
        super().__init__(f"stopped by {signal_name(signal_number)}")
        self.signal = signal_number


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


# -- read by the caller ------------------------------------------------------------------------


def parse_status(data: bytes) -> dict[str, Any]:
    """The lines of the status pipe (the init's, then the warden's) merged; anything else ignored."""
    merged: dict[str, Any] = {}
    for line in data.splitlines():
        try:
            report = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            continue
        if isinstance(report, dict):
            merged.update(report)
    return merged


def parse_json(data: bytes) -> Any:
    """Strict parsing of what a child sent: UTF-8 JSON no deeper than MAX_DEPTH (NaN and Infinity are
    read as JSON numbers Python writes them)."""
    if _too_deep(data):
        raise BadResult(f"the result is nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise BadResult(f"the result is not JSON: {exc}") from None


def _too_deep(data: bytes) -> bool:
    """Whether brackets outside strings nest deeper than MAX_DEPTH (checked before parsing: it recurses)."""
    depth = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


def outcome(result: bytes, report: dict[str, Any]) -> Any:
    if result:
        payload = parse_json(result)
        if isinstance(payload, dict):
            kind = payload.get("kind")
            if kind == "ok" and "value" in payload:
                return payload["value"]
            if kind == "raised":
                return _raise(payload)
            if kind == "exit" and isinstance(payload.get("status"), int):
                raise ExitCalled(payload["status"], _frames(payload.get("frames")))
        raise BadResult("the child's result is not of a known form")
    sig, status = report.get("signal"), report.get("status")
    raise Died(sig if isinstance(sig, int) else None, status if isinstance(status, int) else None)


def _raise(payload: dict[str, Any]) -> NoReturn:
    def text(key: str) -> str:
        value = payload.get(key)
        return value if isinstance(value, str) else ""

    raise ChildRaised(text("type") or "Exception", text("message"), text("traceback"))


def _frames(value: Any) -> Frames:
    frames = []
    for item in value if isinstance(value, list) else ():
        if (
            isinstance(item, list)
            and len(item) == 2
            and isinstance(item[0], str)
            and isinstance(item[1], int)
        ):
            frames.append((item[0], item[1]))
    return tuple(frames)


# -- the warden ------------------------------------------------------------------------------------

# -- written by the runner ----------------------------------------------------------------------


def raised(exc: BaseException) -> dict[str, Any]:
    """An exception as data: its type's name, its message and its traceback."""
    try:
        message = str(exc)
    except Exception:
        message = "(its message cannot be read)"
    try:
        trace = "".join(traceback.format_exception(exc)).rstrip()
    except Exception:
        trace = ""
    return {"kind": "raised", "type": type(exc).__name__, "message": message, "traceback": trace}


def leave(result_w: int, payload: dict[str, Any]) -> None:
    """Write the result whole, once: later writes (an `os._exit` after a result) are dropped."""
    try:
        data = json.dumps(payload, separators=(",", ":")).encode("utf-8")
    except Exception as exc:
        data = json.dumps(
            {"kind": "raised", "type": "TypeError", "message": f"the result cannot be sent back: {exc}"}
        ).encode()
    view = memoryview(data)
    while view:
        written = os.write(result_w, view)
        view = view[written:]
    os.close(result_w)
