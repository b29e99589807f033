"""The call journal: every SQS call a mock answered, in order, for tests to assert on.

Recording sits on every call's path. An entry -- the request parameters and the answer in their
JSON-wire form, and what else a ``RecordedCall`` tells -- is kept, when it is small
(``PACKED_UP_TO`` bytes marshalled: nearly every call), as one ``marshal`` string: a copy (the
caller may reuse and change its own dicts and lists after the call) in a single object. A full
journal then holds ten thousand objects, not every dict, list and string of ten thousand calls:
what a call allocates dies with it and its memory is reused while it is still in the CPU's
caches, instead of the allocator handing each call memory last touched ten thousand calls ago
(that, not the copying, was most of what recording cost a server). It is written first and
measured only if it proves large: a small entry's size is measured when it is read. A larger
entry (a large body) keeps copies of its dicts and lists and shares its strings with the mock,
as does an entry holding a value ``marshal`` does not take. Reading decodes or copies an entry
afresh, so nothing a test does to it reaches the mock.

The journal is bounded twice: ``limit`` entries and ``byte_limit`` bytes (64 MiB by default),
oldest dropped first; the first drop warns once and ``dropped`` counts them, so a test never reads
a silently truncated history. An entry's bytes are counted as what it holds in memory: its
``marshal`` string, or a larger entry's dicts, lists and strings as CPython stores them. A
request larger than any SQS accepts, or a rejected one larger than ``REJECTED_KEPT`` (in
characters or in memory), is kept truncated (``journal_weights.cut``): strings cut to their first
``TRUNCATED_KEPT`` characters, lists and dicts to their first ``ITEMS_KEPT`` items, the entry
marked ``truncated``, its original ``size`` and the items ``omitted`` kept. So is an entry that
could not fit within ``byte_limit`` whole.

An ``unshared`` call (read off the wire, answered in bytes) waits to be written out with the
next ones, a batch costing a fraction of each call alone; every read writes them out first.

Reading pages through the history (``page``): each entry has a sequence number, and a page's
``next_token`` names the first entry of the next page, so paging stays right while calls arrive
and old entries drop. What a test reads (``RecordedCall``, ``CallPage``) is in ``recorded_call.py``,
how an entry is stored and read back in ``journal_entries.py``, what it weighs and how it is cut
in ``journal_weights.py``.
"""

from __future__ import annotations

import sys
import threading
import warnings
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from typing import Any, overload

from .._service.addresses import split_queue_url
from .journal_entries import (
    ENTRY_OVERHEAD,
    OVERSIZED,
    PACKED_UP_TO,
    REJECTED_KEPT,
    TRUNCATED_KEPT,
    Stored,
    check_limit,
    cost_of,
    cut,
    deferrable,
    measure,
    packed_form,
    read_entry,
    stored_form,
)
from .recorded_call import CallPage, RecordedCall, queue_name, snapshot

__all__ = [
    "DEFAULT_BYTE_LIMIT",
    "DEFAULT_LIMIT",
    "ENTRY_OVERHEAD",
    "OVERSIZED",
    "PACKED_UP_TO",
    "PAGE_SIZE",
    "REJECTED_KEPT",
    "TRUNCATED_KEPT",
    "CallJournal",
    "CallPage",
    "JournalFullWarning",
    "RecordedCall",
    "cut",
    "measure",
    "queue_name",
    "snapshot",
]

#: Entries a journal keeps unless told otherwise.
DEFAULT_LIMIT = 10_000
#: Bytes a journal keeps unless told otherwise (as counted: see the module's docstring).
DEFAULT_BYTE_LIMIT = 64 * 1024 * 1024
#: Calls a page holds unless asked for fewer (``page``, ``GET /_sqsmock/calls``).
PAGE_SIZE = 100
#: Unshared calls (``record``) written out together, and the byte limit's room it takes.
_BATCH, _DEFER_ROOM = 32, 16 * 1024 * 1024


class JournalFullWarning(UserWarning):
    """The call journal reached its limit and drops its oldest entries."""


class CallJournal:
    """The calls answered so far, oldest first: iterate it, index it, ``of(operation)``,
    ``page(...)``.

    Entries are kept as ``marshal`` strings (see the module's docstring) and become
    ``RecordedCall`` objects when read.
    """

    def __init__(
        self, limit: int | None = DEFAULT_LIMIT, byte_limit: int | None = DEFAULT_BYTE_LIMIT
    ) -> None:
        self._limit = check_limit("journal_limit", limit)
        self._byte_limit = check_limit("journal_byte_limit", byte_limit)
        self._switched_on = True
        #: Whether calls are recorded now (``recording``), read on every call.
        self.keeping = False
        #: Told whenever ``keeping`` changes (the runtime's event log follows it).
        self.on_change: Callable[[], None] | None = None
        self._bounds()
        #: Each entry's stored form: a ``marshal`` string, or (rarely) a tuple of copies.
        self._entries: deque[Stored] = deque()
        #: Unshared calls' fields, not written out yet: every read writes them out first.
        self._pending: deque[tuple[Any, ...]] = deque()
        self._lock = threading.Lock()
        self._bytes = 0
        self._seq = 0
        self._dropped = 0
        self._warned = False

    def _bounds(self) -> None:
        """What ``record`` compares with, set whenever a limit or the switch changes."""
        limit, byte_limit = self._limit, self._byte_limit
        keeping = self._switched_on and limit != 0 and byte_limit != 0
        changed = keeping != self.keeping
        self.keeping = keeping
        self._most = sys.maxsize if limit is None else limit
        #: ``byte_limit`` as a number: ``sys.maxsize`` for no limit.
        self.most_bytes = sys.maxsize if byte_limit is None else byte_limit
        if changed and self.on_change is not None:
            self.on_change()

    @property
    def recording(self) -> bool:
        """Whether calls (and message events) are recorded now: unless switched off
        (``recording = False``) or a limit is 0."""
        return self.keeping

    @recording.setter
    def recording(self, value: bool) -> None:
        self._fold()
        self._switched_on = bool(value)
        self._bounds()

    @property
    def limit(self) -> int | None:
        """At most this many entries are kept (None: no limit; 0: nothing is recorded).
        Lowering it drops the oldest entries at the next call."""
        return self._limit

    @limit.setter
    def limit(self, value: int | None) -> None:
        self._fold()
        self._limit = check_limit("journal_limit", value)
        self._bounds()

    @property
    def byte_limit(self) -> int | None:
        """At most this many bytes (as counted) are kept (None: no limit; 0: nothing is
        recorded). Lowering it drops the oldest entries at the next call."""
        return self._byte_limit

    @byte_limit.setter
    def byte_limit(self, value: int | None) -> None:
        self._fold()
        self._byte_limit = check_limit("journal_byte_limit", value)
        self._bounds()

    @property
    def bytes(self) -> int:
        """The bytes the entries kept now are counted as."""
        self._fold()
        with self._lock:  # (another thread may be writing out a batch)
            return self._bytes

    def record(
        self,
        operation: str,
        params: Mapping[str, Any],
        result: Any,
        region: str,
        account: str,
        time: float,
        injected: bool,
        unshared: bool = False,
    ) -> None:
        """Keep one answered call (``result``: its ``Result``). ``unshared``: nobody else holds
        its parameters or answer, so they may wait to be written out with the next ones."""
        error = result.error
        fields: Any = (
            operation,
            params,
            result.payload,
            None if error is None else error.code,
            result.status,
            region,
            account,
            time,
            result.request_id,
            injected,
        )
        if unshared and deferrable(operation, params, fields[2]):
            pending = self._pending
            # Once full (and warned), or while a batch fits: the warning then comes at the
            # call that fills the journal, as it does unbatched.
            if self._warned or (
                len(self._entries) + len(pending) + _BATCH <= self._most
                and self._bytes + _DEFER_ROOM <= self.most_bytes
            ):
                pending.append(fields)
                if len(pending) >= _BATCH:
                    self._write(None)
                return
        self._write(stored_form(fields, self.most_bytes))

    def _fold(self) -> None:
        """Write out the pending calls (before anything reads or changes the journal)."""
        if self._pending:
            self._write(None)

    def _write(self, new: tuple[Stored, int] | None) -> None:
        """Store the pending calls, then ``new`` (a stored form and its cost), and drop the
        oldest entries past the limits."""
        entries, pending, lock = self._entries, self._pending, self._lock
        lock.acquire()  # not ``with``: half the cost, on every call
        try:
            total, added = self._bytes, 0
            while pending:
                stored, cost = packed_form(pending.popleft(), self.most_bytes)  # deferrable
                entries.append(stored)
                total += cost
                added += 1
            if new is not None:
                entries.append(new[0])
                total += new[1]
                added += 1
            self._seq += added
            limit, byte_limit = self._most, self.most_bytes
            if total <= byte_limit and len(entries) <= limit:
                self._bytes = total
                return
            drops = 0
            while entries and (len(entries) > limit or total > byte_limit):
                total -= cost_of(entries.popleft())
                drops += 1
            self._bytes = total
            if not drops:
                return
            self._dropped += drops
            warn = not self._warned
            self._warned = True
        finally:
            lock.release()
        if warn:
            full = len(entries) >= limit
            what = f"{self.limit} calls" if full else f"{self._byte_limit} bytes"
            warnings.warn(
                f"sqsmock's call journal holds its limit of {what}: the oldest calls are "
                "dropped from now on (calls.dropped counts them; raise journal_limit or "
                "journal_byte_limit to keep more)",
                JournalFullWarning,
                stacklevel=4,
            )

    @property
    def dropped(self) -> int:
        """Entries dropped to stay within the limits since the last ``clear()``."""
        self._fold()
        with self._lock:
            return self._dropped

    # -- reading ----------------------------------------------------------------------------

    def _stored(self) -> tuple[int, list[Stored]]:
        """The sequence number of the oldest entry kept, and every entry as stored."""
        self._fold()
        with self._lock:
            stored = list(self._entries)
            return self._seq - len(stored), stored

    def _raw(self) -> list[tuple[Any, ...]]:
        """Every entry's fields."""
        return [read_entry(entry) for entry in self._stored()[1]]

    def _calls(self) -> list[RecordedCall]:
        return [_entry(raw) for raw in self._raw()]

    def of(self, operation: str, *, queue: str | None = None) -> list[RecordedCall]:
        """The calls of ``operation`` (e.g. ``"SendMessage"``), optionally on one queue (a name
        or a URL)."""
        name = split_queue_url(queue)[2] if queue is not None else None
        found = [_entry(raw) for raw in self._raw() if raw[0] == operation]
        return found if name is None else [e for e in found if e.queue == name]

    def page(
        self,
        limit: int = PAGE_SIZE,
        next_token: str | None = None,
        *,
        operation: str | None = None,
        queue: str | None = None,
        newest: bool = False,
    ) -> CallPage:
        """Up to ``limit`` calls, oldest first, from the one ``next_token`` names (a previous
        page's; None: the oldest kept), optionally of one ``operation`` and on one ``queue``.
        ``newest``: the last ``limit`` such calls instead (oldest first, no next page).

        Raises ``ValueError`` for a limit below 1 or a token this journal did not give. If the
        calls a token names were dropped meanwhile, the page starts at the oldest kept one.
        """
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise ValueError(f"limit must be a positive int, not {limit!r}")
        if newest:
            if next_token is not None:
                raise ValueError("newest pages have no next_token")
            return self._newest(limit, operation, queue)
        start = 0
        if next_token is not None:
            if not (isinstance(next_token, str) and next_token.isdigit()):
                raise ValueError(f"{next_token!r} is not a next_token of this call journal")
            start = int(next_token)
        name = split_queue_url(queue)[2] if queue else None
        first, stored = self._stored()
        i = max(0, start - first)
        calls: list[RecordedCall] = []
        while i < len(stored) and len(calls) < limit:  # entries decoded as the page needs them
            raw = read_entry(stored[i])
            i += 1
            if operation is not None and raw[0] != operation:
                continue
            if name is not None and queue_name(raw[1]) != name:
                continue
            calls.append(_entry(raw))
        more = i < len(stored) and len(calls) == limit
        return CallPage(calls, str(first + i) if more else None)

    def _newest(self, limit: int, operation: str | None, queue: str | None) -> CallPage:
        name = split_queue_url(queue)[2] if queue else None
        calls: list[RecordedCall] = []
        for entry in reversed(self._stored()[1]):  # decoded as the page needs them
            if len(calls) == limit:
                break
            raw = read_entry(entry)
            if operation is not None and raw[0] != operation:
                continue
            if name is not None and queue_name(raw[1]) != name:
                continue
            calls.append(_entry(raw))
        calls.reverse()
        return CallPage(calls, None)

    def clear(self) -> None:
        """Forget every entry (and the count of dropped ones)."""
        with self._lock:
            self._pending.clear()
            self._entries.clear()
            self._bytes = 0
            self._dropped = 0
            self._warned = False

    def __len__(self) -> int:
        self._fold()
        with self._lock:
            return len(self._entries)

    def __iter__(self) -> Iterator[RecordedCall]:
        return iter(self._calls())

    @overload
    def __getitem__(self, index: int) -> RecordedCall: ...

    @overload
    def __getitem__(self, index: slice) -> list[RecordedCall]: ...

    def __getitem__(self, index: int | slice) -> RecordedCall | list[RecordedCall]:
        if isinstance(index, slice):
            return [_entry(raw) for raw in self._raw()[index]]
        self._fold()
        with self._lock:
            stored = self._entries[index]
        return _entry(read_entry(stored))

    def __bool__(self) -> bool:
        return len(self) > 0

    def __repr__(self) -> str:
        dropped = self.dropped
        more = f", {dropped} dropped" if dropped else ""
        return f"<CallJournal {len(self)} calls{more}>"


def _entry(raw: tuple[Any, ...]) -> RecordedCall:
    return RecordedCall(*raw)
