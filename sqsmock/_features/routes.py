"""The journal and the fault rules over HTTP: what a server's ``/_sqsmock/...`` routes answer.

Framework-free, so any server front end wires it in one call: ``answer(runtime, method, path,
query, body)`` returns ``(status, JSON-able body)`` for the two resources, or None for any other
path.

* ``GET /_sqsmock/calls[?operation=SendMessage&queue=orders&limit=100&next_token=...]`` (or
  ``newest=true``: the last ``limit`` calls) -- the
  journal, oldest first, a page at a time (``PAGE_SIZE`` calls unless ``limit`` asks for fewer
  or more, up to ``MAX_PAGE``, and no more than ``PAGE_BYTES`` of JSON: a page of long calls
  stops early), with ``dropped`` and, when more calls follow, ``next_token`` to ask for the
  next page with; ``DELETE /_sqsmock/calls`` clears it.
* ``GET /_sqsmock/faults`` -- the rules in force; ``POST /_sqsmock/faults`` with a JSON object
  of ``faults.add``'s keywords adds one (answers it, 201); ``DELETE /_sqsmock/faults`` removes
  them all, ``DELETE /_sqsmock/faults/<id>`` one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._regions import shown
from .faults import Fault
from .journal import PAGE_SIZE, RecordedCall

__all__ = ["MAX_PAGE", "PAGE_BYTES", "PREFIX", "answer", "call_json", "fault_json", "whole_number"]

PREFIX = "/_sqsmock/"
#: The most calls one page of ``GET /_sqsmock/calls`` holds.
MAX_PAGE = 1000
#: A page of ``GET /_sqsmock/calls`` stops once its calls hold this many bytes of JSON (it
#: always holds one): a thousand calls near the journal's 64 KiB entry size would otherwise be
#: one answer of over 100 MiB, built at once.
PAGE_BYTES = 1024 * 1024
#: Calls read from the journal at a time while a page fills.
_CHUNK = 16

_FAULT_KEYWORDS = frozenset(
    {
        "operation",
        "error",
        "times",
        "probability",
        "queue",
        "entry_error",
        "entries",
        "latency",
        "error_params",
        "seed",
    }
)


def call_json(call: RecordedCall) -> dict[str, Any]:
    return {
        "operation": call.operation,
        "params": call.params,
        "response": call.response,
        "error": call.error,
        "status": call.status,
        "region": call.region,
        "account": call.account,
        "time": call.time,
        "request_id": call.request_id,
        "injected": call.injected,
        "size": call.size,
        "truncated": call.truncated,
        "omitted": call.omitted,
    }


def fault_json(fault: Fault) -> dict[str, Any]:
    return {
        "id": fault.id,
        "operation": sorted(fault.operations) if fault.operations is not None else None,
        "queue": fault.queue,
        "error": fault.error,
        "entry_error": fault.entry_error,
        "entries": sorted(fault.entries) if fault.entries is not None else None,
        "latency": fault.latency,
        "remaining": fault.remaining,
        "probability": fault.probability,
        "fired": fault.fired,
    }


def _error(status: int, message: str) -> tuple[int, dict[str, Any]]:
    return status, {"error": message}


def _shown(text: str) -> str:
    """A refused value as an error message quotes it: printable, cut short."""
    return repr(shown(text, 40))


def whole_number(text: str, digits: int) -> int | None:
    """``text`` as a whole number when it is 1 to ``digits`` ASCII digits, else None (no
    Unicode digit, sign, space or length that ``int()`` would refuse or take long on)."""
    if not 0 < len(text) <= digits or not text.isascii() or not text.isdigit():
        return None
    return int(text)


def _calls_page(journal: Any, query: Mapping[str, str]) -> tuple[int, Any]:
    text = query.get("limit")
    limit = PAGE_SIZE
    if text is not None:
        found = whole_number(text, 4)
        if found is None or not 1 <= found <= MAX_PAGE:
            return _error(
                400, f"limit must be a whole number from 1 to {MAX_PAGE}, not {_shown(text)}"
            )
        limit = found
    token = query.get("next_token") or None
    if token is not None and whole_number(token, 19) is None:
        return _error(
            400,
            f"next_token must be the next_token of an earlier page (up to 19 digits), "
            f"not {_shown(token)}",
        )
    filters = {"operation": query.get("operation") or None, "queue": query.get("queue") or None}
    try:
        if query.get("newest", "").lower() in ("1", "true"):
            if token is not None:
                raise ValueError("newest pages have no next_token")
            calls = _newest(journal.page(limit, newest=True, **filters).calls)
        else:
            calls, token = _bounded(journal, limit, token, filters)
    except ValueError as error:
        return _error(400, str(error))
    out: dict[str, Any] = {"calls": calls, "dropped": journal.dropped}
    if token is not None:
        out["next_token"] = token
    return 200, out


def _cost(call: dict[str, Any]) -> int:
    return len(json.dumps(call))


def _bounded(
    journal: Any, limit: int, token: str | None, filters: dict[str, Any]
) -> tuple[list[dict[str, Any]], str | None]:
    """Up to ``limit`` calls from ``token`` on, stopping once they hold ``PAGE_BYTES`` of JSON
    (at least one), and the token of the call after the last one (None: none follows)."""
    calls: list[dict[str, Any]] = []
    size = 0
    while len(calls) < limit and size < PAGE_BYTES:
        start = token
        chunk = journal.page(min(_CHUNK, limit - len(calls)), start, **filters)
        token = chunk.next_token
        for index, call in enumerate(chunk.calls):
            calls.append(call_json(call))
            size += _cost(calls[-1])
            if size >= PAGE_BYTES and index + 1 < len(chunk.calls):  # full within the chunk
                return calls, journal.page(index + 1, start, **filters).next_token
        if token is None:
            break
    return calls, token


def _newest(found: list[RecordedCall]) -> list[dict[str, Any]]:
    """The newest of ``found`` (oldest first) that fit in ``PAGE_BYTES`` of JSON (at least
    the newest one)."""
    calls: list[dict[str, Any]] = []
    size = 0
    for call in reversed(found):
        if calls and size >= PAGE_BYTES:
            break
        calls.append(call_json(call))
        size += _cost(calls[-1])
    calls.reverse()
    return calls


def answer(
    runtime: Any, method: str, path: str, query: Mapping[str, str], body: bytes
) -> tuple[int, Any] | None:
    """The answer to an admin request on the journal or the faults, or None (not ours)."""
    parts = [p for p in path[len(PREFIX) :].split("/") if p] if path.startswith(PREFIX) else []
    if not parts or parts[0] not in ("calls", "faults"):
        return None
    method = method.upper()
    if parts[0] == "calls" and len(parts) > 1:
        return _error(404, f"no such resource: {path}")
    if parts[0] == "calls":
        journal = runtime.journal
        if method == "GET":
            return _calls_page(journal, query)
        if method == "DELETE":
            journal.clear()
            return 204, None
        return _error(405, f"{method} is not allowed on /_sqsmock/calls")
    faults = runtime.faults
    if len(parts) == 2 and method == "DELETE":
        for fault in faults:
            if fault.id == parts[1]:
                fault.remove()
                return 204, None
        return _error(404, f"no fault rule {parts[1]!r}")
    if len(parts) != 1:
        return _error(404, f"no such resource: {path}")
    if method == "GET":
        return 200, {"faults": [fault_json(f) for f in faults]}
    if method == "DELETE":
        faults.clear()
        return 204, None
    if method != "POST":
        return _error(405, f"{method} is not allowed on /_sqsmock/faults")
    try:
        rule = json.loads(body or b"{}")
    except ValueError:
        return _error(400, "the body must be a JSON object of faults.add's keywords")
    if not isinstance(rule, dict):
        return _error(400, "the body must be a JSON object of faults.add's keywords")
    unknown = sorted(set(rule) - _FAULT_KEYWORDS)
    if unknown:
        return _error(400, f"unknown keywords {unknown}; known: {sorted(_FAULT_KEYWORDS)}")
    try:
        fault = faults.add(**rule)
    except (TypeError, ValueError) as error:
        return _error(400, str(error))
    return 201, fault_json(fault)


#: The keys of ``POST /_sqsmock/wait``'s JSON body.
_WAIT_KEYS = frozenset({"queue", "event", "count", "where", "timeout", "region"})
#: The longest wait over HTTP, in seconds.
MAX_WAIT = 3600.0


async def wait(runtime: Any, body: bytes) -> tuple[int, Any]:
    """``POST /_sqsmock/wait``: ``{"queue": ..., "event": "deleted", "count": 1, "where":
    <body string>, "timeout": 5, "region": ...}`` -- ``wait_for`` over HTTP, awaited on the
    server's loop. 200 with ``{"events": [...]}``, 408 with what did happen meanwhile, 503 if
    the server stops first."""
    from .events import events_json
    from .waiters import WaitTimeout

    expected = (
        'send a JSON object {"queue": <name or URL>, "event": "sent" | "received" | "deleted" '
        '| "dead-lettered", "count": N, "where": <body>, "timeout": <seconds>}'
    )
    try:
        fields = json.loads(body or b"{}")
    except ValueError:
        return _error(400, f"the body is not JSON: {expected}")
    if not isinstance(fields, dict):
        return _error(400, expected)
    unknown = sorted(set(fields) - _WAIT_KEYS)
    if unknown:
        return _error(400, f"unknown keys {unknown}; known: {sorted(_WAIT_KEYS)}")
    where = fields.get("where")
    if where is not None and not isinstance(where, str):
        return _error(400, '"where" is a message body (a string) to match')
    timeout = fields.get("timeout", 5.0)
    if not isinstance(timeout, bool) and isinstance(timeout, (int, float)) and timeout > MAX_WAIT:
        return _error(400, f'"timeout" is at most {MAX_WAIT:g} seconds')
    region = fields.get("region")
    if region is not None and not isinstance(region, str):
        return _error(400, '"region" is a region name')
    events = runtime.events
    try:
        query = events.query(
            fields.get("queue"),
            fields.get("event", "deleted"),
            fields.get("count", 1),
            where,
            region,
        )
        found = await events.wait_async(query, timeout)
    except (TypeError, ValueError) as error:
        return _error(400, str(error))
    except WaitTimeout as timed_out:
        if timed_out.stopped:
            return _error(503, "sqsmock is stopping")
        return 408, timed_out.to_json()
    return 200, {"events": events_json(found)[0]}
