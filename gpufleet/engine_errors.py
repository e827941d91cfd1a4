"""The engine's messages for a program that failed: one paragraph for the user, naming the program,
the line of its own code and the cause, with the program's own text quoted to a reasonable length."""

from __future__ import annotations

import os
import re
import sys
import traceback
from pathlib import Path

import pulumi

from gpufleet.project import Project

_GPUFLEET_DIR = Path(__file__).resolve().parent


class EngineError(Exception):
    """The program could not be run or failed; the message is one paragraph for the user."""


def _program_frame(exc: BaseException, project: Project) -> str:
    """`file:line` of the innermost frame in the project's own code, outside any virtualenv."""
    root = str(project.root) + os.sep
    found = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename.startswith("<"):
            # `<frozen importlib._bootstrap>`, `<string>`: no file, and relative to the program's cwd.
            continue
        filename = str(Path(frame.filename).resolve())
        if filename.startswith(root) and "site-packages" not in filename:
            found = f"{os.path.relpath(filename, project.root)}:{frame.lineno}"
    return found


def one_paragraph(text: str) -> str:
    """Multi-line messages (a spec's list of problems) as one paragraph: `head: a; b; c`."""
    lines = [" ".join(line.split()) for line in text.strip().splitlines() if line.strip()]
    if len(lines) <= 1:
        return lines[0] if lines else ""
    return f"{lines[0]} {'; '.join(lines[1:])}"


_SHOWN_CHARACTERS = 400
"""A program's error message is quoted up to this long: enough for any real one, not a flood in CI."""


def _text(value: object) -> str:
    """`str(value)`, or a description when the program's own `__str__` fails."""
    try:
        return str(value)
    except Exception as exc:  # the program's code, which may raise anything
        return f"(its message cannot be shown: str() raised {type(exc).__name__})"


def _clipped(text: str) -> str:
    if len(text) <= _SHOWN_CHARACTERS:
        return text
    return f"{text[:_SHOWN_CHARACTERS]}... ({len(text) - _SHOWN_CHARACTERS:,} more characters)"


def _shown(value: object) -> str:
    """A program's value or error message as one paragraph, of reasonable length."""
    return _clipped(one_paragraph(_text(value)))


def _exit_detail(exc: SystemExit) -> str:
    """How the program left through `sys.exit`: early, with a status, or with a message."""
    code = exc.code
    if code is None or code == 0:
        return "exited early (sys.exit) before finishing"
    if isinstance(code, int):
        return f"exited (sys.exit) with status {code}"
    return f"exited (sys.exit): {_shown(code)}"


def _config_missing_error(
    exc: pulumi.ConfigMissingError, program: str, at: str, stack_file: Path
) -> EngineError:
    """A required config key the stack does not set, or a stack without a stack file at all."""
    if not stack_file.is_file():
        stack = stack_file.name.removeprefix("Pulumi.").removesuffix(".yaml")
        return EngineError(
            f"the program {program} requires config {exc.key!r}{at}, and stack {stack!r} has no stack "
            f"file ({stack_file} does not exist); create it with `gpufleet new {stack} --from TEMPLATE` "
            f"(`gpufleet new --list` shows the templates), or write it with {exc.key!r} under `config:`"
        )
    return EngineError(
        f"the program {program} requires config {exc.key!r}{at}, which {stack_file} does not set; "
        f"add it under `config:` in that file"
    )


def program_error(exc: BaseException, project: Project, stack_file: Path) -> BaseException:
    program = os.path.relpath(project.program_file, project.root)
    where = _program_frame(exc, project)
    at = f" (at {where})" if where else ""
    if isinstance(exc, SystemExit):
        return EngineError(
            f"the program {program} {_exit_detail(exc)}{at}; nothing was recorded past that point"
        )
    if isinstance(exc, pulumi.ConfigMissingError):
        return _config_missing_error(exc, program, at, stack_file)
    if isinstance(exc, pulumi.RunError):
        return EngineError(f"the program {program} stopped with an error{at}: {_shown(exc)}")
    if isinstance(exc, SyntaxError) and exc.filename and not exc.filename.startswith("<"):
        source = Path(exc.filename).resolve()
        shown = os.path.relpath(source, project.root) if source.is_relative_to(project.root) else str(source)
        line = f":{exc.lineno}" if exc.lineno else ""
        kind = "an indentation error" if isinstance(exc, IndentationError) else "a syntax error"
        return EngineError(f"the program {program} has {kind} at {shown}{line}: {exc.msg}")
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        top = exc.name.split(".")[0]
        local = (project.program_dir / top).exists() or (project.program_dir / f"{top}.py").exists()
        if not local:
            return EngineError(
                f"the program {program} imports {exc.name!r}{at}, which is not installed; install it in "
                f"this environment ({sys.executable}) and run again"
            )
    if not isinstance(exc, Exception):
        # KeyboardInterrupt, GeneratorExit, a program's own BaseException subclass.
        message = _shown(exc)
        detail = f": {message}" if message else ""
        return EngineError(
            f"the program {program} raised {type(exc).__name__}{at}{detail}; nothing was recorded past "
            f"that point"
        )
    if _raised_in_gpufleet(exc):
        # A fault of the engine itself, not of the program: keep the traceback for the bug report.
        return exc
    text = _text(exc)
    registering = _REGISTERING.findall(text)
    if registering:
        # The SDK wraps a bad input once per resource on the way down; the innermost names the cause.
        name, token = registering[-1]
        innermost = text.strip().splitlines()[-1]
        cause = _clipped(_RISEN.sub("", innermost).strip())
        return EngineError(f"the program {program} failed{at} while registering {token} {name!r}: {cause}")
    message = _shown(exc) or "(no message)"
    return EngineError(f"the program {program} failed{at}: {type(exc).__name__}: {message}")


_REGISTERING = re.compile(r"While processing resource: '([^']*)', type: '([^']*)'")
_RISEN = re.compile(r"^\w+ has risen: ")


def _raised_in_gpufleet(exc: BaseException) -> bool:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return False
    if Path(frames[-1].filename).resolve().is_relative_to(_GPUFLEET_DIR):
        return True
    mocks_dir = _GPUFLEET_DIR / "mocks"
    return any(Path(f.filename).resolve().is_relative_to(mocks_dir) for f in frames)
