"""Message move tasks: StartMessageMoveTask, ListMessageMoveTasks and CancelMessageMoveTask."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import ClientError
from sqs_asserts import assert_error

pytestmark = pytest.mark.sqsmock(clock="frozen")

ARN_PREFIX = "arn:aws:sqs:us-east-1:123456789012:"
VISIBILITY = 5
NOT_A_DLQ = "Source queue must be configured as a Dead Letter Queue."
ALREADY_RUNNING = (
    "There is already a task running. Only one active task is allowed for a source queue arn at "
    "a given time."
)
BAD_HANDLE = "Value for parameter TaskHandle is invalid."
NO_TASK = "Task does not exist."


def assert_invalid_parameter(
    exc: pytest.ExceptionInfo[ClientError], message: str | None = None
) -> None:
    assert_error(exc, "InvalidParameterValue", "InvalidParameterValueException", message)


def assert_not_found(exc: pytest.ExceptionInfo[ClientError], message: str | None = None) -> None:
    assert_error(exc, "ResourceNotFoundException", "ResourceNotFoundException", message, 404)


def arn_of(client: Any, url: str) -> str:
    return client.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]


def visible(client: Any, url: str) -> int:
    return int(
        client.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])[
            "Attributes"
        ]["ApproximateNumberOfMessages"]
    )


def receive_bodies(client: Any, url: str) -> list[str]:
    out: list[str] = []
    while True:
        messages = client.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not messages:
            return out
        out += [m["Body"] for m in messages]


class Setup:
    """A DLQ with one source queue redriving to it (maxReceiveCount 1) and a spare queue."""

    def __init__(self, client: Any, mock: Any) -> None:
        self.client = client
        self.mock = mock
        self.dlq = client.create_queue(QueueName="dlq")["QueueUrl"]
        self.dlq_arn = arn_of(client, self.dlq)
        self.source = self.add_source("source")
        self.source_arn = arn_of(client, self.source)
        self.other = client.create_queue(QueueName="other")["QueueUrl"]
        self.other_arn = arn_of(client, self.other)

    def add_source(self, name: str) -> str:
        policy = json.dumps({"deadLetterTargetArn": self.dlq_arn, "maxReceiveCount": 1})
        return self.client.create_queue(
            QueueName=name,
            Attributes={"RedrivePolicy": policy, "VisibilityTimeout": str(VISIBILITY)},
        )["QueueUrl"]

    def fill_directly(self, count: int) -> None:
        """Send messages straight into the DLQ."""
        for i in range(count):
            self.client.send_message(QueueUrl=self.dlq, MessageBody=f"m{i}")

    def dead_letter(self, source: str, bodies: list[str]) -> None:
        """Send through ``source`` and let each message be moved to the DLQ by redrive."""
        for body in bodies:
            self.client.send_message(QueueUrl=source, MessageBody=body)
        before = visible(self.client, self.dlq)
        rounds = len(bodies) // 10 + 2
        for _ in range(rounds):
            self.client.receive_message(QueueUrl=source, MaxNumberOfMessages=10)
        self.mock.clock.advance(VISIBILITY + 1)
        for _ in range(rounds):
            self.client.receive_message(QueueUrl=source, MaxNumberOfMessages=10)
        assert visible(self.client, self.dlq) == before + len(bodies)

    def start(self, **kwargs: Any) -> str:
        return self.client.start_message_move_task(SourceArn=self.dlq_arn, **kwargs)["TaskHandle"]

    def tasks(self, **kwargs: Any) -> list[dict[str, Any]]:
        return self.client.list_message_move_tasks(SourceArn=self.dlq_arn, **kwargs).get(
            "Results", []
        )

    def latest(self) -> dict[str, Any]:
        (task,) = self.tasks()
        return task

    def run(self, seconds: float) -> dict[str, Any]:
        """Advance the mock's clock and return the latest task."""
        self.mock.clock.advance(seconds)
        return self.latest()


@pytest.fixture
def setup(sqs_client: Any, sqs_mock: Any) -> Setup:
    return Setup(sqs_client, sqs_mock)


# --- starting ---------------------------------------------------------------------------------


def test_start_returns_a_task_handle(setup):
    setup.fill_directly(3)
    handle = setup.start(DestinationArn=setup.other_arn)
    assert isinstance(handle, str)
    assert handle


def test_move_back_to_original_sources(setup):
    second = setup.add_source("second-source")
    setup.dead_letter(setup.source, ["s1", "s2"])
    setup.dead_letter(second, ["t1", "t2", "t3"])
    setup.start()
    task = setup.run(60)
    assert task["Status"] == "COMPLETED"
    assert sorted(receive_bodies(setup.client, setup.source)) == ["s1", "s2"]
    assert sorted(receive_bodies(setup.client, second)) == ["t1", "t2", "t3"]
    assert visible(setup.client, setup.dlq) == 0


def test_move_to_explicit_destination(setup):
    setup.dead_letter(setup.source, ["a", "b"])
    setup.start(DestinationArn=setup.other_arn)
    task = setup.run(60)
    assert task["Status"] == "COMPLETED"
    assert sorted(receive_bodies(setup.client, setup.other)) == ["a", "b"]
    assert visible(setup.client, setup.source) == 0
    assert visible(setup.client, setup.dlq) == 0


def test_moved_messages_get_new_message_ids(setup, sqs_mock):
    setup.fill_directly(4)
    old_ids = {view.message_id for view in sqs_mock.peek(setup.dlq)}
    assert len(old_ids) == 4
    setup.start(DestinationArn=setup.other_arn)
    setup.run(60)
    moved = setup.client.receive_message(QueueUrl=setup.other, MaxNumberOfMessages=10)["Messages"]
    assert sorted(m["Body"] for m in moved) == ["m0", "m1", "m2", "m3"]
    new_ids = {m["MessageId"] for m in moved}
    assert len(new_ids) == 4
    assert not new_ids & old_ids


def test_source_that_is_not_a_dlq_is_invalid(setup):
    with pytest.raises(ClientError) as exc:
        setup.client.start_message_move_task(SourceArn=setup.other_arn)
    assert_invalid_parameter(exc, NOT_A_DLQ)


def test_unknown_source_is_not_found(setup):
    with pytest.raises(setup.client.exceptions.ResourceNotFoundException) as exc:
        setup.client.start_message_move_task(SourceArn=ARN_PREFIX + "missing")
    assert_not_found(exc)


def test_unknown_destination_is_not_found(setup):
    setup.fill_directly(1)
    with pytest.raises(setup.client.exceptions.ResourceNotFoundException) as exc:
        setup.start(DestinationArn=ARN_PREFIX + "missing")
    assert_not_found(exc)
    assert visible(setup.client, setup.dlq) == 1


def test_second_task_while_one_is_running_is_refused(setup):
    setup.fill_directly(10)
    setup.start(DestinationArn=setup.other_arn, MaxNumberOfMessagesPerSecond=1)
    with pytest.raises(ClientError) as exc:
        setup.start(DestinationArn=setup.other_arn)
    assert exc.value.response["Error"]["Message"] == ALREADY_RUNNING
    assert len(setup.tasks(MaxResults=10)) == 1


def test_new_task_may_start_after_the_previous_completed(setup):
    setup.fill_directly(2)
    first = setup.start(DestinationArn=setup.other_arn)
    assert setup.run(60)["Status"] == "COMPLETED"
    setup.fill_directly(2)
    second = setup.start(DestinationArn=setup.other_arn)
    assert second != first
    assert setup.run(60)["Status"] == "COMPLETED"
    assert visible(setup.client, setup.other) == 4


def test_rate_above_500_is_invalid(setup):
    setup.fill_directly(1)
    with pytest.raises(ClientError) as exc:
        setup.start(DestinationArn=setup.other_arn, MaxNumberOfMessagesPerSecond=501)
    assert_invalid_parameter(exc)


def test_rate_is_honoured_on_the_mock_clock(setup):
    setup.fill_directly(50)
    setup.start(DestinationArn=setup.other_arn, MaxNumberOfMessagesPerSecond=10)
    task = setup.run(1)
    assert task["Status"] == "RUNNING"
    assert 8 <= task["ApproximateNumberOfMessagesMoved"] <= 12
    assert 8 <= visible(setup.client, setup.other) <= 12
    task = setup.run(4)
    assert task["Status"] == "COMPLETED"
    assert task["ApproximateNumberOfMessagesMoved"] == 50
    assert visible(setup.client, setup.other) == 50
    assert visible(setup.client, setup.dlq) == 0


# --- listing ----------------------------------------------------------------------------------


def test_running_task_entry(setup, sqs_mock):
    setup.fill_directly(5)
    started_ms = sqs_mock.clock.now() * 1000
    handle = setup.start(MaxNumberOfMessagesPerSecond=1, DestinationArn=setup.other_arn)
    task = setup.latest()
    assert task["Status"] == "RUNNING"
    assert task["TaskHandle"] == handle
    assert task["SourceArn"] == setup.dlq_arn
    assert task["DestinationArn"] == setup.other_arn
    assert task["ApproximateNumberOfMessagesToMove"] == 5
    assert isinstance(task["ApproximateNumberOfMessagesMoved"], int)
    assert isinstance(task["StartedTimestamp"], int)
    assert abs(task["StartedTimestamp"] - started_ms) <= 1000
    assert "FailureReason" not in task


def test_completed_task_entry(setup):
    setup.fill_directly(3)
    setup.start(DestinationArn=setup.other_arn)
    task = setup.run(60)
    assert task["Status"] == "COMPLETED"
    assert "TaskHandle" not in task
    assert task["ApproximateNumberOfMessagesMoved"] == 3
    assert task["ApproximateNumberOfMessagesToMove"] == 3
    assert task["SourceArn"] == setup.dlq_arn
    assert "FailureReason" not in task


def test_destination_arn_listed_only_when_given(setup):
    setup.dead_letter(setup.source, ["a"])
    setup.start()
    task = setup.latest()
    assert task["SourceArn"] == setup.dlq_arn
    assert "DestinationArn" not in task


def test_list_returns_most_recent_task_by_default(setup):
    setup.fill_directly(2)
    setup.start(DestinationArn=setup.other_arn)
    setup.run(60)
    setup.fill_directly(10)
    handle = setup.start(DestinationArn=setup.other_arn, MaxNumberOfMessagesPerSecond=1)
    tasks = setup.tasks()
    assert len(tasks) == 1
    assert tasks[0]["Status"] == "RUNNING"
    assert tasks[0]["TaskHandle"] == handle


def test_list_with_max_results_returns_recent_tasks_newest_first(setup):
    for _ in range(3):
        setup.fill_directly(1)
        setup.start(DestinationArn=setup.other_arn)
        setup.run(60)
    setup.fill_directly(10)
    setup.start(DestinationArn=setup.other_arn, MaxNumberOfMessagesPerSecond=1)
    statuses = [task["Status"] for task in setup.tasks(MaxResults=10)]
    assert statuses == ["RUNNING", "COMPLETED", "COMPLETED", "COMPLETED"]
    assert len(setup.tasks(MaxResults=2)) == 2


def test_list_max_results_above_ten_is_invalid(setup):
    with pytest.raises(ClientError) as exc:
        setup.tasks(MaxResults=11)
    assert_invalid_parameter(exc)


def test_list_tasks_of_unknown_source_is_not_found(setup):
    with pytest.raises(setup.client.exceptions.ResourceNotFoundException) as exc:
        setup.client.list_message_move_tasks(SourceArn=ARN_PREFIX + "missing")
    assert_not_found(exc)


def test_list_tasks_before_any_task_is_empty(setup):
    assert setup.tasks() == []


# --- cancelling -------------------------------------------------------------------------------


def test_cancel_stops_the_task(setup):
    setup.fill_directly(10)
    handle = setup.start(DestinationArn=setup.other_arn, MaxNumberOfMessagesPerSecond=1)
    setup.run(2)
    response = setup.client.cancel_message_move_task(TaskHandle=handle)
    assert isinstance(response["ApproximateNumberOfMessagesMoved"], int)
    task = setup.latest()
    assert task["Status"] in ("CANCELLING", "CANCELLED")
    assert "TaskHandle" not in task
    task = setup.run(30)
    assert task["Status"] == "CANCELLED"
    moved = visible(setup.client, setup.other)
    assert moved < 10
    assert moved + visible(setup.client, setup.dlq) == 10


def test_cancel_with_malformed_handle_is_invalid(setup):
    with pytest.raises(ClientError) as exc:
        setup.client.cancel_message_move_task(TaskHandle="garbage")
    assert_invalid_parameter(exc, BAD_HANDLE)


def test_cancel_unknown_task_is_not_found(setup, sqs_mock):
    setup.fill_directly(10)
    handle = setup.start(DestinationArn=setup.other_arn, MaxNumberOfMessagesPerSecond=1)
    sqs_mock.reset()
    with pytest.raises(setup.client.exceptions.ResourceNotFoundException) as exc:
        setup.client.cancel_message_move_task(TaskHandle=handle)
    assert_not_found(exc, NO_TASK)


def test_task_may_start_again_after_cancel(setup):
    setup.fill_directly(10)
    handle = setup.start(DestinationArn=setup.other_arn, MaxNumberOfMessagesPerSecond=1)
    setup.client.cancel_message_move_task(TaskHandle=handle)
    assert setup.run(30)["Status"] == "CANCELLED"
    setup.start(DestinationArn=setup.other_arn)
    assert setup.run(60)["Status"] == "COMPLETED"
    assert visible(setup.client, setup.other) == 10


# --- failing ----------------------------------------------------------------------------------


def test_task_fails_when_destination_is_deleted(setup):
    setup.fill_directly(10)
    setup.start(DestinationArn=setup.other_arn, MaxNumberOfMessagesPerSecond=1)
    setup.run(2)
    setup.client.delete_queue(QueueUrl=setup.other)
    task = setup.run(30)
    assert task["Status"] == "FAILED"
    assert isinstance(task["FailureReason"], str)
    assert task["FailureReason"]
    assert "TaskHandle" not in task


# --- messages without a source ---------------------------------------------------------------


def test_message_without_an_original_source_stays_in_the_dead_letter_queue(setup):
    """Sent straight to the DLQ, it has no source to return to: the task fails, the message
    stays where it was, as it was."""
    setup.client.send_message(QueueUrl=setup.dlq, MessageBody="orphan")
    got = setup.client.receive_message(QueueUrl=setup.dlq, VisibilityTimeout=0)["Messages"]
    message_id = got[0]["MessageId"]
    setup.start()
    task = setup.run(60)
    assert task["Status"] == "FAILED"
    assert task["FailureReason"]
    (view,) = setup.mock.peek("dlq")
    assert (view.message_id, view.body, view.receive_count) == (message_id, "orphan", 1)
    setup.mock.clock.advance(4 * 86400 - 120)  # well inside the retention period
    assert [v.body for v in setup.mock.peek("dlq")] == ["orphan"]
