"""The call journal (``handle.calls``): every answered call, in order, with its answer."""

from __future__ import annotations

import warnings

import boto3
import pytest
from botocore.exceptions import ClientError

from sqsmock import mock_sqs
from sqsmock._features import JournalFullWarning


def client(region: str = "us-east-1"):  # type: ignore[no-untyped-def]
    return boto3.client("sqs", region_name=region, aws_access_key_id="k", aws_secret_access_key="s")


def test_every_call_is_recorded_in_order_with_its_answer() -> None:
    with mock_sqs(clock="frozen") as sqs:
        sqs_client = client()
        url = sqs_client.create_queue(QueueName="orders")["QueueUrl"]
        start = sqs.clock.now()
        sqs.clock.advance(5)
        sent = sqs_client.send_message(QueueUrl=url, MessageBody="hello")
        got = sqs_client.receive_message(QueueUrl=url)
        assert [c.operation for c in sqs.calls] == ["CreateQueue", "SendMessage", "ReceiveMessage"]
        send = sqs.calls[1]
        assert send.params == {"QueueUrl": url, "MessageBody": "hello"}
        assert send.response == {
            "MessageId": sent["MessageId"],
            "MD5OfMessageBody": sent["MD5OfMessageBody"],
        }
        assert send.error is None and send.ok and send.status == 200
        assert send.region == "us-east-1" and send.account == "123456789012"
        assert send.time == start + 5
        assert send.queue == "orders"
        assert send.request_id == sent["ResponseMetadata"]["RequestId"]
        assert sqs.calls[2].response["Messages"][0]["Body"] == "hello"
        assert got["Messages"][0]["MessageId"] == sent["MessageId"]


def test_errors_are_recorded_by_the_code_the_sdk_shows() -> None:
    with mock_sqs() as sqs:
        with pytest.raises(ClientError) as raised:
            client().get_queue_url(QueueName="missing")
        (call,) = sqs.calls
        assert call.error == raised.value.response["Error"]["Code"]
        assert call.error == "AWS.SimpleQueueService.NonExistentQueue"
        assert call.status == 400 and call.response is None and not call.ok
        assert not call.injected


def test_of_picks_an_operation_and_optionally_a_queue() -> None:
    with mock_sqs() as sqs:
        c = client()
        a = c.create_queue(QueueName="a")["QueueUrl"]
        b = c.create_queue(QueueName="b")["QueueUrl"]
        for url in (a, b, a):
            c.send_message(QueueUrl=url, MessageBody="x")
        assert len(sqs.calls.of("SendMessage")) == 3
        assert len(sqs.calls.of("SendMessage", queue="a")) == 2
        assert len(sqs.calls.of("SendMessage", queue=b)) == 1
        assert sqs.calls.of("DeleteMessage") == []


def test_clear_forgets_the_calls() -> None:
    with mock_sqs() as sqs:
        client().list_queues()
        assert len(sqs.calls) == 1
        sqs.calls.clear()
        assert len(sqs.calls) == 0 and not sqs.calls
        client().list_queues()
        assert [c.operation for c in sqs.calls] == ["ListQueues"]


def test_the_caller_changing_its_objects_later_does_not_change_the_journal() -> None:
    with mock_sqs() as sqs:
        c = client()
        url = c.create_queue(QueueName="q")["QueueUrl"]
        entries = [{"Id": "1", "MessageBody": "one"}]
        attributes = {"kind": {"DataType": "String", "StringValue": "a"}}
        c.send_message_batch(QueueUrl=url, Entries=entries)
        c.send_message(QueueUrl=url, MessageBody="b", MessageAttributes=attributes)
        entries.clear()  # a batching producer reuses its list
        attributes["kind"]["StringValue"] = "changed"
        batch, single = sqs.calls.of("SendMessageBatch")[0], sqs.calls.of("SendMessage")[0]
        assert batch.params["Entries"] == [{"Id": "1", "MessageBody": "one"}]
        assert single.params["MessageAttributes"]["kind"]["StringValue"] == "a"
        # and what a test does to an entry does not reach the mock or the journal
        single.params["MessageAttributes"]["kind"]["StringValue"] = "mine"
        assert single.params["MessageAttributes"]["kind"]["StringValue"] == "a"
        received = c.receive_message(
            QueueUrl=url, MessageAttributeNames=["All"], MaxNumberOfMessages=10
        )
        answer = sqs.calls.of("ReceiveMessage")[0].response
        answer["Messages"][0]["Body"] = "tampered"
        assert sqs.calls.of("ReceiveMessage")[0].response["Messages"][0]["Body"] != "tampered"
        assert len(received["Messages"]) == 2


def test_binary_values_are_recorded_in_wire_form() -> None:
    with mock_sqs() as sqs:
        c = client()
        url = c.create_queue(QueueName="q")["QueueUrl"]
        c.send_message(
            QueueUrl=url,
            MessageBody="b",
            MessageAttributes={"raw": {"DataType": "Binary", "BinaryValue": b"\x00\x01"}},
        )
        params = sqs.calls.of("SendMessage")[0].params
        assert params["MessageAttributes"]["raw"]["BinaryValue"] == "AAE="


def test_the_region_is_the_clients() -> None:
    with mock_sqs() as sqs:
        client("eu-west-1").list_queues()
        assert sqs.calls[0].region == "eu-west-1"


def test_a_full_journal_drops_the_oldest_warns_once_and_counts() -> None:
    with mock_sqs(journal_limit=3) as sqs:
        c = client()
        c.list_queues()
        c.list_queues()
        c.create_queue(QueueName="q1")
        with pytest.warns(JournalFullWarning, match="limit of 3 calls"):
            c.create_queue(QueueName="q2")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            c.create_queue(QueueName="q3")  # no second warning
        assert sqs.calls.dropped == 2
        assert [c.operation for c in sqs.calls] == ["CreateQueue"] * 3
        assert "2 dropped" in repr(sqs.calls)
        sqs.calls.clear()
        assert sqs.calls.dropped == 0


def test_a_zero_limit_records_nothing_and_none_keeps_everything() -> None:
    with mock_sqs(journal_limit=0) as sqs:
        client().list_queues()
        assert len(sqs.calls) == 0 and sqs.calls.dropped == 0
    with mock_sqs(journal_limit=None) as sqs:
        for _ in range(5):
            client().list_queues()
        assert len(sqs.calls) == 5


def test_a_limit_lowered_on_a_running_journal_holds_from_the_next_call() -> None:
    with mock_sqs(journal_limit=None) as sqs:
        c = client()
        for _ in range(5):
            c.list_queues()
        sqs.calls.limit = 2
        with pytest.warns(JournalFullWarning, match="limit of 2 calls"):
            c.create_queue(QueueName="q")
        assert [call.operation for call in sqs.calls] == ["ListQueues", "CreateQueue"]
        assert sqs.calls.dropped == 4
        sqs.calls.limit = 0
        c.list_queues()
        assert len(sqs.calls) == 2  # recording stopped
        with pytest.raises(ValueError, match="journal_limit"):
            sqs.calls.limit = -1


@pytest.mark.parametrize("limit", [-1, 1.5, "10"])
def test_a_bad_limit_is_refused_at_once(limit: object) -> None:
    with pytest.raises(ValueError, match="journal_limit"):
        mock_sqs(journal_limit=limit)  # type: ignore[arg-type]


async def _async_calls(sqs) -> None:  # type: ignore[no-untyped-def]
    from sqsmock._protocol import Call

    caller = Call("us-east-1", "123456789012")
    await sqs.runtime.call_async("CreateQueue", {"QueueName": "q"}, caller)
    await sqs.runtime.call_async("ListQueues", {}, caller)


def test_async_calls_are_recorded_too() -> None:
    import asyncio

    with mock_sqs() as sqs:
        asyncio.run(_async_calls(sqs))
        assert [c.operation for c in sqs.calls] == ["CreateQueue", "ListQueues"]


# -- bounded in bytes ------------------------------------------------------------------------

KIB = 1024
MIB = 1024 * KIB


def test_the_journal_is_bounded_in_bytes_by_default() -> None:
    from sqsmock._features.journal import DEFAULT_BYTE_LIMIT

    assert DEFAULT_BYTE_LIMIT == 64 * MIB
    with mock_sqs() as sqs:
        assert sqs.calls.byte_limit == DEFAULT_BYTE_LIMIT
    assert mock_sqs(journal_byte_limit=None).journal_byte_limit is None


def test_a_byte_limit_drops_the_oldest_calls_warns_and_counts() -> None:
    with mock_sqs(journal_byte_limit=MIB) as sqs:
        c = client()
        url = c.create_queue(QueueName="q")["QueueUrl"]
        with pytest.warns(JournalFullWarning, match=f"limit of {MIB} bytes"):
            for i in range(10):
                c.send_message(QueueUrl=url, MessageBody=str(i) * (200 * KIB))
        assert sqs.calls.bytes <= MIB
        sends = sqs.calls.of("SendMessage")
        # Five bodies of 200 KiB and their entries' overhead fit in 1 MiB; a sixth does not.
        assert [call.params["MessageBody"][0] for call in sends] == ["5", "6", "7", "8", "9"]
        assert not any(call.truncated for call in sends)
        assert sqs.calls.dropped == 6  # CreateQueue and the first five sends
        sqs.calls.clear()
        assert sqs.calls.bytes == 0 and sqs.calls.dropped == 0


@pytest.mark.slow
def test_what_the_journal_holds_in_memory_stays_within_its_byte_limit() -> None:
    # The byte count is not a figure of speech: with the engine releasing deleted messages,
    # the journal's entries are what is left, and they stay within the limit.
    import gc
    import tracemalloc

    with mock_sqs(journal_byte_limit=8 * MIB) as sqs, pytest.warns(JournalFullWarning):
        c = client()
        url = c.create_queue(QueueName="q")["QueueUrl"]
        c.list_queues()
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            for i in range(100):
                c.send_message(QueueUrl=url, MessageBody=f"{i:08d}" * (32 * KIB))  # 256 KiB
                (got,) = c.receive_message(QueueUrl=url)["Messages"]
                c.delete_message(QueueUrl=url, ReceiptHandle=got["ReceiptHandle"])
                del got
            gc.collect()
            held = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        assert sqs.calls.dropped > 0 and sqs.calls.bytes <= 8 * MIB
        assert held < 10 * MIB, f"{held} bytes held after 25 MiB of messages came and went"


def test_an_oversized_request_is_kept_truncated_with_its_size() -> None:
    with mock_sqs() as sqs:
        c = client()
        url = c.create_queue(QueueName="q")["QueueUrl"]
        body = "x" * (27 * MIB)
        with pytest.raises(ClientError):
            c.send_message(QueueUrl=url, MessageBody=body)
        (call,) = sqs.calls.of("SendMessage")
        assert call.error is not None and call.truncated
        assert call.size >= len(body)
        assert call.params["MessageBody"] == "x" * 1024
        assert call.params["QueueUrl"] == url
        assert sqs.calls.bytes < 64 * KIB
        assert "truncated" in repr(call)


def test_a_rejected_request_is_kept_truncated_an_accepted_one_whole() -> None:
    with mock_sqs() as sqs:
        c = client()
        url = c.create_queue(QueueName="q", Attributes={"MaximumMessageSize": "1024"})["QueueUrl"]
        wide = c.create_queue(QueueName="wide")["QueueUrl"]
        body = "y" * (100 * KIB)
        with pytest.raises(ClientError):
            c.send_message(QueueUrl=url, MessageBody=body)
        c.send_message(QueueUrl=wide, MessageBody=body)
        rejected, accepted = sqs.calls.of("SendMessage")
        assert rejected.truncated and rejected.size >= len(body)
        assert len(rejected.params["MessageBody"]) == 1024
        assert not accepted.truncated and accepted.params["MessageBody"] == body


def test_a_call_larger_than_the_byte_limit_is_kept_truncated() -> None:
    with mock_sqs(journal_byte_limit=64 * KIB) as sqs:
        c = client()
        url = c.create_queue(QueueName="q")["QueueUrl"]
        c.send_message(QueueUrl=url, MessageBody="z" * (100 * KIB))
        got = c.receive_message(QueueUrl=url)["Messages"]
        assert got[0]["Body"] == "z" * (100 * KIB)  # the caller's answer is whole
        send, receive = sqs.calls.of("SendMessage") + sqs.calls.of("ReceiveMessage")
        assert send.truncated and send.params["MessageBody"] == "z" * 1024
        assert receive.truncated and receive.response["Messages"][0]["Body"] == "z" * 1024
        assert sqs.calls.bytes <= 64 * KIB


@pytest.mark.parametrize("limit", [-1, 1.5, "10"])
def test_a_bad_byte_limit_is_refused_at_once(limit: object) -> None:
    with pytest.raises(ValueError, match="journal_byte_limit"):
        mock_sqs(journal_byte_limit=limit)  # type: ignore[arg-type]


# -- pages -----------------------------------------------------------------------------------


def test_pages_walk_the_journal_oldest_first() -> None:
    with mock_sqs() as sqs:
        c = client()
        url = c.create_queue(QueueName="q")["QueueUrl"]
        for i in range(250):
            c.send_message(QueueUrl=url, MessageBody=str(i))
        first = sqs.calls.page()
        assert len(first.calls) == 100 and first.next_token is not None
        assert first.calls[0].operation == "CreateQueue"
        seen = [call.params.get("MessageBody") for call in first.calls]
        token = first.next_token
        while token is not None:
            page = sqs.calls.page(next_token=token)
            seen += [call.params["MessageBody"] for call in page.calls]
            token = page.next_token
        assert seen == [None] + [str(i) for i in range(250)]
        small = sqs.calls.page(3, operation="SendMessage", queue="q")
        assert [call.params["MessageBody"] for call in small.calls] == ["0", "1", "2"]
        after = sqs.calls.page(3, small.next_token, operation="SendMessage")
        assert [call.params["MessageBody"] for call in after.calls] == ["3", "4", "5"]
        assert sqs.calls.page(10, operation="DeleteQueue") == ([], None)
        last = sqs.calls.page(2, newest=True)
        assert [call.params["MessageBody"] for call in last.calls] == ["248", "249"]
        assert last.next_token is None


def test_a_page_whose_calls_were_dropped_starts_at_the_oldest_kept() -> None:
    with mock_sqs(journal_limit=5) as sqs, warnings.catch_warnings():
        warnings.simplefilter("ignore", JournalFullWarning)
        c = client()
        c.list_queues()
        page = sqs.calls.page(1)
        for _ in range(10):
            c.create_queue(QueueName="q")
        later = sqs.calls.page(2, page.next_token)
        assert [call.operation for call in later.calls] == ["CreateQueue"] * 2
        assert later.next_token is not None


@pytest.mark.parametrize(("limit", "token"), [(0, None), (1, "x"), (1, "-1"), (True, None)])
def test_a_bad_page_request_is_refused(limit: int, token: str | None) -> None:
    with mock_sqs() as sqs, pytest.raises(ValueError):
        sqs.calls.page(limit, token)


@pytest.mark.sqsmock(journal_byte_limit=4096)
def test_the_pytest_marker_takes_a_byte_limit(sqs_mock) -> None:  # type: ignore[no-untyped-def]
    assert sqs_mock.calls.byte_limit == 4096


def test_large_entries_and_values_marshal_does_not_take_are_kept_as_copies() -> None:
    """A large entry shares its strings with the mock (a copy would double its memory), and a
    value ``marshal`` does not take is kept as it is: both with copies of their containers, read
    back like any other entry."""
    from sqsmock._features.journal import ENTRY_OVERHEAD, PACKED_UP_TO, CallJournal
    from sqsmock._protocol import Result

    journal = CallJournal()
    odd = object()
    tags: dict[str, object] = {"t": odd}
    big = "b" * (PACKED_UP_TO + 1)
    calls = [
        ("TagQueue", {"QueueUrl": "q", "Tags": tags}, {}),
        ("SendMessage", {"QueueUrl": "q", "MessageBody": big}, {"MessageId": "m"}),
        ("ListQueues", {}, {"QueueUrls": ["q"]}),
    ]
    for when, (operation, params, answer) in enumerate(calls):
        result = Result(operation, 200, answer, None)
        journal.record(operation, params, result, "us-east-1", "123456789012", when, False)
    tags["later"] = "x"  # the caller's dict changes after the call
    assert [type(entry) for entry in journal._entries] == [tuple, tuple, bytes]
    tag, send, listed = journal
    assert tag.params == {"QueueUrl": "q", "Tags": {"t": odd}}
    assert send.params["MessageBody"] is big  # shared, not copied
    assert send.response == {"MessageId": "m"}
    assert listed.response == {"QueueUrls": ["q"]}
    assert [call.time for call in journal] == [0, 1, 2]
    assert journal.bytes > 3 * ENTRY_OVERHEAD + PACKED_UP_TO
    page = journal.page(2)
    assert [call.operation for call in page.calls] == ["TagQueue", "SendMessage"]
    assert [c.operation for c in journal.page(2, page.next_token).calls] == ["ListQueues"]


def test_an_entry_holds_one_object_whatever_the_call_held() -> None:
    """A full journal does not keep every dict, list and string of its calls alive: each entry
    is one stored string (what the calls allocated goes back to the allocator with them)."""
    import gc

    with mock_sqs() as sqs:
        c = client()
        url = c.create_queue(QueueName="q")["QueueUrl"]
        for i in range(20):
            c.send_message(
                QueueUrl=url,
                MessageBody=f"m{i}",
                MessageAttributes={"a": {"DataType": "String", "StringValue": "v"}},
            )
        c.receive_message(QueueUrl=url, MaxNumberOfMessages=10, MessageAttributeNames=["All"])
        gc.collect()
        stored = list(sqs.calls._entries)  # type: ignore[attr-defined]
        assert len(stored) == 22
        assert all(type(entry) is bytes for entry in stored)
        assert sqs.calls[-1].response["Messages"][0]["Body"] == "m0"
        assert [call.params.get("MessageBody") for call in sqs.calls][1:4] == ["m0", "m1", "m2"]


@pytest.mark.parametrize(
    ("body", "limit", "kept"),
    [("x" * 4200, 4096, 1024), ("😀" * 2100, 8192, 1024), ("😀" * 2100, 4096, None)],
    ids=["ascii", "four-byte UTF-8", "four-byte UTF-8, fewer than 1024 fit"],
)
def test_a_call_near_the_byte_limit_is_kept_as_it_was_before_packing(
    body: str, limit: int, kept: int | None
) -> None:
    """Under a small byte limit a call that does not fit whole (as held in memory: a four-byte
    character takes four) is kept truncated -- to its first 1024 characters, or fewer if even
    they would not fit -- never dropped with the history before it."""
    with mock_sqs(journal_byte_limit=limit) as sqs:
        c = client()
        url = c.create_queue(QueueName="q")["QueueUrl"]
        c.send_message(QueueUrl=url, MessageBody="small")
        c.send_message(QueueUrl=url, MessageBody=body)
        calls = list(sqs.calls)
        assert [call.operation for call in calls] == ["CreateQueue", "SendMessage", "SendMessage"]
        got = calls[-1].params["MessageBody"]
        assert calls[-1].truncated and calls[-1].size >= len(body)
        if kept is not None:
            assert got == body[:kept]
        else:
            assert 0 < len(got) < 1024 and body.startswith(got)
        assert sqs.calls.dropped == 0 and sqs.calls.bytes <= limit


def test_a_page_decodes_only_the_entries_it_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """A page (the web UI polls the newest fifty every second) reads a page's worth of entries,
    not the whole journal."""
    from sqsmock._features import journal as journal_module
    from sqsmock._features.journal import CallJournal
    from sqsmock._protocol import Result

    log = CallJournal()
    for i in range(1000):
        result = Result("ListQueues", 200, {"QueueUrls": [f"q{i}"]}, None)
        log.record("ListQueues", {}, result, "us-east-1", "123456789012", i, False)
    decoded: list[object] = []
    read = journal_module.read_entry

    def counted(stored: object) -> tuple[object, ...]:
        decoded.append(stored)
        return read(stored)  # type: ignore[arg-type]

    monkeypatch.setattr(journal_module, "read_entry", counted)
    page = log.page(10)
    assert [call.time for call in page.calls] == list(range(10))
    assert log.page(10, page.next_token).calls[0].time == 10
    newest = log.page(5, newest=True)
    assert [call.time for call in newest.calls] == list(range(995, 1000))
    assert len(decoded) == 25


def test_a_packed_entry_tells_the_size_of_the_request_as_sent() -> None:
    """A small call is packed without being measured; what it reads back as its size is still
    the characters of the request's strings (keys included), as for any other entry."""
    with mock_sqs() as sqs:
        c = client()
        url = c.create_queue(QueueName="q")["QueueUrl"]
        c.send_message(QueueUrl=url, MessageBody="héllo", DelaySeconds=0)
        assert type(sqs.calls._entries[-1]) is bytes  # type: ignore[attr-defined]
        send = sqs.calls[-1]
        expected = len("QueueUrl") + len(url) + len("MessageBody") + 5 + len("DelaySeconds") + 8
        assert (send.size, send.truncated) == (expected, False)


def test_a_rejected_call_repeating_one_long_string_is_kept_truncated() -> None:
    """The same string object many times over measures as often as it appears: a rejected
    request that comes to more than REJECTED_KEPT characters that way is truncated, however
    small a form that wrote the string once would be."""
    from sqsmock._errors import SqsError
    from sqsmock._features.journal import REJECTED_KEPT, TRUNCATED_KEPT, CallJournal
    from sqsmock._protocol import Result

    journal = CallJournal()
    same = "x" * 4000
    params = {"QueueUrl": "q", "Entries": [{"Id": "a", "MessageBody": same}] * 20}
    error = SqsError("TooManyEntriesInBatchRequest", count=20)
    result = Result.of_error("SendMessageBatch", error)
    journal.record("SendMessageBatch", params, result, "us-east-1", "123456789012", 0.0, False)
    (call,) = journal
    assert call.size > REJECTED_KEPT and call.truncated
    assert call.params["Entries"][0]["MessageBody"] == "x" * TRUNCATED_KEPT


@pytest.mark.parametrize("where", ["send", "batch", "answer"])
def test_a_large_body_is_not_marshalled_only_to_be_thrown_away(
    where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A call carrying a body longer than PACKED_UP_TO cannot be packed: it is kept the larger
    entries' way without first being written out whole (about 2 ms a MiB). Bodies are looked
    for where each operation carries them."""
    from sqsmock._features import journal_entries
    from sqsmock._features.journal import PACKED_UP_TO, CallJournal
    from sqsmock._protocol import Result

    written: list[object] = []
    dumps = journal_entries.marshal.dumps
    monkeypatch.setattr(
        journal_entries.marshal,
        "dumps",
        lambda value, *a: written.append(value) or dumps(value, *a),
    )
    big = "b" * (PACKED_UP_TO + 1)
    params: dict[str, object] = {"QueueUrl": "q"}
    answer: dict[str, object] = {}
    if where == "send":
        params["MessageBody"] = big
    elif where == "batch":
        params["Entries"] = [{"Id": "1", "MessageBody": "small"}, {"Id": "2", "MessageBody": big}]
    else:
        answer["Messages"] = [{"MessageId": "m", "Body": big}]
    operation = {"send": "SendMessage", "batch": "SendMessageBatch"}.get(where, "ReceiveMessage")
    journal = CallJournal()
    journal.record(operation, params, Result(operation, 200, answer, None), "r", "a", 0, False)
    journal.record(
        "SendMessage",
        {"QueueUrl": "q", "MessageBody": "small"},
        Result("SendMessage", 200, {}, None),
        "r",
        "a",
        1,
        False,
    )
    assert len(written) == 1  # the small call only
    assert [type(entry) for entry in journal._entries] == [tuple, bytes]
    large, small = journal
    assert (large.params, large.response, large.truncated) == (params, answer, False)
    assert small.params["MessageBody"] == "small"


# -- unshared calls, written out in batches ------------------------------------------------------


def _record(journal: object, n: int, *, unshared: bool, operation: str = "ListQueues") -> None:
    from sqsmock._protocol import Result

    result = Result(operation, 200, {"QueueUrls": [f"q{n}"]}, None)
    journal.record(operation, {"N": n}, result, "r", "a", float(n), False, unshared)  # type: ignore[attr-defined]


def test_unshared_calls_wait_to_be_written_and_every_read_writes_them_first() -> None:
    from sqsmock._features import journal as module

    journal = module.CallJournal()
    for n in range(5):
        _record(journal, n, unshared=True)
    assert len(journal._pending) == 5 and not journal._entries  # waiting, not written
    assert bool(journal)
    _record(journal, 5, unshared=False)  # a shared call is written at once, after them
    assert not journal._pending
    for n in range(6, 9):
        _record(journal, n, unshared=True)
    assert [call.params["N"] for call in journal] == list(range(9))  # in order, all of them
    assert not journal._pending
    for n in range(9, 9 + module._BATCH):
        _record(journal, n, unshared=True)
    assert len(journal._entries) == 9 + module._BATCH and not journal._pending  # a full batch
    reads = [
        lambda j: len(j),
        lambda j: j.bytes,
        lambda j: j.dropped,
        lambda j: j[-1],
        lambda j: j[-2:],
        lambda j: j.page(1, newest=True),
        lambda j: j.of("ListQueues"),
        lambda j: repr(j),
    ]
    for read in reads:
        _record(journal, 100, unshared=True)
        assert journal._pending
        read(journal)
        assert not journal._pending, read
    journal.clear()
    _record(journal, 1, unshared=True)
    journal.clear()
    assert len(journal) == 0 and not journal


def test_a_journal_filled_by_unshared_calls_warns_at_the_call_that_fills_it() -> None:
    from sqsmock._features.journal import _BATCH, CallJournal

    journal = CallJournal(limit=_BATCH + 3)
    for n in range(_BATCH + 3):
        _record(journal, n, unshared=True)
    with pytest.warns(JournalFullWarning, match=f"limit of {_BATCH + 3} calls"):
        _record(journal, _BATCH + 3, unshared=True)
    assert journal._dropped == 1  # counted at that call, before anything read it
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for n in range(_BATCH + 4, 3 * _BATCH):  # full: they wait again, dropping as they go
            _record(journal, n, unshared=True)
    assert journal._pending
    assert len(journal) == _BATCH + 3
    assert journal.dropped == 3 * _BATCH - (_BATCH + 3)
    assert [call.params["N"] for call in journal][-1] == 3 * _BATCH - 1


def test_limits_changed_apply_to_unshared_calls_waiting_as_they_did_when_recorded() -> None:
    from sqsmock._features.journal import CallJournal

    journal = CallJournal(limit=None)
    for n in range(5):
        _record(journal, n, unshared=True)
    journal.limit = 2  # the five were recorded while nothing was dropped
    assert journal._entries and not journal._pending
    with pytest.warns(JournalFullWarning):
        _record(journal, 5, unshared=True)  # near the limit: written at once
    assert [call.params["N"] for call in journal] == [4, 5] and journal.dropped == 4
    _record(journal, 6, unshared=True)  # full and warned: waiting again
    assert journal._pending
    journal.recording = False  # written out first
    assert not journal._pending and journal.dropped == 5
    small = CallJournal(byte_limit=10 * 1024 * 1024)  # less room than a batch may take
    _record(small, 0, unshared=True)
    assert not small._pending and len(small._entries) == 1


def test_unshared_calls_from_many_threads_are_all_kept() -> None:
    import threading

    from sqsmock._features.journal import CallJournal

    journal = CallJournal(limit=None)
    seen: list[int] = []

    def work(base: int) -> None:
        for n in range(base, base + 500):
            _record(journal, n, unshared=n % 7 != 0)
            if n % 50 == 0:
                seen.append(len(journal))

    threads = [threading.Thread(target=work, args=(i * 1000,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    numbers = sorted(call.params["N"] for call in journal)
    assert numbers == sorted(n for i in range(4) for n in range(i * 1000, i * 1000 + 500))
    assert journal._seq == 2000 and seen


def test_a_server_journal_shows_every_call_at_once() -> None:
    from server_support import client as server_client

    import sqsmock

    with sqsmock.serve(port=0) as server:
        sqs = server_client(server.endpoint_url)
        url = sqs.create_queue(QueueName="q")["QueueUrl"]
        for n in range(3):
            sqs.send_message(QueueUrl=url, MessageBody=str(n))
        assert server.runtime.journal._pending  # read off the wire: waiting
        bodies = [call.params["MessageBody"] for call in server.calls.of("SendMessage")]
        assert bodies == ["0", "1", "2"]
        assert len(server.calls) == 4


def test_an_unshared_call_with_a_long_body_is_written_at_once() -> None:
    from sqsmock._features.journal import PACKED_UP_TO, CallJournal
    from sqsmock._protocol import Result

    journal = CallJournal()
    _record(journal, 0, unshared=True)
    body = "b" * (PACKED_UP_TO + 1)
    sent = Result("SendMessage", 200, {"MessageId": "m"}, None)
    journal.record("SendMessage", {"MessageBody": body}, sent, "r", "a", 1.0, False, True)
    assert not journal._pending and len(journal._entries) == 2  # the earlier one with it
    got = Result("ReceiveMessage", 200, {"Messages": [{"Body": body}]}, None)
    journal.record("ReceiveMessage", {}, got, "r", "a", 2.0, False, True)
    assert not journal._pending
    journal.record("SendMessage", {"MessageBody": "short"}, sent, "r", "a", 3.0, False, True)
    assert len(journal._pending) == 1
    assert [call.operation for call in journal] == [
        "ListQueues",
        "SendMessage",
        "ReceiveMessage",
        "SendMessage",
    ]
