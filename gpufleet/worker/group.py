"""What the Alibaba and Tencent workers share: their instance in an ESS or AS scaling group.

Both clouds answer the same questions through different calls: which group holds this instance and in
what lifecycle state (``DescribeScalingInstances`` / ``DescribeAutoScalingInstances``), protect it or
not (``SetInstancesProtection``), and the group's maximum (``DescribeScalingGroups`` /
``DescribeAutoScalingGroups``). :class:`GroupInstance` holds the logic; each cloud's subclass makes its
calls.

A maximum of 0 is a stop notice, as on AWS (:mod:`gpufleet.worker.aws`): the off-hours stop sets the
group's minimum and maximum to 0, and neither ESS nor AS removes an instance protected from scale-in,
so a worker that kept its protection would keep the instance, and its bill, all night. The worker
checkpoints, returns its job and lifts its protection; the group then removes the instance through
its drain hook.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, Protocol

log = logging.getLogger("gpufleet.worker.group")

# Seconds between two reads of the group's maximum (the stop check), to spare the scaling API.
STOP_CHECK_S = 60.0


class SpotMetadata(Protocol):
    def instance_id(self) -> str: ...

    def spot_termination_time(self) -> str | None: ...


class GroupInstance(ABC):
    """This instance in its scaling group. Subclasses are dataclasses with ``metadata``,
    ``instance_id``, ``group_id`` and ``hook_id`` and make the cloud's calls."""

    metadata: SpotMetadata
    instance_id: str | None
    group_id: str | None
    hook_id: str | None
    # The lifecycle states in which the group is taking the instance out, and the hook's wait among them.
    removing_states: frozenset[str]
    hook_wait_state: str
    # What the stop check's interval is measured on (time.monotonic; a fake clock's in tests).
    clock: Callable[[], float]

    @abstractmethod
    def _describe(self) -> Mapping[str, Any] | None:
        """This instance as the group lists it, or None when it is in no group."""

    @abstractmethod
    def _group_of(self, described: Mapping[str, Any]) -> str: ...

    @abstractmethod
    def _state_of(self, described: Mapping[str, Any]) -> str: ...

    @abstractmethod
    def _protection(self, on: bool) -> None: ...

    @abstractmethod
    def _max_size(self) -> int | None:
        """The group's maximum size, or None when the group is not found."""

    @abstractmethod
    def _hook_ids(self, name: str) -> list[str]:
        """The ids of this instance's group's lifecycle hooks named ``name``."""

    def _hook(self) -> str | None:
        """The drain hook's id. ``hook_id`` may name the hook instead (the pool tells the worker the
        name it gave the hook, ``gpufleet-drain``, before the hook and its id exist): a name is turned
        into the id of the group's hook of that name (kept once found); a value no hook of the group is
        named is taken as an id, and looked up again after a minute."""
        if self.hook_id is None:
            return None
        resolved: str | None = self.__dict__.get("_hook_resolved")
        if resolved is not None:
            return resolved
        now = self.clock()
        missed: float | None = self.__dict__.get("_hook_missed_at")
        if missed is not None and now - missed < STOP_CHECK_S:
            return self.hook_id
        found = self._hook_ids(self.hook_id)
        if not found:
            # Taken as an id for a minute only: a hook created after the worker started (or an answer
            # that missed it) is found by a later lookup, instead of the name being sent as an id for good.
            self.__dict__["_hook_missed_at"] = now
            return self.hook_id
        if len(found) > 1:
            log.warning("%d lifecycle hooks are named %s: completing the first", len(found), self.hook_id)
        log.info("lifecycle hook %s is %s", self.hook_id, found[0])
        self.__dict__["_hook_resolved"] = found[0]
        return found[0]

    def _id(self) -> str:
        if self.instance_id is None:
            self.instance_id = self.metadata.instance_id()
        return self.instance_id

    def _group(self) -> str:
        if self.group_id is None:
            described = self._describe()
            if described is None:
                raise RuntimeError(f"instance {self._id()} is in no scaling group")
            self.group_id = self._group_of(described)
        return self.group_id

    def lifecycle_state(self) -> str | None:
        described = self._describe()
        return None if described is None else self._state_of(described)

    def protect(self) -> None:
        self._protection(True)

    def unprotect(self) -> None:
        self._protection(False)

    def stopped(self) -> bool:
        """Whether the group's maximum is 0: the off-hours stop (or an operator) has stopped the pool.
        Read at most once a :data:`STOP_CHECK_S`; between two reads the last answer holds."""
        now = self.clock()
        checked: tuple[float, bool] | None = self.__dict__.get("_stop_checked")
        if checked is not None and now - checked[0] < STOP_CHECK_S:
            return checked[1]
        answer = self._max_size() == 0
        self.__dict__["_stop_checked"] = (now, answer)
        return answer

    def termination_pending(self) -> bool:
        when = self.metadata.spot_termination_time()
        if when:
            log.warning("spot instance reclaimed at %s", when)
            return True
        state = self.lifecycle_state()
        if state in self.removing_states:
            log.warning("the scaling group is taking the instance out: %s", state)
            return True
        if self.stopped():
            log.warning("the group's maximum is 0: the pool is stopped")
            return True
        return False

    def lifecycle_heartbeat(self) -> None:
        # Neither ESS's nor AS's hook takes a heartbeat here: its timeout must cover the job's grace.
        return None

    def hook_waiting(self) -> bool:
        """Whether the drain hook holds this instance (there is an action to complete)."""
        return self.hook_id is not None and self.lifecycle_state() == self.hook_wait_state
