"""The server starts like a tool: each way into sqsmock imports only what it uses.

``sqsmock serve`` (``python -m sqsmock serve``) and ``sqsmock.serve()`` answer SQS calls without
importing botocore, boto3 or wrapt, which only the in-process mock needs; ``import sqsmock``
loads none of its modules until a public name is used, and every public name still resolves.
Each check runs in a fresh interpreter: this one has botocore loaded already.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

import sqsmock

ROOT = Path(__file__).resolve().parents[1]
#: What the in-process mock needs and the server does not.
IN_PROCESS_ONLY = ("botocore", "boto3", "wrapt")

#: One SQS call over HTTP (AWS JSON 1.0) with the standard library only.
CALL = """
import json, urllib.request

def call(endpoint, operation, **params):
    request = urllib.request.Request(
        endpoint + "/",
        data=json.dumps(params).encode(),
        headers={
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": "AmazonSQS." + operation,
            "Authorization": "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/sqs/aws4_request,"
            " SignedHeaders=host, Signature=0",
        },
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)
"""

#: Creates a queue, sends to it and receives from it, then prints what of IN_PROCESS_ONLY (and
#: of botocore's client machinery) the process loaded.
SERVE_AND_CALL = (
    CALL
    + """
import sys
import sqsmock

with sqsmock.serve(port=0, **OPTIONS) as server:
    url = call(server.endpoint_url, "CreateQueue", QueueName="startup")["QueueUrl"]
    call(server.endpoint_url, "SendMessage", QueueUrl=url, MessageBody="hello")
    received = call(server.endpoint_url, "ReceiveMessage", QueueUrl=url)
loaded = sorted(
    name for name in sys.modules
    if name.split(".")[0] in {"botocore", "boto3", "wrapt"}
)
print(json.dumps({"body": received["Messages"][0]["Body"], "loaded": loaded}))
"""
)


def run_python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.slow
def test_import_sqsmock_loads_none_of_its_modules():
    out = run_python(
        """
        import sys, sqsmock
        tops = ("sqsmock", "botocore", "boto3", "wrapt")
        print(sorted(m for m in sys.modules if m.split(".")[0] in tops))
        """
    )
    assert out == "['sqsmock', 'sqsmock._version']"


@pytest.mark.slow
def test_serve_answers_without_botocore_boto3_or_wrapt():
    answer = json.loads(run_python(SERVE_AND_CALL.replace("OPTIONS", "{}")))
    assert answer == {"body": "hello", "loaded": []}


@pytest.mark.slow
def test_serve_with_persistence_loads_only_botocores_exceptions():
    """With a store, ``PersistenceError`` (a ``BotoCoreError`` for in-process users) brings
    ``botocore.exceptions`` -- and nothing more of botocore, nor boto3 or wrapt."""
    options = "{'persistence': __import__('fakeredis').FakeRedis()}"
    answer = json.loads(run_python(SERVE_AND_CALL.replace("OPTIONS", options)))
    assert answer["body"] == "hello"
    assert {name.split(".")[0] for name in answer["loaded"]} <= {"botocore"}
    assert "botocore.exceptions" in answer["loaded"]
    assert not {"botocore.client", "botocore.session", "botocore.endpoint"} & set(answer["loaded"])


def imported_modules(importtime: str) -> set[str]:
    """The modules named by ``python -X importtime``'s report."""
    names = set()
    for line in importtime.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


@pytest.mark.slow
def test_the_serve_command_answers_without_botocore_boto3_or_wrapt():
    """``python -m sqsmock serve`` -- the command's own path: argument parsing, logging set-up,
    the server -- up to one answered call, as ``-X importtime`` reports what it imported."""
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            [sys.executable, "-X", "importtime", "-m", "sqsmock", "serve", "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=log,
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            assert process.stdout is not None
            ready, _, _ = select.select([process.stdout], [], [], 60)
            assert ready, "sqsmock serve printed no endpoint"
            line = process.stdout.readline().decode()
            endpoint = line.split(" on ", 1)[1].split(" ", 1)[0]
            namespace: dict[str, object] = {}
            exec(CALL, namespace)
            answer = namespace["call"](endpoint, "ListQueues")  # type: ignore[operator]
            assert answer == {}
        finally:
            process.send_signal(signal.SIGTERM)
            assert process.wait(30) == 0
            process.stdout.close()  # type: ignore[union-attr]
        log.seek(0)
        imported = imported_modules(log.read().decode())
    assert {"sqsmock.cli", "sqsmock._adapters.http", "aiohttp.web"} <= imported
    assert not {name for name in imported if name.split(".")[0] in IN_PROCESS_ONLY}


@pytest.mark.slow
def test_every_public_name_resolves_in_a_fresh_interpreter():
    out = run_python(
        """
        import sqsmock
        names = {}
        exec("from sqsmock import *", names)
        del names["__builtins__"]
        assert sorted(names) == sorted(sqsmock.__all__), names
        assert all(getattr(sqsmock, name) is value for name, value in names.items())
        assert set(sqsmock.__all__) <= set(dir(sqsmock))

        from botocore.exceptions import BotoCoreError
        from sqsmock import PersistenceError, mock_sqs
        assert issubclass(PersistenceError, BotoCoreError)
        with mock_sqs() as sqs:
            print(type(sqs).__name__)
        """
    )
    assert out == "MockSQS"


def test_every_public_name_has_a_home_and_resolves_to_its_object():
    """``__all__`` and the table the lazy look-up reads name the same names (a public name
    added to one only fails here, not just in a fresh interpreter)."""
    from importlib import import_module

    assert sorted(sqsmock._HOMES) == sorted(sqsmock.__all__)
    for name, home in sqsmock._HOMES.items():
        assert getattr(sqsmock, name) is getattr(import_module(f"sqsmock.{home}"), name), name


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'mock_sqss'"):
        sqsmock.mock_sqss  # noqa: B018


def test_the_store_defaults_are_the_ones_redis_store_uses():
    """The persistence defaults moved where the server can read them without the store; the
    store's own module still names them (its users import them from there)."""
    from sqsmock import _store
    from sqsmock._store import redis_store

    assert redis_store.DEFAULT_TIMEOUT is _store.DEFAULT_TIMEOUT == 5.0
    assert redis_store.default_namespace is _store.default_namespace


def test_persistence_error_made_on_first_use_is_one_picklable_class():
    """The class ``_store/errors.py`` makes when first named is the one every module sees, a
    ``BotoCoreError``, and survives pickling (which finds it by its module and name)."""
    import pickle

    from botocore.exceptions import BotoCoreError

    from sqsmock._store import errors, redis_store

    error = errors.PersistenceError(reason="Redis is away")
    assert errors.PersistenceError is redis_store.PersistenceError is sqsmock.PersistenceError
    assert isinstance(error, BotoCoreError)
    assert str(error) == "sqsmock persistence failed: Redis is away"
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is errors.PersistenceError
    assert str(copy) == str(error)
    with pytest.raises(AttributeError):
        errors.NotAnError  # noqa: B018
