"""ListDeadLetterSourceQueues and message move tasks (Start/Cancel/ListMessageMoveTasks)."""

from __future__ import annotations

from typing import Any

from .._engine.move_tasks import RUNNING, MoveTask
from .._errors import SqsError
from ._context import Call
from ._registry import Request, Response, action
from ._validate import optional_int, required_str
from .queues import page_of_urls

__all__: list[str] = []


@action(
    "ListDeadLetterSourceQueues",
    notes="`queueUrls`; `MaxResults`/`NextToken` paging",
)
def list_dead_letter_source_queues(call: Call, request: Request) -> Response:
    queue = call.queue(request)
    return page_of_urls(call, request, call.backend.dead_letter_sources(queue.arn), "queueUrls")


@action(
    "StartMessageMoveTask",
    notes="rate honoured on the virtual clock; back to the original sources or to a destination",
)
def start_message_move_task(call: Call, request: Request) -> Response:
    source = call.backend.by_arn(required_str(request, "SourceArn"))
    if source is None:
        raise SqsError("ArnDoesNotExist", name="SourceArn")
    if not call.backend.dead_letter_sources(source.arn):
        raise SqsError("SourceNotDeadLetterQueue")
    destination = None
    destination_arn = request.get("DestinationArn")
    if destination_arn:
        destination = call.backend.by_arn(str(destination_arn))
        if destination is None:
            raise SqsError("ArnDoesNotExist", name="DestinationArn")
        if destination.fifo != source.fifo:
            raise SqsError("MoveQueueTypeMismatch")
    rate = optional_int(request, "MaxNumberOfMessagesPerSecond", 1, 500, "MoveRateOutOfRange")
    task = call.backend.move_tasks.start(source, destination, rate)
    return {"TaskHandle": task.handle}


@action("CancelMessageMoveTask")
def cancel_message_move_task(call: Call, request: Request) -> Response:
    task = call.backend.move_tasks.cancel(required_str(request, "TaskHandle"))
    return {"ApproximateNumberOfMessagesMoved": task.moved}


def _entry(task: MoveTask) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if task.status == RUNNING:
        out["TaskHandle"] = task.handle
    out["Status"] = task.status
    out["SourceArn"] = task.source_arn
    if task.destination_arn is not None:
        out["DestinationArn"] = task.destination_arn
    if task.rate is not None:
        out["MaxNumberOfMessagesPerSecond"] = task.rate
    out["ApproximateNumberOfMessagesMoved"] = task.moved
    out["ApproximateNumberOfMessagesToMove"] = task.to_move
    if task.failure is not None:
        out["FailureReason"] = task.failure
    out["StartedTimestamp"] = int(task.started_at * 1000)
    return out


@action(
    "ListMessageMoveTasks",
    notes="every status",
)
def list_message_move_tasks(call: Call, request: Request) -> Response:
    source_arn = required_str(request, "SourceArn")
    if call.backend.by_arn(source_arn) is None:
        raise SqsError("ArnDoesNotExist", name="SourceArn")
    limit = optional_int(request, "MaxResults", 1, 10, "MoveTaskMaxResultsOutOfRange")
    tasks = call.backend.move_tasks.listing(source_arn, limit or 1)
    return {"Results": [_entry(task) for task in tasks]}
