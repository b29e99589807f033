"""Message move tasks: moving messages out of a dead-letter queue at a rate, on the clock.

A task moves the messages visible in its source when it starts (``to_move``), oldest first, to an
explicit destination or -- without one -- each back to the queue it was dead-lettered from. With
``MaxNumberOfMessagesPerSecond`` it may have moved ``floor(elapsed * rate)`` messages at any
moment; without it, everything at once. There is no background thread: ``MoveTasks.run`` catches
tasks up to ``clock.now()``; the backend calls it before every SQS call and whenever the clock is
advanced, so on a frozen clock advancing the clock is what moves messages.

Tasks are listed newest first, in the order they were started: ``serial`` numbers them and is
stored with each task, so a restart reads them back in that order even when several started at
the same moment of the clock (a frozen clock) -- their start times cannot tell them apart, and
Redis hands a hash's fields back in no set order.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import threading
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace

from .._errors import SqsError
from .._store import Op
from .message import Message, new_message_id
from .queue import Queue

__all__ = ["MoveTask", "MoveTasks"]

RUNNING = "RUNNING"
COMPLETED = "COMPLETED"
CANCELLING = "CANCELLING"
CANCELLED = "CANCELLED"
FAILED = "FAILED"


@dataclass
class MoveTask:
    task_id: str
    handle: str
    source_arn: str
    destination_arn: str | None
    rate: int | None
    to_move: int
    started_at: float
    status: str = RUNNING
    moved: int = 0
    failure: str | None = None
    #: The order tasks were started in (1, 2, ... per backend): ties of ``started_at`` broken.
    serial: int = 0

    def record(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_record(cls, text: str) -> MoveTask:
        """Read a stored task back; ValueError names the first field of the wrong type or value."""
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("a move task record must be a JSON object")
        unknown = set(data) - set(_TASK_FIELDS)
        if unknown:
            raise ValueError(f"unknown field {sorted(unknown)[0]!r}")
        for name, (kinds, optional) in _TASK_FIELDS.items():
            value = data.get(name)
            if value is None and (optional or (name not in data and name in _TASK_DEFAULTED)):
                continue
            if not isinstance(value, kinds) or isinstance(value, bool):
                raise ValueError(f"field {name!r} is {value!r}")
            if isinstance(value, (int, float)) and not (math.isfinite(value) and value >= 0):
                raise ValueError(f"field {name!r} is {value!r}, not a finite non-negative number")
        task = cls(**data)
        if task.status not in (RUNNING, COMPLETED, CANCELLING, CANCELLED, FAILED):
            raise ValueError(f"unknown move task status {task.status!r}")
        if task.rate is not None and task.rate < 1:
            raise ValueError(f"field 'rate' is {task.rate!r}")
        if task.moved > task.to_move:
            raise ValueError(f"it moved {task.moved} of {task.to_move} messages")
        return task


#: Each stored field of a task: accepted types, and whether it may be null.
_TASK_FIELDS: dict[str, tuple[tuple[type, ...], bool]] = {
    "task_id": ((str,), False),
    "handle": ((str,), False),
    "source_arn": ((str,), False),
    "destination_arn": ((str,), True),
    "rate": ((int,), True),
    "to_move": ((int,), False),
    "started_at": ((int, float), False),
    "status": ((str,), False),
    "moved": ((int,), False),
    "failure": ((str,), True),
    "serial": ((int,), False),
}
#: Fields with a default: a record may leave them out (``serial``: a record of an older sqsmock).
_TASK_DEFAULTED = frozenset({"status", "moved", "serial"})


def _handle(task_id: str, source_arn: str) -> str:
    raw = json.dumps({"taskId": task_id, "sourceArn": source_arn}, separators=(",", ":"))
    return base64.b64encode(raw.encode()).decode()


def _task_id(handle: str) -> str | None:
    try:
        parsed = json.loads(base64.b64decode(handle, validate=True))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(parsed, dict) or not isinstance(parsed.get("taskId"), str):
        return None
    return str(parsed["taskId"])


class MoveTasks:
    """Every move task of one backend, by source ARN (newest last)."""

    def __init__(
        self,
        resolve: Callable[[str], Queue | None],
        now: Callable[[], float],
        commit: Callable[[list[Op]], None] | None = None,
    ) -> None:
        self._resolve = resolve
        self._now = now
        self._commit = commit
        self._lock = threading.RLock()
        self._by_source: dict[str, list[MoveTask]] = {}
        self._by_id: dict[str, MoveTask] = {}
        #: The ``serial`` of the last task started (or read back).
        self._serial = 0
        #: The tasks under way (``Backend.tick`` runs them only when there are any).
        self.active: list[MoveTask] = []

    def start(self, source: Queue, destination: Queue | None, rate: int | None) -> MoveTask:
        with self._lock:
            for task in self._by_source.get(source.arn, []):
                if task.status in (RUNNING, CANCELLING):
                    raise SqsError("MoveTaskAlreadyRunning")
            task_id = str(uuid.uuid4())
            task = MoveTask(
                task_id=task_id,
                handle=_handle(task_id, source.arn),
                source_arn=source.arn,
                destination_arn=destination.arn if destination is not None else None,
                rate=rate,
                to_move=source.counts()[0],
                started_at=self._now(),
                serial=self._serial + 1,
            )
            self._save(task)
            self._add(task)
            self.run()
            return task

    def _add(self, task: MoveTask) -> None:
        self._serial = max(self._serial, task.serial)
        self._by_source.setdefault(task.source_arn, []).append(task)
        self._by_id[task.task_id] = task
        if task.status in (RUNNING, CANCELLING):
            self.active.append(task)

    def restore(self, records: dict[str, str]) -> None:
        """Tasks from the store, in the order they were started; raises ValueError naming a
        corrupted one. (Records of an older sqsmock have no ``serial``: they go first, by
        start time and then task id -- the same order at every start.)"""
        tasks = []
        for task_id, text in records.items():
            try:
                task = MoveTask.from_record(text)
                if task.task_id != task_id:
                    raise ValueError(f"the record is for task {task.task_id!r}")
            except (ValueError, TypeError) as error:
                raise ValueError(f"move task {task_id!r}: {error}") from None
            tasks.append(task)
        for task in sorted(tasks, key=lambda t: (t.serial, t.started_at, t.task_id)):
            self._add(task)

    def _save(self, task: MoveTask) -> None:
        if self._commit is not None:
            self._commit([Op("task", "", task.task_id, task.record())])

    def cancel(self, handle: str) -> MoveTask:
        task_id = _task_id(handle)
        if task_id is None:
            raise SqsError("InvalidTaskHandle")
        with self._lock:
            self.run()
            task = self._by_id.get(task_id)
            if task is None or task.status != RUNNING:
                raise SqsError("TaskDoesNotExist")
            self._save(
                replace(task, status=CANCELLING)
            )  # stored first: a failed write changes nothing
            task.status = CANCELLING
            return task

    def listing(self, source_arn: str, limit: int) -> list[MoveTask]:
        with self._lock:
            self.run()
            return list(reversed(self._by_source.get(source_arn, [])))[:limit]

    def run(self, wait: bool = True) -> None:
        """Catch every active task up to the clock. ``wait=False``: if another thread is at
        it already (its writes may be waiting on Redis), leave it to that thread."""
        if not self.active:
            return
        if not self._lock.acquire(blocking=wait):
            return
        try:
            now = self._now()
            for task in list(self.active):
                self._step(task, now)
                if task.status not in (RUNNING, CANCELLING):
                    self.active.remove(task)
        finally:
            self._lock.release()

    def apply_record(self, text: str) -> None:
        """A task record that reached the store although its write raised: take it in."""
        stored = MoveTask.from_record(text)
        with self._lock:
            task = self._by_id.get(stored.task_id)
            if task is None:
                self._add(stored)
                return
            task.status, task.moved, task.failure = stored.status, stored.moved, stored.failure
            if task.status not in (RUNNING, CANCELLING) and task in self.active:
                self.active.remove(task)

    def _task_ops(self, task: MoveTask) -> list[Op]:
        return [] if self._commit is None else [Op("task", "", task.task_id, task.record())]

    def _update(self, task: MoveTask, **changes: object) -> None:
        """Store the task's new fields first; memory follows only once they are stored."""
        new = replace(task, **changes)  # type: ignore[arg-type]
        self._save(new)
        task.status, task.moved, task.failure = new.status, new.moved, new.failure

    def _step(self, task: MoveTask, now: float) -> None:
        if task.status == CANCELLING:
            self._update(task, status=CANCELLED)
            return
        due = task.to_move
        if task.rate is not None:
            due = min(due, int((now - task.started_at) * task.rate + 1e-9))
        want = due - task.moved
        if want <= 0 and task.moved < task.to_move:
            return
        source = self._resolve(task.source_arn)
        if source is None:
            self._update(task, status=FAILED, failure="The source queue does not exist.")
            return
        destination = None
        if task.destination_arn is not None:
            destination = self._resolve(task.destination_arn)
            if destination is None:
                self._update(task, status=FAILED, failure="The destination queue does not exist.")
                return
        taken, epoch = source.take_visible(want) if want > 0 else ([], source.journal.reloads)
        failure = None
        stranded: list[Message] = []
        batches: dict[str, tuple[Queue, list[Message], list[Message]]] = {}
        for old in taken:
            target = destination or self._resolve(old.dlq_source_arn or "")
            if target is None:
                stranded.append(old)
                failure = "The original source queue of a message does not exist."
                continue
            moved = old.copy()
            moved.message_id = new_message_id()
            moved.sent_at = -1.0
            batch = batches.setdefault(target.arn, (target, [], []))
            batch[1].append(moved)
            batch[2].append(old)
        if stranded:  # back where they were, as they were
            source.accept_messages([old.carry() for old in stranded])
        done = task.moved + sum(len(b[1]) for b in batches.values())
        final = RUNNING
        if failure is not None:
            final = FAILED
        elif done >= task.to_move or len(taken) < want:
            final = COMPLETED
        remaining = len(batches)
        for target, messages, originals in batches.values():
            remaining -= 1
            record = replace(task, moved=task.moved + len(messages))
            if not remaining:
                record = replace(record, status=final, failure=failure)
            # Departure, arrival and the task's progress commit together.
            target.accept_messages(
                messages, source.journal.delete_ops(originals) + self._task_ops(record)
            )
            task.moved, task.status, task.failure = record.moved, record.status, record.failure
        if not batches and final != task.status:
            self._update(task, status=final, failure=failure)
        if source.journal.reloads != epoch:  # the source reloaded meanwhile: it may hold them again
            source.stale = True
