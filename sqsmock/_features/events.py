"""What a wait hands out and raises: message events as records, and the two assertion errors.

The event log (``waiters.py``) keeps each event as a flat tuple (``Raw``) -- the cheapest thing
to keep on the engine's path -- and a wait turns the ones it reads into ``QueueEvent`` records
(``to_event``). A wait that fails raises ``WaitTimeout`` or ``UnexpectedEvent``, whose message
says what did happen (``describe_event``, ``describe_counts``). Plain data and text, apart from
the log and its waiting, so that the records' form is read in one place.

A record a wait keeps past the log's byte bound, or an answer of ``POST /_sqsmock/wait`` holds
past ``ANSWER_BYTES``, is cut short (``QueueEvent.cut``: its body and message attributes to their
first ``TRUNCATED_KEPT`` characters, marked ``truncated``), as the call journal cuts what it
keeps past its bounds: what sqsmock keeps or sends for a test to look back on stays bounded.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from .._engine.message import Message, id_text, system_attributes
from .._service.addresses import split_arn
from .journal_entries import TRUNCATED_KEPT, cut, measure

__all__ = [
    "ANSWER_BYTES",
    "EVENTS",
    "QueueEvent",
    "Raw",
    "UnexpectedEvent",
    "WaitTimeout",
    "Where",
    "describe_amount",
    "describe_counts",
    "describe_event",
    "describe_events",
    "events_json",
    "qid_of_arn",
    "shorten",
    "split_qid",
    "to_event",
]

#: The events a test can wait for, in the order a message lives them.
EVENTS = ("sent", "received", "deleted", "dead-lettered")
#: The most bytes of bodies and message attributes one answer of ``POST /_sqsmock/wait`` holds
#: whole; the events past it are cut short.
ANSWER_BYTES = 8 * 2**20
#: Matching events a time-out's message lists.
FOUND_SHOWN = 10


# A raw event: event, queue id, dead-letter queue id or None, time, size, then the message's
# id as it keeps it (``Message.id_key``), body, sender, sent time and its three compact records
# (``Message.compact_fields``: attributes, their MD5, trace header, MD5 of system attributes,
# dead-letter source; group, deduplication id, sequence number; receive count, first and last
# receive, receipt handle). Queue ids are "region/account/name", as the engine's.
Raw = tuple[Any, ...]
Where = Callable[["QueueEvent"], object] | str | None


@dataclass(frozen=True)
class QueueEvent:
    """Something that happened to a message, as a wait hands it out.

    ``event``: ``"sent"``, ``"received"`` (handed out by a receive), ``"deleted"`` (by
    DeleteMessage or DeleteMessageBatch) or ``"dead-lettered"`` (moved to the dead-letter queue
    by its source's RedrivePolicy); ``queue``, ``region``, ``account``: the queue it happened
    to (for a dead-lettered message, the queue it left; ``dead_letter_queue`` names the one it
    went to); ``attributes``: its system attributes as a receive would show them then;
    ``message_attributes`` in the form ``peek()`` shows; ``receive_count`` as of the event;
    ``time`` on the mock's clock; ``truncated``: the body and message attributes were cut to
    their first 1024 characters, as a wait keeps what it found past the event log's byte bound.
    """

    event: str
    queue: str
    region: str
    account: str
    message_id: str
    body: str
    attributes: dict[str, str] = field(hash=False)
    message_attributes: dict[str, dict[str, Any]] = field(hash=False)
    receive_count: int
    time: float
    dead_letter_queue: str | None = None
    truncated: bool = False

    def size(self) -> int:
        """Characters of its body and message attributes (what is cut short)."""
        return len(self.body) + measure(self.message_attributes)

    def cut(self) -> QueueEvent:
        """This record with its body and message attributes cut short."""
        return replace(
            self,
            body=self.body[:TRUNCATED_KEPT],
            message_attributes=cut(self.message_attributes)[0],
            truncated=True,
        )

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON-able dict (what ``POST /_sqsmock/wait`` answers)."""
        return {
            "event": self.event,
            "queue": self.queue,
            "region": self.region,
            "account": self.account,
            "message_id": self.message_id,
            "body": self.body,
            "attributes": dict(self.attributes),
            "message_attributes": {k: dict(v) for k, v in self.message_attributes.items()},
            "receive_count": self.receive_count,
            "time": self.time,
            "dead_letter_queue": self.dead_letter_queue,
            "truncated": self.truncated,
        }


class WaitTimeout(AssertionError):
    """``wait_for`` saw fewer matching events than asked for before its time-out (or the mock
    stopped). ``found``: the matching events seen; ``counts``: that queue's events by kind
    since the mock started or was reset, and ``during`` the wait; ``last``: its last few
    events; ``stopped``: the mock stopped before the time-out."""

    def __init__(
        self,
        text: str,
        found: list[QueueEvent],
        counts: dict[str, int],
        during: dict[str, int],
        last: list[QueueEvent],
        stopped: bool = False,
    ) -> None:
        super().__init__(text)
        self.stopped = stopped
        self.found = found
        self.counts = counts
        self.during = during
        self.last = last

    def to_json(self) -> dict[str, Any]:
        """What ``POST /_sqsmock/wait`` answers with its 408: ``found`` and ``last`` together
        hold at most ``ANSWER_BYTES`` of messages whole."""
        found, room = events_json(self.found)
        return {
            "error": str(self),
            "found": found,
            "counts": self.counts,
            "during_wait": self.during,
            "last": events_json(self.last, room)[0],
        }


class UnexpectedEvent(AssertionError):
    """``expect_none`` saw a matching event (``event``) within its window."""

    def __init__(self, text: str, event: QueueEvent) -> None:
        super().__init__(text)
        self.event = event


def qid_of_arn(arn: str | None) -> str:
    found = split_arn(arn) if arn else None
    return "/".join(found) if found is not None else ""


def split_qid(qid: str) -> tuple[str, str, str]:
    region, account, name = [*qid.split("/", 2), "", "", ""][:3]
    return region, account, name


def to_event(raw: Raw) -> QueueEvent:
    event, qid, dlq, now, _, id_key, body, sender_id, sent_at, extra, fifo, received = raw
    message_id = id_text(id_key)
    attributes, _, trace_header, _, source = extra
    group_id, dedup_id, sequence_number = fifo
    receive_count, first_receive_at, _, _ = received
    m = Message(
        message_id,
        body,
        "",
        sender_id=sender_id,
        trace_header=trace_header,
        group_id=group_id,
        dedup_id=dedup_id,
    )
    m.sent_at, m.sequence_number, m.dlq_source_arn = sent_at, sequence_number, source
    region, account, name = split_qid(qid)
    return QueueEvent(
        event=event,
        queue=name,
        region=region,
        account=account,
        message_id=message_id,
        body=body,
        attributes=system_attributes(m, receive_count, first_receive_at),
        message_attributes={k: dict(v) for k, v in (attributes or {}).items()},
        receive_count=receive_count,
        time=now,
        dead_letter_queue=None if dlq is None else split_qid(dlq)[2],
    )


def events_json(
    events: Iterable[QueueEvent], room: int | None = None
) -> tuple[list[dict[str, Any]], int]:
    """The records as JSON, whole while their sizes fit in ``room`` bytes (``ANSWER_BYTES``)
    and cut short after; and the room left."""
    if room is None:
        room = ANSWER_BYTES
    out = []
    for e in events:
        size = e.size()
        if size > room and not e.truncated:
            e = e.cut()
            size = e.size()
        room -= size
        out.append(e.to_json())
    return out, room


def shorten(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def describe_amount(size: int) -> str:
    return f"{size / 2**20:g} MiB" if size >= 2**20 else f"{size} bytes"


def describe_counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{event} {n}" for event, n in counts.items())


def describe_events(events: list[QueueEvent]) -> str:
    """The first ``FOUND_SHOWN`` events, and how many more."""
    text = ", ".join(describe_event(e) for e in events[:FOUND_SHOWN])
    more = len(events) - FOUND_SHOWN
    return text + (f" and {more} more" if more > 0 else "")


def describe_event(e: QueueEvent) -> str:
    when = datetime.datetime.fromtimestamp(e.time, datetime.timezone.utc).strftime("%H:%M:%S.%f")
    into = f" into {e.dead_letter_queue!r}" if e.dead_letter_queue else ""
    return (
        f"{when[:-3]} {e.event}{into} {e.message_id} body {shorten(e.body)} "
        f"receive count {e.receive_count}"
    )
