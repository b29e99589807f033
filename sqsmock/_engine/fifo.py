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

With a store, a restarted queue answers as the one before it would have: the rotation's order
is part of the answer. A group joins the back of the rotation either during a call (its head
was sent, deleted, made visible) or when time passes (its head's visibility timeout or delay
ends). Calls write a *ticket* per group (state ``r:<group>``): ``[0, when, n]`` when it joined,
``[1, n]`` when it left by delivering, ``n`` counting the queue's events (one per receive).
Lapses are not written
(time-driven transitions never are); a restore orders ready groups as memory would have:
a lapse at ``T`` comes before a join at ``T`` in a later call, lapses due together go in the
timer heap's order (enqueue order), and a lapse due at the very moment of its receive
(VisibilityTimeout 0) comes after every event of that receive. Receive attempts
(``ReceiveRequestAttemptId``) are kept too (state ``a:<id>``), so a retry after a restart gets
the same messages.
"""

from __future__ import annotations

import heapq
import json
import math
from collections import OrderedDict, deque
from typing import Any

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
#: Names of the queue's stored state: a group's rotation ticket, a receive attempt.
_TICKET = "r:"
_ATTEMPT = "a:"


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
                self.journal.record(Op("unstate", self.qid, _ATTEMPT + attempt))

    # -- group readiness --------------------------------------------------------------------

    def _refresh(self, group: _Group) -> None:
        """Keep the invariant: a group is in the rotation iff its head is visible."""
        group.compact()
        head = group.head()
        if head is None:
            self._rotation.pop(group.key, None)
            del self._groups[group.key]
            if self.journal.ops is not None:
                self.journal.record(Op("unstate", self.qid, _TICKET + group.key))
        elif head.state == VISIBLE:
            if group.key not in self._rotation:
                self._rotation[group.key] = None
                if not self._quiet and self.journal.ops is not None:
                    self._events += 1
                    ticket = f"[0,{self.clock.now()!r},{self._events}]"
                    self.journal.record(Op("state", self.qid, _TICKET + group.key, ticket))
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
            self.journal.record(Op("state", self.qid, _ATTEMPT + attempt_id, json.dumps(record)))

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
                    if policy is not None and exhausted(policy, m, self._resolve):
                        dead.append(self._take_out(m))
                        continue
                    out.append(self._deliver(m, vt, now))
                self._refresh(group)
                if key not in rotation and key in self._groups and self.journal.ops is not None:
                    ticket = f"[1,{call}]"
                    self.journal.record(Op("state", self.qid, _TICKET + key, ticket))
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
            group = self._groups[key] = _Group(key)
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

    def _restore_rotation(self, record: QueueRecord) -> None:
        """Put the ready groups in the order memory had them in (see the module docstring)."""
        tickets: dict[str, list[Any]] = {}
        for name, text in record.state.items():
            if not name.startswith(_TICKET):
                continue
            try:
                ticket = json.loads(text)
                if not isinstance(ticket, list) or ticket[0] not in (0, 1):
                    raise ValueError("not a ticket")
                numbers = ticket[1:]
                if len(numbers) != (2 if ticket[0] == 0 else 1) or not all(
                    isinstance(n, (int, float)) and math.isfinite(n) for n in numbers
                ):
                    raise ValueError("not a ticket")
            except (ValueError, TypeError, IndexError):
                raise ValueError(f"rotation ticket {name!r}: {text!r}") from None
            tickets[name[len(_TICKET) :]] = ticket
            self._events = max(self._events, int(ticket[-1]))

        def order(key: str) -> tuple[float, float, int, int]:
            """When the group last joined: a call's join, or its head's lapse if later."""
            head = self._groups[key].head()
            assert head is not None
            ticket = tickets.get(key)
            joins = [(-math.inf, 0.0, 0, head.seq)]  # no ticket (older data): enqueue order
            if ticket is not None and ticket[0] == 0:
                joins.append((ticket[1], ticket[2], 0, 0))
            lapsed = self._lapsed.get(head.message_id)
            if lapsed is not None:  # time made it visible: after the receive that took it
                at_once = ticket is not None and ticket[0] == 1 and head.received_at == lapsed
                joins.append((lapsed, ticket[1] if at_once and ticket else 0.0, 1, head.seq))
            return max(joins)

        self._rotation = OrderedDict((key, None) for key in sorted(self._rotation, key=order))

    def _restore_attempts(self, record: QueueRecord, now: float) -> None:
        for name, text in record.state.items():
            if not name.startswith(_ATTEMPT):
                continue
            attempt = name[len(_ATTEMPT) :]
            try:
                expires, delivered = json.loads(text)
                entries: list[tuple[Message, str, int]] = []
                for message_id, receipt, visible_at in delivered:
                    slot = self.log.index_of_id(message_id)
                    m = None if slot is None else self.log.get(slot)
                    if (
                        m is None
                        or m.state != INFLIGHT  # its visibility lapsed: the attempt is void
                        or m.receipt != receipt
                        or m.visible_at != visible_at
                    ):
                        entries = []  # the attempt no longer holds: it is not retried
                        break
                    entries.append((m, receipt, m.gen))
            except (ValueError, TypeError) as error:
                raise ValueError(f"receive attempt {attempt!r}: {error}") from None
            if not isinstance(expires, (int, float)) or not math.isfinite(expires):
                raise ValueError(f"receive attempt {attempt!r}: not an expiry ({expires!r})")
            if expires <= now or not entries:
                self.journal.record(Op("unstate", self.qid, name))
                continue
            self._attempts[attempt] = (float(expires), entries)
            heapq.heappush(self._attempt_expiry, (float(expires), attempt))

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
