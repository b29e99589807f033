"""Read-only snapshots of stored messages, for ``peek()`` and the admin views.

A view is a copy taken under the queue lock: handing out the ``Message`` itself would let a
reader see (or change) delivery state that the queue goes on mutating. Time-driven transitions
that fell due but were not applied yet are shown as applied, without applying them: looking
never changes a queue.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .message import INFLIGHT, STATE_NAMES, VISIBLE, Message, MessageState, system_attributes

__all__ = ["MessageView", "snapshot", "view"]


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
