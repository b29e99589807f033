"""A restarted mock answers as the one before it would have.

The same call sequences run twice on the same store kind: once in one activation, once with a
stop and start between every two calls. Every answer (bodies, groups, receive counts, sequence
numbers, error codes) must be the same -- which holds only if everything that decides a later
answer is persisted: the FIFO group rotation, deduplication, receive attempts, sequence numbers,
the standard queue's order. Runs against fakeredis and the real Redis server.
"""

from __future__ import annotations

import random
import uuid
from typing import Any

import boto3
import fakeredis
import pytest
from botocore.exceptions import ClientError
from persist_support import REAL_HOST, REAL_PORT, REGION, Store, redis_client

from sqsmock import FrozenClock, MockSQS, mock_sqs

T0 = 1_700_000_000.0


@pytest.fixture(params=["fakeredis", "redis"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _store(kind: str) -> Store:
    namespace = f"sqsmock-test-{uuid.uuid4().hex}:"
    if kind == "fakeredis":
        server = fakeredis.FakeServer()
        return Store(
            "fakeredis",
            fakeredis.FakeRedis(server=server),
            namespace,
            lambda: fakeredis.FakeRedis(server=server),
        )
    client = redis_client(REAL_HOST, REAL_PORT)
    return Store("redis", client, namespace, lambda: redis_client(REAL_HOST, REAL_PORT))


@pytest.fixture(scope="module")
def client() -> Any:
    return boto3.client("sqs", region_name=REGION)


class Run:
    """One activation after another on one store and one frozen clock."""

    def __init__(self, store: Store, restarting: bool) -> None:
        self.store = store
        self.restarting = restarting
        self.now = T0
        self.mock: MockSQS | None = None
        #: The latest receipt handle of each body, as this run received it.
        self.receipts: dict[str, str] = {}

    def __enter__(self) -> Run:
        self._start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop()
        self.store.drop()

    def _start(self) -> None:
        self.mock = mock_sqs(
            persistence=self.store.client,
            namespace=self.store.namespace,
            clock=FrozenClock(start=self.now),
        ).start()

    def _stop(self) -> None:
        if self.mock is not None:
            self.now = self.mock.clock.now()
            self.mock.stop()
            self.mock = None

    def step(self) -> None:
        """Between two calls: a restart, or nothing."""
        if self.restarting:
            self._stop()
            self._start()

    def advance(self, seconds: float) -> None:
        assert self.mock is not None
        self.mock.clock.advance(seconds)


def _answer(call: Any, **params: Any) -> Any:
    try:
        return call(**params)
    except ClientError as error:
        return ("error", error.response["Error"]["Code"])


def _received(run: Run, response: dict[str, Any]) -> list[tuple[str, ...]]:
    out = []
    for m in response.get("Messages", []):
        run.receipts[m["Body"]] = m["ReceiptHandle"]
        attributes = m.get("Attributes", {})
        out.append(
            (
                m["Body"],
                attributes.get("MessageGroupId", ""),
                attributes.get("ApproximateReceiveCount", ""),
                attributes.get("SequenceNumber", ""),
            )
        )
    return out


def _script(seed: int, fifo: bool, steps: int = 40) -> list[tuple[Any, ...]]:
    rng = random.Random(seed)
    script: list[tuple[Any, ...]] = []
    sent = 0
    for _ in range(steps):
        roll = rng.random()
        if roll < 0.35 or sent == 0:
            sent += 1
            dedup = f"m{sent}" if rng.random() < 0.9 else f"m{max(1, sent - 1)}"
            script.append(("send", f"m{sent}", rng.choice(["g1", "g2", "g3"]), dedup))
        elif roll < 0.65:
            attempt = rng.choice([None, None, "attempt-1", "attempt-2"]) if fifo else None
            script.append(("receive", rng.randint(1, 4), rng.choice([0, 0, 5, 30]), attempt))
        elif roll < 0.8:
            script.append(("delete", f"m{rng.randint(1, sent)}"))
        elif roll < 0.9:
            script.append(("visibility", f"m{rng.randint(1, sent)}", rng.choice([0, 10])))
        else:
            script.append(("advance", rng.choice([1, 5, 30])))
    return script


def _play(run: Run, client: Any, fifo: bool, script: list[tuple[Any, ...]]) -> list[Any]:
    name = "q.fifo" if fifo else "q"
    attributes = {"FifoQueue": "true"} if fifo else {}
    url = client.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    answers: list[Any] = []
    for action, *args in script:
        run.step()
        if action == "send":
            body, group, dedup = args
            extra = {"MessageGroupId": group, "MessageDeduplicationId": dedup} if fifo else {}
            sent = _answer(client.send_message, QueueUrl=url, MessageBody=body, **extra)
            answers.append(sent if isinstance(sent, tuple) else sent.get("SequenceNumber", "ok"))
        elif action == "receive":
            count, vt, attempt = args
            extra = {"ReceiveRequestAttemptId": attempt} if attempt else {}
            got = _answer(
                client.receive_message,
                QueueUrl=url,
                MaxNumberOfMessages=count,
                VisibilityTimeout=vt,
                MessageSystemAttributeNames=["All"],
                **extra,
            )
            answers.append(got if isinstance(got, tuple) else _received(run, got))
        elif action == "delete":
            receipt = run.receipts.get(args[0])
            if receipt is None:
                answers.append("never received")
                continue
            deleted = _answer(client.delete_message, QueueUrl=url, ReceiptHandle=receipt)
            answers.append(deleted if isinstance(deleted, tuple) else "ok")
        elif action == "visibility":
            receipt = run.receipts.get(args[0])
            if receipt is None:
                answers.append("never received")
                continue
            changed = _answer(
                client.change_message_visibility,
                QueueUrl=url,
                ReceiptHandle=receipt,
                VisibilityTimeout=args[1],
            )
            answers.append(changed if isinstance(changed, tuple) else "ok")
        else:
            run.advance(args[0])
            answers.append("advanced")
    run.step()
    counts = client.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    answers.append({k: v for k, v in counts.items() if k.startswith("ApproximateNumber")})
    return answers


def _both(kind: str, client: Any, fifo: bool, script: list[tuple[Any, ...]]) -> None:
    with Run(_store(kind), restarting=False) as plain:
        expected = _play(plain, client, fifo, script)
    with Run(_store(kind), restarting=True) as restarted:
        got = _play(restarted, client, fifo, script)
    assert got == expected


def test_fifo_group_rotation_is_the_same_after_a_restart(kind: str, client: Any) -> None:
    """g1, g1, g1, g2; one receive with VisibilityTimeout 0: g1 goes to the back, so the next
    receive starts with g2 -- also when the mock restarted in between."""
    script: list[tuple[Any, ...]] = [
        ("send", "a1", "g1", "a1"),
        ("send", "a2", "g1", "a2"),
        ("send", "a3", "g1", "a3"),
        ("send", "b1", "g2", "b1"),
        ("receive", 1, 0, None),
        ("receive", 1, 0, None),
        ("receive", 10, 0, None),
    ]
    with Run(_store(kind), restarting=False) as plain:
        expected = _play(plain, client, True, script)
    assert [m[0] for m in expected[4]] == ["a1"]
    assert [m[0] for m in expected[5]] == ["b1"]
    _both(kind, client, True, script)


@pytest.mark.parametrize("seed", range(6))
def test_fifo_answers_are_the_same_after_restarts(kind: str, client: Any, seed: int) -> None:
    _both(kind, client, True, _script(seed, fifo=True))


@pytest.mark.parametrize("seed", range(3))
def test_standard_answers_are_the_same_after_restarts(kind: str, client: Any, seed: int) -> None:
    _both(kind, client, False, _script(seed, fifo=False))


def test_a_receive_attempt_is_retried_after_a_restart(kind: str, client: Any) -> None:
    script: list[tuple[Any, ...]] = [
        ("send", "a1", "g1", "a1"),
        ("send", "b1", "g2", "b1"),
        ("receive", 1, 30, "attempt-1"),
        ("receive", 1, 30, "attempt-1"),  # the same message again, not b1
        ("receive", 1, 30, None),
    ]
    with Run(_store(kind), restarting=False) as plain:
        expected = _play(plain, client, True, script)
    assert [m[0] for m in expected[2]] == [m[0] for m in expected[3]] == ["a1"]
    _both(kind, client, True, script)


def test_a_retried_attempt_keeps_its_new_deadline_after_a_restart(kind: str, client: Any) -> None:
    """A retry restarts the visibility timeout (AWS documents it); the restarted deadline is
    what a restart keeps, so a2 stays hidden past the first deadline and the retry still works
    after it."""
    script: list[tuple[Any, ...]] = [
        ("send", "a1", "g1", "a1"),
        ("receive", 1, 10, "attempt-1"),
        ("advance", 8),
        ("receive", 1, 10, "attempt-1"),  # the retry: visible again at 18, not at 10
        ("advance", 4),
        ("receive", 1, 10, None),  # at 12: nothing (g1 is still in flight)
        ("receive", 1, 10, "attempt-1"),  # still the same attempt, within its window
        ("advance", 30),
        ("receive", 1, 10, None),  # long after: a1 is back
    ]
    with Run(_store(kind), restarting=False) as plain:
        expected = _play(plain, client, True, script)
    assert not expected[5]  # nothing handed out while the retried attempt holds a1
    assert [m[0] for m in expected[6]] == ["a1"]
    _both(kind, client, True, script)


def _dead_letter_pair(client: Any) -> tuple[str, str, str]:
    """A queue ``src`` whose messages go to ``dlq`` after one receive: (src url, dlq url, dlq
    ARN)."""
    dlq = client.create_queue(QueueName="dlq")["QueueUrl"]
    arn = client.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    policy = f'{{"deadLetterTargetArn":"{arn}","maxReceiveCount":"1"}}'
    src = client.create_queue(QueueName="src", Attributes={"RedrivePolicy": policy})["QueueUrl"]
    return src, dlq, arn


def _tasks(client: Any, arn: str) -> list[tuple[Any, ...]]:
    """ListMessageMoveTasks (all ten), the handle of a running task left out (a random id)."""
    got = _answer(client.list_message_move_tasks, SourceArn=arn, MaxResults=10)
    if isinstance(got, tuple):
        return [got]
    return [
        (
            t["Status"],
            t["ApproximateNumberOfMessagesMoved"],
            t["ApproximateNumberOfMessagesToMove"],
            t.get("MaxNumberOfMessagesPerSecond"),
            t.get("FailureReason"),
            t["StartedTimestamp"],
        )
        for t in got["Results"]
    ]


def test_move_tasks_started_at_one_moment_are_listed_in_start_order_after_a_restart(
    kind: str, client: Any
) -> None:
    """On a frozen clock six tasks start at the same moment: their start times cannot order
    them, and Redis hands a hash's fields back in no set order. Each moves one message more
    than the one before, so the listing shows the order; a restart must not change it."""
    store = _store(kind)
    with Run(store, restarting=False) as run:
        src, _dlq, arn = _dead_letter_pair(client)
        for n in range(6):
            client.send_message(QueueUrl=src, MessageBody=f"m{n}")
            client.receive_message(QueueUrl=src, MaxNumberOfMessages=10, VisibilityTimeout=0)
            client.receive_message(QueueUrl=src, MaxNumberOfMessages=10)  # all to the dlq
            started = client.start_message_move_task(SourceArn=arn)  # all back, at once
            assert started["TaskHandle"]
        before = _tasks(client, arn)
        assert [t[:3] for t in before] == [("COMPLETED", n, n) for n in (6, 5, 4, 3, 2, 1)]
        run.restarting = True
        run.step()
        assert _tasks(client, arn) == before
        queues = client.list_queues()["QueueUrls"]
        run.step()
        assert client.list_queues()["QueueUrls"] == queues


def _moves_script(seed: int, steps: int = 30) -> list[tuple[Any, ...]]:
    """Sends and receives that dead-letter messages, move tasks started (at a rate or all at
    once), cancelled and listed, tags, and the clock advanced -- often not at all, so tasks
    start at one moment."""
    rng = random.Random(seed)
    script: list[tuple[Any, ...]] = []
    for n in range(steps):
        roll = rng.random()
        if roll < 0.25:
            script.append(("send", f"m{n}"))
        elif roll < 0.45:
            script.append(("receive", rng.choice([0, 0, 30])))
        elif roll < 0.65:
            script.append(("start", rng.choice([None, None, 1, 3])))
        elif roll < 0.72:
            script.append(("cancel",))
        elif roll < 0.8:
            script.append(("tag", rng.choice(["b", "a", "c", "z"]), f"v{n}"))
        elif roll < 0.9:
            script.append(("advance", rng.choice([0.5, 1, 2])))
        else:
            script.append(("list",))
    return script


def _play_moves(run: Run, client: Any, script: list[tuple[Any, ...]]) -> list[Any]:
    src, dlq, arn = _dead_letter_pair(client)
    answers: list[Any] = []
    for action, *args in script:
        run.step()
        if action == "send":
            answers.append(_answer(client.send_message, QueueUrl=src, MessageBody=args[0]))
            answers[-1] = answers[-1] if isinstance(answers[-1], tuple) else "ok"
        elif action == "receive":
            got = _answer(
                client.receive_message,
                QueueUrl=src,
                MaxNumberOfMessages=10,
                VisibilityTimeout=args[0],
            )
            answers.append(got if isinstance(got, tuple) else len(got.get("Messages", [])))
        elif action == "start":
            extra = {} if args[0] is None else {"MaxNumberOfMessagesPerSecond": args[0]}
            started = _answer(client.start_message_move_task, SourceArn=arn, **extra)
            answers.append(started if isinstance(started, tuple) else "started")
        elif action == "cancel":
            listed = client.list_message_move_tasks(SourceArn=arn)["Results"]
            handle = listed[0].get("TaskHandle", "") if listed else ""
            if not handle:
                answers.append("nothing running")
                continue
            cancelled = _answer(client.cancel_message_move_task, TaskHandle=handle)
            answers.append(cancelled if isinstance(cancelled, tuple) else "cancelled")
        elif action == "tag":
            client.tag_queue(QueueUrl=dlq, Tags={args[0]: args[1]})
            answers.append(client.list_queue_tags(QueueUrl=dlq).get("Tags"))
        elif action == "advance":
            run.advance(args[0])
            answers.append("advanced")
        else:
            answers.append(_tasks(client, arn))
    run.step()
    answers.append(_tasks(client, arn))
    answers.append(list(client.list_queue_tags(QueueUrl=dlq).get("Tags", {}).items()))
    answers.append(client.list_queues()["QueueUrls"])
    for url in (src, dlq):
        counts = client.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
        answers.append({k: v for k, v in counts.items() if k.startswith("ApproximateNumber")})
    return answers


@pytest.mark.parametrize("seed", range(4))
def test_move_task_answers_are_the_same_after_restarts(kind: str, client: Any, seed: int) -> None:
    script = _moves_script(seed)
    with Run(_store(kind), restarting=False) as plain:
        expected = _play_moves(plain, client, script)
    assert sum(1 for a in expected[:-5] if a == "started") >= 2  # the script starts tasks
    with Run(_store(kind), restarting=True) as restarted:
        got = _play_moves(restarted, client, script)
    assert got == expected
