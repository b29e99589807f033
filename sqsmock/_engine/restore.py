"""Rebuilding a queue from its stored record, and the queue's standing with the store.

Rebuilding is the queue's own code, because only the queue knows its state; it runs when a mock
starts (``Backend.load``) and when the journal reloads a queue whose write failed, never on a
call's usual path. So it is the ``Restore`` part of ``Queue``, apart from the transitions every
call runs (``queue.py``), and this module imports no queue: the queue imports it.
``fifo.py`` extends the hooks (``_restore_message``, ``_restored``) for message groups,
deduplication and the group rotation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._store import QueueRecord
from .message import DELAYED, INFLIGHT, VISIBLE, Message
from .records import decode_messages, decode_meta

if TYPE_CHECKING:
    from .clock import Clock
    from .config import QueueConfig
    from .scheduler import Schedule
    from .tombstone import TombstoneLog
    from .write_through import Journal

__all__ = ["Restore"]


class Restore:
    """Reading the queue back from the store; whether it is deleted or stale."""

    if TYPE_CHECKING:  # what this part uses of the queue (``queue.py``)
        clock: Clock
        config: QueueConfig
        journal: Journal
        log: TombstoneLog[Message]
        schedule: Schedule[Message]
        tags: dict[str, str]
        last_modified: float
        last_purge: float | None
        n_inflight: int
        n_delayed: int
        _seq: int

        def _make_visible(self, m: Message) -> None: ...
        def _clear(self) -> None: ...

    @property
    def deleted(self) -> bool:
        """DeleteQueue (or a reset) removed the queue: calls on it fail (``drop``)."""
        return self.journal.dropped

    def drop(self) -> None:
        """The queue was deleted; the caller holds its lock (see ``Journal.drop``)."""
        self.journal.drop()

    @property
    def stale(self) -> bool:
        """A write failed: memory may be ahead of the store until the next call reloads."""
        return self.journal.stale

    @stale.setter
    def stale(self, value: bool) -> None:
        self.journal.stale = value

    def settle(self) -> None:
        """Reload now if an earlier write failed, so a read sees what the store holds."""
        self.journal.settle()

    def restore(self, record: QueueRecord) -> None:
        """Rebuild messages from a stored record (the queue must be empty).

        Time-driven transitions are applied as of now: a lapsed message is visible, one past
        retention is dropped (and deleted from the store at the next commit). Raises
        ``ValueError`` naming the message whose record is corrupted.
        """
        now = self.clock.now()
        messages = decode_messages(record.messages)
        oldest = now - self.config.retention_period
        for m in messages:
            if m.sent_at <= oldest:
                self.journal.record_delete(m)
                continue
            self._restore_message(m, now)
        self._seq = max((m.seq for m in messages), default=0)
        self._restored(record, now)

    def _restore_message(self, m: Message, now: float) -> None:
        m.gen = 0
        self.log.append(m)
        self.schedule.push_age(m)
        if m.receipt is not None:
            self.log.mark_inflight(m.slot, m.receipt)
        if m.state != VISIBLE and m.visible_at > now:
            if m.state == INFLIGHT:
                self.n_inflight += 1
            else:
                m.state = DELAYED
                self.n_delayed += 1
            self.schedule.push_timer(m, m.visible_at)
        else:
            self._make_visible(m)

    def _restored(self, record: QueueRecord, now: float) -> None:
        """Hook: every message is back (FIFO rebuilds groups, deduplication, sequence)."""

    def _rebuild(self, record: QueueRecord | None) -> None:
        """Replace memory with ``record`` (None: the store no longer holds the queue): the
        journal's reload, under the queue lock."""
        self._clear()
        if record is None:
            return
        meta = decode_meta(record.meta)
        self.config.restore(meta["attributes"])
        self.tags = dict(meta["tags"])
        self.last_modified = float(meta["modified"])
        self.last_purge = None if meta["purged"] is None else float(meta["purged"])
        self.restore(record)
