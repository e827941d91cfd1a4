"""What every cloud's quota reader shares (gpufleet/preflight/<cloud>.py): the reader protocol, the error
a reader raises when the quotas cannot be read from here, and reading a number out of an API answer.
Neutral: it names no cloud, and the cloud modules import it (never each other)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol


class NoCredentials(Exception):
    """The cloud's quotas cannot be read from here: the message says what is missing and what to do."""


class QuotaReader(Protocol):
    def read(self, region: str, codes: Iterable[str]) -> dict[str, float]:
        """Each quota code's value (vCPUs) in `region`; codes the cloud does not know are left out."""
        ...


def number(value: Any) -> float | None:
    """A number an answer states as a number or a numeric string; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def read_answer(
    codes: Iterable[str],
    known: Sequence[str],
    ask: Callable[[list[str]], Mapping[str, Any]],
    quotas: Callable[[Mapping[str, Any]], dict[str, float]],
) -> dict[str, float]:
    """A reader's `read` for a cloud whose one API answer holds all its quotas: the codes among `known`
    (none asked: no call), the answer to `ask(wanted)`, and the wanted codes `quotas` finds in it."""
    wanted = [code for code in codes if code in known]
    if not wanted:
        return {}
    found = quotas(ask(wanted))
    return {code: found[code] for code in wanted if code in found}


def missing(cloud: str, what: str) -> NoCredentials:
    return NoCredentials(
        f"reading {cloud} quotas needs {what}: install it and set the credentials, or run `gpufleet "
        "preflight --offline` with the quotas declared in gpufleet:quotas"
    )


def credentials(cloud: str, *names: str) -> list[str]:
    """The values of the environment variables a cloud's SDK reads its credentials from, all of them
    set, or the error naming them."""
    values = [os.environ.get(name, "") for name in names]
    if not all(values):
        raise missing(cloud, " and ".join(names))
    return values
