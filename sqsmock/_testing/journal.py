"""The call journal: every SQS call a mock answered, in order, for tests to assert on.

Recording sits on every call's path, so it does as little as it can: it keeps the objects the
call already has -- the request parameters and the answer in their JSON-wire form -- and copies
only the containers of the parameters (dicts and lists; strings, bodies included, are shared,
never copied), because the caller may reuse and change its own dicts and lists after the call.
Answers are built fresh for each call and handed out only as copies, so they are kept as they
are; reading an entry gives a copy, so nothing a test does to it reaches the mock.

The journal is bounded (``limit`` entries, oldest dropped first); the first drop warns once and
``dropped`` counts them, so a test never reads a silently truncated history.
"""

from __future__ import annotations

import itertools
import warnings
from collections import deque
from collections.abc import Iterator, Mapping
from typing import Any, overload

from .._service._context import split_path

__all__ = ["DEFAULT_LIMIT", "CallJournal", "JournalFullWarning", "RecordedCall", "snapshot"]

#: Entries a journal keeps unless told otherwise.
DEFAULT_LIMIT = 10_000


class JournalFullWarning(UserWarning):
    """The call journal reached its limit and drops its oldest entries."""


def snapshot(value: Any) -> Any:
    """A copy of ``value``'s dicts and lists; everything else (strings, numbers) is shared."""
    kind = type(value)
    if kind is dict:
        out = value.copy()
        for key, item in out.items():
            kind = type(item)
            if kind is dict or kind is list:
                out[key] = snapshot(item)
        return out
    if kind is list:
        return [v if type(v) is str else snapshot(v) for v in value]
    return value


class RecordedCall:
    """One answered call.

    ``operation``; ``params`` and ``response`` in the JSON-wire form (AWS JSON 1.0: the names
    boto3 uses, binary values as base64 text); ``error`` -- the error code as the SDK shows it
    (``Error.Code``), None on success -- and ``status``; ``region``, ``account``; ``time`` on the
    mock's clock when the call arrived; ``injected``: answered by fault injection.
    """

    __slots__ = (
        "_params",
        "_response",
        "account",
        "error",
        "injected",
        "operation",
        "region",
        "request_id",
        "status",
        "time",
    )

    def __init__(
        self,
        operation: str,
        params: Mapping[str, Any],
        response: Mapping[str, Any] | None,
        error: str | None,
        status: int,
        region: str,
        account: str,
        time: float,
        request_id: str,
        injected: bool,
    ) -> None:
        self.operation = operation
        self._params = params
        self._response = response
        self.error = error
        self.status = status
        self.region = region
        self.account = account
        self.time = time
        self.request_id = request_id
        self.injected = injected

    @property
    def params(self) -> dict[str, Any]:
        """The request parameters (a copy)."""
        return snapshot(self._params)  # type: ignore[no-any-return]

    @property
    def response(self) -> dict[str, Any] | None:
        """The answer's parameters (a copy); None when the call failed."""
        return None if self._response is None else snapshot(self._response)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def queue(self) -> str | None:
        """The name of the queue the call named (``QueueUrl`` or ``QueueName``), if any."""
        return queue_name(self._params)

    def __repr__(self) -> str:
        outcome = self.error or "ok"
        queue = self.queue
        where = f" {queue}" if queue else ""
        return f"<RecordedCall {self.operation}{where} {outcome} t={self.time:.3f}>"


def queue_name(params: Mapping[str, Any]) -> str | None:
    """The queue a request names, by name: from ``QueueUrl`` (URL or name) or ``QueueName``."""
    url = params.get("QueueUrl")
    if isinstance(url, str) and url:
        return split_path(url)[2]
    name = params.get("QueueName")
    return name if isinstance(name, str) else None


class CallJournal:
    """The calls answered so far, oldest first: iterate it, index it, ``of(operation)``.

    Entries are kept as plain tuples (the cheapest thing to build on the call path) and become
    ``RecordedCall`` objects when read.
    """

    def __init__(self, limit: int | None = DEFAULT_LIMIT) -> None:
        if limit is not None and (
            not isinstance(limit, int) or isinstance(limit, bool) or limit < 0
        ):
            raise ValueError(f"journal_limit must be a non-negative int or None, not {limit!r}")
        #: At most this many entries are kept (None: no limit; 0: nothing is recorded).
        self.limit = limit
        self.recording = limit != 0
        self._entries: deque[tuple[Any, ...]] = deque(maxlen=limit)
        self._drops = itertools.count()
        self._warned = False

    def record(
        self,
        operation: str,
        params: Mapping[str, Any],
        result: Any,
        region: str,
        account: str,
        time: float,
        injected: bool,
    ) -> None:
        """Keep one answered call (``result``: its ``Result``)."""
        entries = self._entries
        if len(entries) == self.limit:
            next(self._drops)  # atomic, unlike ``+= 1`` on an attribute
            if not self._warned:
                self._warn()
        error = result.error
        # Plain values only (no ``Result``): a tuple of strings and flat dicts is not tracked by
        # the garbage collector, so a full journal does not make every collection longer.
        entries.append(
            (
                operation,
                snapshot(params),
                result.payload,
                None if error is None else error.code,
                result.status,
                result.request_id,
                region,
                account,
                time,
                injected,
            )
        )

    def _warn(self) -> None:
        self._warned = True
        warnings.warn(
            f"sqsmock's call journal holds its limit of {self.limit} calls: the oldest are "
            "dropped from now on (calls.dropped counts them; raise journal_limit to keep more)",
            JournalFullWarning,
            stacklevel=3,
        )

    @property
    def dropped(self) -> int:
        """Entries dropped to stay within ``limit`` since the last ``clear()``."""
        return int(repr(self._drops)[6:-1])  # "count(N)": read without advancing it

    # -- reading ----------------------------------------------------------------------------

    def _calls(self) -> list[RecordedCall]:
        return [_entry(raw) for raw in list(self._entries)]

    def of(self, operation: str, *, queue: str | None = None) -> list[RecordedCall]:
        """The calls of ``operation`` (e.g. ``"SendMessage"``), optionally on one queue (a name
        or a URL)."""
        name = split_path(queue)[2] if queue is not None else None
        found = [_entry(raw) for raw in list(self._entries) if raw[0] == operation]
        return found if name is None else [e for e in found if e.queue == name]

    def clear(self) -> None:
        """Forget every entry (and the count of dropped ones)."""
        self._entries.clear()
        self._drops = itertools.count()
        self._warned = False

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[RecordedCall]:
        return iter(self._calls())

    @overload
    def __getitem__(self, index: int) -> RecordedCall: ...

    @overload
    def __getitem__(self, index: slice) -> list[RecordedCall]: ...

    def __getitem__(self, index: int | slice) -> RecordedCall | list[RecordedCall]:
        if isinstance(index, slice):
            return [_entry(raw) for raw in list(self._entries)[index]]
        return _entry(self._entries[index])

    def __bool__(self) -> bool:
        return bool(self._entries)

    def __repr__(self) -> str:
        dropped = self.dropped
        more = f", {dropped} dropped" if dropped else ""
        return f"<CallJournal {len(self._entries)} calls{more}>"


def _entry(raw: tuple[Any, ...]) -> RecordedCall:
    operation, params, payload, error, status, request_id, region, account, time, injected = raw
    return RecordedCall(
        operation, params, payload, error, status, region, account, time, request_id, injected
    )
