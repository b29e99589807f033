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
"""

from __future__ import annotations

import heapq
from collections import OrderedDict, deque

from .._store import Op, QueueRecord
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


#: A group's deque is compacted once it holds more removed messages than this and than live
#: ones (amortised O(1) per removal, like the log's compaction).
GROUP_COMPACT_MIN_DEAD = 32


class _Group:
    __slots__ = ("dead", "key", "messages")

    def __init__(self, key: str) -> None:
        self.key = key
        self.messages: deque[Message] = deque()
        #: Removed messages still in ``messages`` (behind a live head, or not yet dropped).
        self.dead = 0

    def head(self) -> Message | None:
        """The first live message (dropping removed ones from the front)."""
        messages = self.messages
        while messages and messages[0].slot < 0:
            messages.popleft()
            self.dead -= 1
        return messages[0] if messages else None

    def compact(self) -> None:
        """Drop removed messages from anywhere in the group, once they outnumber live ones.

        Without this, messages deleted behind a head that is never deleted (received again and
        again) would stay in the deque, and every receive of the group would step over them.
        """
        if self.dead > GROUP_COMPACT_MIN_DEAD and 2 * self.dead > len(self.messages):
            self.messages = deque(m for m in self.messages if m.slot >= 0)
            self.dead = 0


class FifoQueue(Queue):
    fifo = True

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        #: Deduplication scope, fixed at creation (changing the attribute later has no effect).
        self.dedup_scope = self.config.attributes["DeduplicationScope"]
        self._groups: dict[str, _Group] = {}
        self._rotation: OrderedDict[str, None] = OrderedDict()
        self._dedup: dict[str, tuple[str, str | None, float]] = {}
        self._dedup_expiry: list[tuple[float, str]] = []
        #: ReceiveRequestAttemptId -> (expiry, [(message, receipt handle, generation)]).
        self._attempts: dict[str, tuple[float, list[tuple[Message, str, int]]]] = {}
        self._attempt_expiry: list[tuple[float, str]] = []
        self._sequence = 0
        self._taking = False

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
            group = self._groups[key] = _Group(key)
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

    # -- group readiness --------------------------------------------------------------------

    def _refresh(self, group: _Group) -> None:
        """Keep the invariant: a group is in the rotation iff its head is visible."""
        group.compact()
        head = group.head()
        if head is None:
            self._rotation.pop(group.key, None)
            del self._groups[group.key]
        elif head.state == VISIBLE:
            if group.key not in self._rotation:
                self._rotation[group.key] = None
        else:
            self._rotation.pop(group.key, None)

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
                return again
        got = super()._receive(max_messages, vt, polling, attempt_id, dead)
        if attempt_id is not None and got:
            expires = self.clock.now() + ATTEMPT_WINDOW
            entries = [(r.message, r.receipt, r.message.gen) for r in got]
            self._attempts[attempt_id] = (expires, entries)
            heapq.heappush(self._attempt_expiry, (expires, attempt_id))
        return got

    def _take(self, max_messages: int, vt: int, now: float, dead: list[Message]) -> list[Received]:
        out: list[Received] = []
        rotation = self._rotation
        policy = self.config.redrive
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
                    if policy is not None and exhausted(policy, m, self._resolve):
                        dead.append(self._take_out(m))
                        continue
                    out.append(self._deliver(m, vt, now))
                self._refresh(group)
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

    def _restore_message(self, m: Message, now: float) -> None:
        key = m.group_id or ""
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = _Group(key)
        group.messages.append(m)
        super()._restore_message(m, now)

    def _restored(self, record: QueueRecord, now: float) -> None:
        self._rotation = OrderedDict()
        for group in list(self._groups.values()):
            self._refresh(group)
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
        self._groups = {}
        self._rotation = OrderedDict()
        self._dedup = {}
        self._dedup_expiry = []
        self._attempts = {}
        self._attempt_expiry = []
