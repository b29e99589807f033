"""A message keeps its ids and digests compactly (numbers, shared records) and gives back
exactly the text it was given: canonical UUIDs and lower-case digests as numbers, anything else
as it came, and every rarely-set field through the same property as before."""

from __future__ import annotations

import hashlib
import uuid

import pytest

from sqsmock._engine.message import Message, key_of_id, new_message_id
from sqsmock._engine.records import decode_message, encode_message

#: A fixed UUID (test ids must be the same in every process that collects them).
SOME_UUID = str(uuid.UUID("7f1c2a3e-5b6d-4e8f-9a0b-1c2d3e4f5a6b"))
ODD_IDS = [
    "m1",
    "",
    SOME_UUID.upper(),
    SOME_UUID.replace("-", "_"),
    " " + SOME_UUID[1:],
    "+" + SOME_UUID[1:],
    SOME_UUID[:-1] + "g",
    SOME_UUID.replace("-", ""),
]
ODD_DIGESTS = ["md5", "", "D41D8CD98F00B204E9800998ECF8427E", " " * 32, "+" + "0" * 31, "0_" * 16]


@pytest.mark.parametrize("message_id", ["<new>", SOME_UUID, *ODD_IDS])
def test_message_ids_read_back_as_given(message_id: str) -> None:
    if message_id == "<new>":
        message_id = new_message_id()
    m = Message(message_id, "b", "d41d8cd98f00b204e9800998ecf8427e")
    assert m.message_id == message_id
    assert isinstance(m.id_key, int) == (message_id not in ODD_IDS)  # kept as a number or text
    assert key_of_id(message_id) == m.id_key  # what a stale receipt's lookup asks the log for
    m.message_id = message_id  # a move gives a new id through the setter
    assert m.message_id == message_id


@pytest.mark.parametrize("digest", [hashlib.md5(b"x").hexdigest(), "0" * 32, *ODD_DIGESTS])
def test_body_digests_read_back_as_given(digest: str) -> None:
    assert Message("m", "b", digest).md5_body == digest


def test_rarely_set_fields_read_back_and_round_trip_through_the_record() -> None:
    attributes = {"a": {"DataType": "String", "StringValue": "x"}}
    m = Message(
        new_message_id(),
        "body",
        hashlib.md5(b"body").hexdigest(),
        attributes=attributes,
        md5_attributes="a" * 32,
        trace_header="Root=1",
        md5_system="b" * 32,
        sender_id="123456789012",
        group_id="g",
        dedup_id="d",
        size=4,
    )
    m.sequence_number = "18000000000000000001"
    m.dlq_source_arn = "arn:aws:sqs:us-east-1:123456789012:src"
    assert m.received(10.0, "r1") == (1, 10.0)
    assert m.received(20.0, "r2") == (2, 10.0)
    got = (m.attributes, m.md5_attributes, m.trace_header, m.md5_system, m.group_id, m.dedup_id)
    assert got == (attributes, "a" * 32, "Root=1", "b" * 32, "g", "d")
    assert (m.receive_count, m.first_receive_at, m.received_at, m.receipt) == (2, 10.0, 20.0, "r2")
    again = decode_message(encode_message(m))
    assert encode_message(again) == encode_message(m)
    m.release()
    assert (m.body, m.attributes, m.md5_attributes) == ("", None, "a" * 32)


def test_a_plain_message_holds_no_extra_records() -> None:
    m = Message(new_message_id(), "b", hashlib.md5(b"b").hexdigest())
    assert (m.attributes, m.group_id, m.receipt, m.receive_count) == (None, None, None, 0)
    assert (m.first_receive_at, m.received_at, m.sequence_number) == (None, 0.0, None)
    assert m.compact_fields() == ((None,) * 5, (None,) * 3, (0, None, 0.0, None))
    m.dlq_source_arn = "arn"
    m.dlq_source_arn = None  # back to nothing set: no record kept
    assert m.compact_fields()[0] == (None,) * 5
