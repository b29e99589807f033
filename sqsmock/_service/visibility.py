"""DeleteMessage, ChangeMessageVisibility and their batch forms (all by receipt handle)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._engine import Queue
from .._engine.receipts import decode_receipt
from .._errors import SqsError, batch_entry_error
from ._context import Call
from ._registry import Request, Response, action
from ._validate import RELAXED, batch_entries, optional_int

__all__: list[str] = []


def _handle(queue: Queue, params: dict[str, Any]) -> str:
    """The request's receipt handle, if sqsmock issued it for this queue."""
    handle = params.get("ReceiptHandle")
    if handle is None or handle == "":
        raise SqsError("MissingParameter", name="ReceiptHandle")
    if type(handle) is str and queue.issued(handle):  # the message's current handle
        return handle
    decoded = decode_receipt(str(handle))
    if decoded is None or decoded[0] != queue.arn:
        raise SqsError("ReceiptHandleIsInvalid", handle=handle)
    return str(handle)


def _delete_error(handle: str, reason: str | None) -> SqsError | None:
    if reason is None:
        return None
    return SqsError("ReceiptHandleExpired", value=handle)


def _visibility(params: dict[str, Any]) -> int:
    value = optional_int(params, "VisibilityTimeout", 0, 43200, "VisibilityTimeoutOutOfRange")
    if value is None:
        raise SqsError("MissingParameter", name="VisibilityTimeout")
    return value


def _visibility_error(handle: str, timeout: int, reason: str | None) -> SqsError | None:
    if reason is None:
        return None
    if reason == "limit":
        return SqsError("VisibilityTimeoutBeyondLimit", value=timeout)
    return SqsError("MessageNotInFlight", value=handle)


@action(
    "DeleteMessage",
    notes="idempotent; expired FIFO receipt handles refused",
)
def delete_message(call: Call, request: Request) -> Response:
    queue = call.queue(request)
    handle = _handle(queue, request)
    error = _delete_error(handle, queue.delete([handle])[0])
    if error is not None:
        raise error
    return {}


@action(
    "ChangeMessageVisibility",
    notes="12-hour cap; visibility 0 makes a message visible now",
)
def change_message_visibility(call: Call, request: Request) -> Response:
    queue = call.queue(request)
    handle = _handle(queue, request)
    timeout = _visibility(request)
    error = _visibility_error(handle, timeout, queue.change_visibility([(handle, timeout)])[0])
    if error is not None:
        raise error
    return {}


def _batch(
    call: Call,
    request: Request,
    entry_name: str,
    parse: Callable[[Queue, dict[str, Any]], Any],
    apply: Callable[[Queue, list[Any]], list[SqsError | None]],
) -> Response:
    """Shared shape of the two batch actions: per-entry failures do not fail the request."""
    queue = call.queue(request)
    entries = batch_entries(request, entry_name, RELAXED if call.backend.relaxed_limits else 10)
    failed: list[dict[str, object]] = []
    ok: list[tuple[str, Any]] = []
    for entry in entries:
        try:
            ok.append((entry["Id"], parse(queue, entry)))
        except SqsError as error:
            failed.append(batch_entry_error(entry["Id"], error))
    successful: list[dict[str, Any]] = []
    if ok:
        outcomes = apply(queue, [item for _, item in ok])
        for (entry_id, _), outcome in zip(ok, outcomes, strict=True):
            if outcome is None:
                successful.append({"Id": entry_id})
            else:
                failed.append(batch_entry_error(entry_id, outcome))
    order = {entry["Id"]: i for i, entry in enumerate(entries)}
    failed.sort(key=lambda f: order[str(f["Id"])])
    out: Response = {}
    if successful:  # SQS leaves out an empty list: no "Successful" when every entry failed
        out["Successful"] = successful
    if failed:
        out["Failed"] = failed
    return out


@action(
    "DeleteMessageBatch",
    notes="per-entry failures",
)
def delete_message_batch(call: Call, request: Request) -> Response:
    def apply(queue: Queue, handles: list[str]) -> list[SqsError | None]:
        reasons = queue.delete(handles)
        return [_delete_error(h, r) for h, r in zip(handles, reasons, strict=True)]

    return _batch(call, request, "DeleteMessageBatchRequestEntry", _handle, apply)


@action(
    "ChangeMessageVisibilityBatch",
    notes="per-entry failures",
)
def change_message_visibility_batch(call: Call, request: Request) -> Response:
    def parse(queue: Queue, entry: dict[str, Any]) -> tuple[str, int]:
        return _handle(queue, entry), _visibility(entry)

    def apply(queue: Queue, changes: list[tuple[str, int]]) -> list[SqsError | None]:
        reasons = queue.change_visibility(changes)
        return [_visibility_error(h, t, r) for (h, t), r in zip(changes, reasons, strict=True)]

    return _batch(call, request, "ChangeMessageVisibilityBatchRequestEntry", parse, apply)
