"""Fresh identifiers: MessageIds and request ids are well-formed and never repeat, whatever a
test does to ``random``'s shared generator or however a process forks."""

from __future__ import annotations

import os
import random
import sys
import uuid
from typing import Any

import boto3
import pytest

from sqsmock import mock_sqs
from sqsmock._engine.ids import new_message_key, new_request_id, uuid_text
from sqsmock._engine.message import Message, id_text


def _client() -> Any:
    return boto3.client(
        "sqs", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x"
    )


def test_message_ids_and_request_ids_are_version_4_uuids() -> None:
    with mock_sqs():
        client = _client()
        url = client.create_queue(QueueName="q")["QueueUrl"]
        sent = client.send_message(QueueUrl=url, MessageBody="m")
    for text in (sent["MessageId"], sent["ResponseMetadata"]["RequestId"]):
        parsed = uuid.UUID(text)
        assert str(parsed) == text  # canonical: lower case, hyphenated
        assert parsed.version == 4
        assert parsed.variant == uuid.RFC_4122


def test_a_message_built_from_a_key_reads_back_its_text() -> None:
    key = new_message_key()
    message = Message(key, "b", "5d41402abc4b2a76b9719d911017c592")
    assert message.id_key == key
    assert message.message_id == uuid_text(key) == id_text(key)
    assert uuid.UUID(message.message_id).int == key


def test_seeding_random_does_not_repeat_message_ids() -> None:
    with mock_sqs():
        client = _client()
        url = client.create_queue(QueueName="q")["QueueUrl"]
        ids = []
        for _ in range(2):
            random.seed(1234)  # as a test suite might, before each test
            ids.append(client.send_message(QueueUrl=url, MessageBody="m")["MessageId"])
            ids.append(
                client.send_message(QueueUrl=url, MessageBody="m")["ResponseMetadata"]["RequestId"]
            )
    assert len(set(ids)) == len(ids)


def test_request_ids_do_not_repeat() -> None:
    ids = {new_request_id() for _ in range(10_000)}
    assert len(ids) == 10_000


@pytest.mark.skipif(sys.platform == "win32", reason="fork")
def test_a_forked_child_does_not_repeat_its_parents_ids() -> None:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next ids, to the parent
        try:
            os.write(write, f"{new_message_key()} {new_request_id()}".encode())
        finally:
            os._exit(0)
    os.close(write)
    try:
        child_key, child_request = os.read(read, 200).decode().split()
    finally:
        os.close(read)
        os.waitpid(pid, 0)
    assert int(child_key) != new_message_key()
    assert child_request[:24] != new_request_id()[:24]  # a prefix of its own


def test_a_nonce_is_zero_padded_lower_case_hex_of_its_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    from sqsmock._engine import ids

    monkeypatch.setattr(ids, "_bits", lambda bits: 0xABC)
    assert ids.new_nonce(72) == "000000000000000abc"
    monkeypatch.setattr(ids, "_bits", lambda bits: (1 << bits) - 1)
    assert ids.new_nonce(16) == "ffff"
