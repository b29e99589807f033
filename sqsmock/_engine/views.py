"""Read-only snapshots of stored messages, for ``peek()`` and the admin views.

A view is a copy taken under the queue lock: handing out the ``Message`` itself would let a
reader see (or change) delivery state that the queue goes on mutating. Time-driven transitions
that fell due but were not applied yet are shown as applied, without applying them: looking
never changes a queue.

A queue can hold a million messages, and a watcher (the web UI, a dashboard) asks again and
again, so a look can be a page (``page``): up to ``limit`` messages, and no more than about
``byte_limit`` bytes of them, from just after a message's sequence number. The page is found
by a binary search of the log (enqueue order is sequence order) and only its own messages are
viewed; a later page starts after the last message shown, so it stays right while messages
come and go around it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .message import INFLIGHT, STATE_NAMES, VISIBLE, Message, MessageState, system_attributes
from .tombstone import TombstoneLog

__all__ = ["HELD", "PAGE_BYTES", "MessageView", "Page", "page", "snapshot", "state_at", "view"]

#: A page stops once the messages in it hold this many bytes (it always holds one).
PAGE_BYTES = 1024 * 1024
#: ``state_at`` of a visible FIFO message whose group has a message in flight: not receivable.
HELD = 3


@dataclass(frozen=True)
class MessageView:
    """A read-only snapshot of a stored message, as ``peek()`` returns it."""

    message_id: str
    body: str
    state: MessageState
    receive_count: int
    attributes: dict[str, str]
    message_attributes: dict[str, dict[str, Any]] = field(default_factory=dict)
    group_id: str | None = None
    receipt_handle: str | None = None
    visible_at: float | None = None


class Page(NamedTuple):
    """Views of some of a queue's messages, and where the next page starts (the ``after`` to
    ask with; None when no message follows)."""

    views: list[MessageView]
    next_after: int | None


def view(m: Message, now: float) -> MessageView:
    """``m`` as of ``now``: a delay or visibility timeout that ended shows it visible."""
    state = m.state
    if state != VISIBLE and m.visible_at <= now:
        state = VISIBLE
    inflight = state == INFLIGHT
    return MessageView(
        message_id=m.message_id,
        body=m.body,
        state=STATE_NAMES[state],
        receive_count=m.receive_count,
        attributes=system_attributes(m, m.receive_count, m.first_receive_at),
        message_attributes=dict(m.attributes or {}),
        group_id=m.group_id,
        receipt_handle=m.receipt if inflight else None,
        visible_at=m.visible_at if state != VISIBLE else None,
    )


def snapshot(messages: Iterable[Message], now: float, oldest: float) -> list[MessageView]:
    """Views of ``messages`` as of ``now``, leaving out those sent at or before ``oldest``
    (past the retention period)."""
    return [view(m, now) for m in messages if m.sent_at > oldest]


def state_at(m: Message, now: float, held: set[str | None] | frozenset[str | None]) -> int:
    """``m``'s state as of ``now`` (VISIBLE, INFLIGHT, DELAYED), or HELD for a visible message
    of a group in ``held``."""
    state = m.state
    if state != VISIBLE and m.visible_at <= now:
        state = VISIBLE
    if state == VISIBLE and held and m.group_id in held:
        return HELD
    return state


def _held_groups(log: TombstoneLog[Message], now: float) -> set[str | None]:
    """The FIFO groups with a message in flight as of ``now`` (O(messages in flight))."""
    held: set[str | None] = set()
    for slot in log.inflight_slots():
        m = log.get(slot)
        if m is not None and m.state == INFLIGHT and m.visible_at > now and m.group_id:
            held.add(m.group_id)
    return held


def _first_slot_after(log: TombstoneLog[Message], after: int) -> int:
    """The first slot whose message was sent after sequence number ``after`` (binary search:
    slots are in sequence order; a run of tombstones is stepped over)."""
    low, high = 0, len(log)
    while low < high:
        middle = (low + high) // 2
        probe = middle
        found = log.get(probe)
        while found is None and probe + 1 < high:
            probe += 1
            found = log.get(probe)
        if found is None:  # tombstones from middle to high
            high = middle
        elif found.seq <= after:
            low = probe + 1
        else:
            high = middle
    return low


def page(
    log: TombstoneLog[Message],
    now: float,
    oldest: float,
    limit: int,
    after: int = 0,
    *,
    byte_limit: float = PAGE_BYTES,
    states: frozenset[int] | None = None,
) -> Page:
    """Up to ``limit`` views of the messages sent after sequence number ``after``, in enqueue
    order, stopping once they hold ``byte_limit`` bytes; only those whose ``state_at`` is in
    ``states`` (None: every one). Messages past retention (sent at or before ``oldest``) are
    left out. Work is O(log n) to find the start plus the messages stepped over."""
    held = _held_groups(log, now) if states is not None else set()
    slot, end = _first_slot_after(log, after), len(log)
    views: list[MessageView] = []
    size = 0
    last = after
    while slot < end and len(views) < limit and size < byte_limit:
        m = log.get(slot)
        slot += 1
        if m is None or m.sent_at <= oldest:
            continue
        last = m.seq
        if states is not None and state_at(m, now, held) not in states:
            continue
        views.append(view(m, now))
        size += m.size
    while slot < end and log.get(slot) is None:  # (compaction keeps tombstone runs short)
        slot += 1
    return Page(views, last if slot < end else None)
