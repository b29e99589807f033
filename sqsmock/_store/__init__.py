"""Where the engine's state lives beyond memory: the store layer.

The engine hands a store lists of ``Op`` records once per SQS call and asks it for everything
back when a mock starts. This module is the contract and imports nothing, so the engine may
depend on it without depending on redis or botocore. The only store is Redis (a real server or
fakeredis), in ``redis_store``; with no store the engine's memory is the whole truth.

The defaults of the persistence options (namespace, time-out) live here too: every front end
checks them, also without persistence, and importing ``redis_store`` would load botocore (its
``PersistenceError`` is a ``BotoCoreError``), which the server does not otherwise need.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

__all__ = [
    "DEFAULT_NAMESPACE",
    "DEFAULT_TIMEOUT",
    "Op",
    "QueueRecord",
    "Snapshot",
    "Store",
    "check_timeout",
    "default_namespace",
]

DEFAULT_NAMESPACE = "sqsmock:"
#: Seconds a client built from a URL waits to connect and for each reply.
DEFAULT_TIMEOUT = 5.0


def default_namespace() -> str:
    """``sqsmock:``, or ``sqsmock:<worker>:`` under pytest-xdist (one namespace per worker)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    return f"{DEFAULT_NAMESPACE}{worker}:" if worker else DEFAULT_NAMESPACE


def check_timeout(timeout: Any) -> float:
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, (int, float))
        or not math.isfinite(timeout)
        or timeout <= 0
    ):
        raise ValueError(
            f"persistence_timeout must be a positive number of seconds, not {timeout!r}"
        )
    return float(timeout)


class Op(NamedTuple):
    """One write: ``kind`` names it; ``qid`` is the queue it touches ('' for backend-wide).

    Kinds, per queue: msg (key=MessageId, value=its record), del (key=MessageId), dedup
    (key=deduplication key, value=entry), undedup, sequence (value=FIFO counter), state and
    unstate (key=a name the queue chooses, value=text: engine state that decides later
    answers, such as the FIFO group rotation), clear (every
    message and deduplication entry; value=the sequence counter to keep), queue (value=metadata),
    drop (the queue is deleted), deleted (value=when), undeleted; backend-wide: task (key=id).
    """

    kind: str
    qid: str
    key: str = ""
    value: str = ""
    extra: str = ""


@dataclass
class QueueRecord:
    """One queue as stored: metadata, message records by id, deduplication entries by key
    (all JSON text), the FIFO sequence counter and named engine state (``state`` ops)."""

    meta: str
    messages: dict[str, str] = field(default_factory=dict)
    dedup: dict[str, str] = field(default_factory=dict)
    sequence: int = 0
    state: dict[str, str] = field(default_factory=dict)


@dataclass
class Snapshot:
    """Everything a store holds for one namespace."""

    queues: dict[str, QueueRecord] = field(default_factory=dict)
    deleted: dict[str, float] = field(default_factory=dict)
    tasks: dict[str, str] = field(default_factory=dict)


class Store(Protocol):
    """What the engine needs of a store. Every method raises ``PersistenceError`` on failure."""

    #: Ops of commits that raised but were later found applied (see ``take_late``).
    late: list[list[Op]]
    #: Called with the queue ids a commit that raised but turned out applied touched.
    on_late: Callable[[set[str]], None] | None

    def commit(self, ops: list[Op], channel: str = "") -> None:
        """Apply the ops atomically, or raise -- then they did not apply and never will.

        ``channel`` names who commits (a queue id, or '' for namespace-wide records); commits
        of one channel never run concurrently.
        """

    def settle(self) -> None:
        """Decide commits whose outcome is unknown (raises while Redis cannot be asked)."""

    def take_late(self) -> list[list[Op]]:
        """Ops of commits that raised but were later found applied: memory must take them in
        (rare: Redis applied a write and the connection broke before its reply)."""

    def load(self) -> Snapshot:
        """Everything under the namespace."""

    def load_queue(self, qid: str) -> QueueRecord | None:
        """One queue (None if it is not stored)."""

    def clear(self) -> None:
        """Delete everything under the namespace."""

    def corrupted(self, reason: str) -> Exception:
        """The error to raise for a stored record that cannot be read back."""

    def problem(self) -> str | None:
        """Why the store cannot be used now (Redis away, the lease lost), or None."""

    def take_resync(self) -> bool:
        """True once after the store was regained (its lease taken back after a lapse):
        memory must reload everything it holds."""

    def close(self) -> None:
        """The activation ends: release what it holds (the namespace's lease)."""
