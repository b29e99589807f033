"""The FIFO queue engine: message groups, a rotation of ready groups, deduplication.

Each message group keeps its messages in send order (a deque; removed messages are skipped and
dropped lazily when they reach the front). A group is *ready* when its first live message (its
head) is visible; ready groups wait in ``_rotation`` (an ordered dict used as a queue), so
receive never looks at a blocked group:

* receive pops the first ready group, hands out its messages from the front while they are
  visible (up to the count), stopping at the first one that is not -- so nothing is ever
  returned ahead of an invisible message of its group -- then moves to the next group:
  O(k + groups visited);
* a group that delivered has an in-flight head and leaves the rotation; when its head is deleted,
  lapses or is set visible (and the new head is visible), it rejoins at the back.

Deduplication ids live ``DEDUP_WINDOW`` seconds from the first send (kept after delete), expired
through a heap ordered by deadline, so the cache cannot grow without bound. The scope (queue or
message group) is the one the queue was created with. Purge clears the cache.

With a store, the queue writes the state that decides its later answers -- each group's place
in the rotation (a *ticket*) and each receive attempt -- as it goes; ``fifo_restore.py`` reads
them back when the queue is loaded.
"""

from __future__ import annotations

import heapq
import json
from collections import OrderedDict

from .._store import Op, QueueRecord
from .fifo_restore import ATTEMPT, TICKET, FifoRestore
from .groups import Group
from .message import INFLIGHT, VISIBLE, Message, Received
from .queue import Queue
from .records import decode_dedup, encode_dedup
from .redrive import exhausted

__all__ = ["ATTEMPT_WINDOW", "DEDUP_WINDOW", "FifoQueue"]

#: Seconds a MessageDeduplicationId suppresses duplicates.
DEDUP_WINDOW = 300.0
#: Seconds a ReceiveRequestAttemptId can be retried.
ATTEMPT_WINDOW = 300.0
#: SequenceNumbers are 20-digit decimal strings, strictly increasing per queue.
SEQUENCE_BASE = 18_000_000_000_000_000_000


class FifoQueue(FifoRestore, Queue):
    fifo = True

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        #: Deduplication scope, fixed at creation (changing the attribute later has no effect).
        self.dedup_scope = self.config.attributes["DeduplicationScope"]
        self._groups: dict[str, Group] = {}
        self._rotation: OrderedDict[str, None] = OrderedDict()
        self._dedup: dict[str, tuple[str, str | None, float]] = {}
        self._dedup_expiry: list[tuple[float, str]] = []
        #: ReceiveRequestAttemptId -> (expiry, [(message, receipt handle, generation)]).
        self._attempts: dict[str, tuple[float, list[tuple[Message, str, int]]]] = {}
        self._attempt_expiry: list[tuple[float, str]] = []
        self._sequence = 0
        self._taking = False
        #: Counts rotation events (joins, deliveries) for the tickets written to the store.
        self._events = 0
        #: Inside ``_advance`` or a restore: groups that join now are not written (time-driven).
        self._quiet = False
        #: During a restore: when each restored message's visibility timeout or delay lapsed.
        self._lapsed: dict[str, float] = {}

    # -- sending ----------------------------------------------------------------------------

    def dedup_key(self, m: Message) -> str:
        if self.dedup_scope == "messageGroup":
            return f"{m.group_id}\x00{m.dedup_id}"
        return m.dedup_id or ""

    def _accept(self, m: Message, now: float, delay: int) -> tuple[str, str | None]:
        self._expire(now)
        key = self.dedup_key(m)
        seen = self._dedup.get(key)
        if seen is not None:  # a duplicate: accepted, not delivered
            return seen[0], seen[1]
        self._enqueue(m, now, delay)
        expires = now + DEDUP_WINDOW
        self._dedup[key] = (m.message_id, m.sequence_number, expires)
        heapq.heappush(self._dedup_expiry, (expires, key))
        self.journal.record(
            Op("dedup", self.qid, key, encode_dedup(m.message_id, m.sequence_number, expires))
        )
        return m.message_id, m.sequence_number

    def _enqueue(self, m: Message, now: float, delay: int) -> None:
        self._sequence += 1
        m.sequence_number = str(SEQUENCE_BASE + self._sequence)
        self.journal.record(Op("sequence", self.qid, value=str(self._sequence)))
        key = m.group_id or ""
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = Group(key)
        group.messages.append(m)
        super()._enqueue(m, now, delay)

    def _expire(self, now: float) -> None:
        expiry = self._dedup_expiry
        while expiry and expiry[0][0] <= now:
            expires, key = heapq.heappop(expiry)
            entry = self._dedup.get(key)
            if entry is not None and entry[2] == expires:
                del self._dedup[key]
                self.journal.record(Op("undedup", self.qid, key))
        attempts = self._attempt_expiry
        while attempts and attempts[0][0] <= now:
            expires, attempt = heapq.heappop(attempts)
            cached = self._attempts.get(attempt)
            if cached is not None and cached[0] == expires:
                del self._attempts[attempt]
                self.journal.record(Op("unstate", self.qid, ATTEMPT + attempt))

    # -- group readiness --------------------------------------------------------------------

    def _refresh(self, group: Group) -> None:
        """Keep the invariant: a group is in the rotation iff its head is visible."""
        group.compact()
        head = group.head()
        if head is None:
            self._rotation.pop(group.key, None)
            del self._groups[group.key]
            if self.journal.ops is not None:
                self.journal.record(Op("unstate", self.qid, TICKET + group.key))
        elif head.state == VISIBLE:
            if group.key not in self._rotation:
                self._rotation[group.key] = None
                if not self._quiet and self.journal.ops is not None:
                    self._events += 1
                    ticket = f"[0,{self.clock.now()!r},{self._events}]"
                    self.journal.record(Op("state", self.qid, TICKET + group.key, ticket))
        else:
            self._rotation.pop(group.key, None)

    def _advance(self, now: float) -> None:
        quiet, self._quiet = self._quiet, True
        try:
            super()._advance(now)
        finally:
            self._quiet = quiet

    def _make_visible(self, m: Message) -> None:
        m.state = VISIBLE
        self.n_visible += 1
        self._refresh(self._groups[m.group_id or ""])

    def _removed(self, m: Message) -> None:
        group = self._groups[m.group_id or ""]
        group.dead += 1
        if not self._taking:  # _take refreshes (and compacts) each group it leaves
            self._refresh(group)

    # -- receiving --------------------------------------------------------------------------

    def _receive(
        self, max_messages: int, vt: int, polling: bool, attempt_id: str | None, dead: list[Message]
    ) -> list[Received]:
        now = self.clock.now()
        self._advance(now)  # a lapse since the first attempt voids it
        self._expire(now)
        if attempt_id is not None:
            cached = self._attempts.get(attempt_id)
            if cached is not None and all(
                m.gen == gen and m.receipt == receipt for m, receipt, gen in cached[1]
            ):
                # A retry within the window: the same messages and handles, and their
                # visibility timeout starts again.
                again = [self._restart(m, vt, now) for m, _, _ in cached[1]]
                cached[1][:] = [(r.message, r.receipt, r.message.gen) for r in again]
                self._record_attempt(attempt_id, cached[0], again)
                return again
        got = super()._receive(max_messages, vt, polling, attempt_id, dead)
        if attempt_id is not None and got:
            expires = self.clock.now() + ATTEMPT_WINDOW
            entries = [(r.message, r.receipt, r.message.gen) for r in got]
            self._attempts[attempt_id] = (expires, entries)
            heapq.heappush(self._attempt_expiry, (expires, attempt_id))
            self._record_attempt(attempt_id, expires, got)
        return got

    def _record_attempt(self, attempt_id: str, expires: float, got: list[Received]) -> None:
        """Persist a receive attempt (its messages' handles and deadlines), for a retry after a
        restart."""
        if self.journal.ops is not None:
            record = [
                expires,
                [[r.message.message_id, r.receipt, r.message.visible_at] for r in got],
            ]
            self.journal.record(Op("state", self.qid, ATTEMPT + attempt_id, json.dumps(record)))

    def _restart(self, m: Message, vt: int, now: float) -> Received:
        """Hand ``m`` out again with its current receipt handle, in flight for ``vt`` seconds
        from ``now`` (a FIFO receive retried with the same ReceiveRequestAttemptId)."""
        m.gen += 1
        m.visible_at = now + vt
        self.schedule.push_timer(m, m.visible_at)
        self.journal.record_message(m)
        self._compact_schedule()
        first = now if m.first_receive_at is None else m.first_receive_at
        return Received(m, m.receipt or "", m.receive_count, first, m.body, m.attributes)

    def _take(self, max_messages: int, vt: int, now: float, dead: list[Message]) -> list[Received]:
        out: list[Received] = []
        rotation = self._rotation
        policy = self.config.redrive
        self._events += 1
        call = self._events  # groups that deliver now lapse together (VisibilityTimeout 0)
        self._taking = True
        try:
            while rotation and len(out) < max_messages:
                key, _ = rotation.popitem(last=False)
                group = self._groups[key]
                messages = group.messages
                i = 0
                while i < len(messages) and len(out) < max_messages:
                    m = messages[i]
                    i += 1
                    if m.slot < 0:
                        continue
                    if m.state != VISIBLE:
                        break
                    if policy is not None and exhausted(policy, m, self._resolve, self):
                        dead.append(self._take_out(m))
                        continue
                    out.append(self._deliver(m, vt, now))
                self._refresh(group)
                if key not in rotation and key in self._groups and self.journal.ops is not None:
                    ticket = f"[1,{call}]"
                    self.journal.record(Op("state", self.qid, TICKET + key, ticket))
        finally:
            self._taking = False
        return out

    def take_visible(self, limit: int) -> tuple[list[Message], int]:
        """Remove up to ``limit`` messages from the fronts of ready groups, in group order."""
        with self.journal.session():
            self._advance(self.clock.now())
            out: list[Message] = []
            rotation = self._rotation
            while rotation and len(out) < limit:
                group = self._groups[next(iter(rotation))]
                head = group.head()
                if head is None or head.state != VISIBLE:  # never: the rotation holds ready groups
                    self._refresh(group)
                    continue
                out.append(self._take_out(head))  # refreshes the group; it keeps its place
            return out, self.journal.reloads

    # -- deleting ---------------------------------------------------------------------------

    def _deletable(self, m: Message, current: bool) -> str | None:
        """A FIFO handle stops working once its visibility lapsed (unless extended in time) or
        the message was received again."""
        return None if current and m.state == INFLIGHT else "expired"

    # -- loading ----------------------------------------------------------------------------

    def restore(self, record: QueueRecord) -> None:
        self._quiet = True
        try:
            super().restore(record)
        finally:
            self._quiet = False
            self._lapsed = {}

    def _restore_message(self, m: Message, now: float) -> None:
        if m.state != VISIBLE and m.visible_at <= now:
            self._lapsed[m.message_id] = m.visible_at
        key = m.group_id or ""
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = Group(key)
        group.messages.append(m)
        super()._restore_message(m, now)

    def _restored(self, record: QueueRecord, now: float) -> None:
        self._rotation = OrderedDict()
        for group in list(self._groups.values()):
            self._refresh(group)
        self._restore_rotation(record)
        self._restore_attempts(record, now)
        numbers = [int(m.sequence_number) - SEQUENCE_BASE for m in self.log if m.sequence_number]
        self._sequence = max([record.sequence, *numbers])
        for key, text in record.dedup.items():
            try:
                message_id, number, expires = decode_dedup(text)
            except (ValueError, TypeError) as error:
                raise ValueError(f"deduplication entry {key!r}: {error}") from None
            if expires > now:
                self._dedup[key] = (message_id, number, expires)
                heapq.heappush(self._dedup_expiry, (expires, key))
            else:
                self.journal.record(Op("undedup", self.qid, key))

    def _kept_on_purge(self) -> str:
        return str(self._sequence)  # SequenceNumbers keep increasing across a purge

    def _clear(self) -> None:
        super()._clear()
        self._events = 0
        self._groups = {}
        self._rotation = OrderedDict()
        self._dedup = {}
        self._dedup_expiry = []
        self._attempts = {}
        self._attempt_expiry = []
