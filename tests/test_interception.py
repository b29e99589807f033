"""How SQS calls reach sqsmock: every botocore SQS client, and nothing else."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import uuid
from typing import Any

import boto3
import botocore.session
import pytest
from botocore import xform_name
from botocore.config import Config
from botocore.exceptions import ClientError, EndpointConnectionError
from botocore.stub import Stubber

from sqsmock import mock_sqs

UNREACHABLE = "http://127.0.0.1:1"
UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
SQS_OPERATIONS = sorted(botocore.session.get_session().get_service_model("sqs").operation_names)
NOT_BUILT = {
    "AddPermission",
    "RemovePermission",
    "ListDeadLetterSourceQueues",
    "StartMessageMoveTask",
    "CancelMessageMoveTask",
    "ListMessageMoveTasks",
}


def make_client(region: str = "us-east-1"):
    """An SQS client whose endpoint refuses connections: only sqsmock can answer it."""
    return boto3.client(
        "sqs",
        region_name=region,
        endpoint_url=UNREACHABLE,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(retries={"max_attempts": 0}, connect_timeout=0.5),
    )


def run_python(code: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


# -- which clients are intercepted ---------------------------------------------------------------


def test_client_created_before_mock_started_is_intercepted():
    client = make_client()
    with mock_sqs():
        url = client.create_queue(QueueName="early")["QueueUrl"]
        assert url == "https://sqs.us-east-1.amazonaws.com/123456789012/early"
        client.send_message(QueueUrl=url, MessageBody="x")
        assert client.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "x"


def test_same_client_works_inside_and_reaches_network_after_stop():
    client = make_client()
    with mock_sqs():
        assert "QueueUrls" not in client.list_queues()
    with pytest.raises(EndpointConnectionError):
        client.list_queues()


def test_client_from_one_mock_is_intercepted_by_a_later_mock():
    first = mock_sqs()
    first.start()
    client = make_client()
    client.create_queue(QueueName="first")
    first.stop()

    with pytest.raises(EndpointConnectionError):
        client.list_queues()

    with mock_sqs() as second:
        assert "QueueUrls" not in client.list_queues()
        client.create_queue(QueueName="second")
        assert [v.body for v in second.peek("second")] == []

    with pytest.raises(EndpointConnectionError):
        client.list_queues()


def test_outer_mock_still_answers_after_inner_stops():
    client = make_client()
    with mock_sqs():
        client.create_queue(QueueName="outer")
        with mock_sqs():
            client.list_queues()
        assert client.list_queues()["QueueUrls"][0].endswith("/outer")
    with pytest.raises(EndpointConnectionError):
        client.list_queues()


@pytest.mark.slow
def test_client_created_before_sqsmock_was_imported():
    out = run_python(
        """
        import sys

        import boto3

        client = boto3.client(
            "sqs",
            region_name="us-east-1",
            endpoint_url="http://127.0.0.1:1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )
        assert "sqsmock" not in sys.modules

        from sqsmock import mock_sqs

        mock = mock_sqs()
        mock.start()
        url = client.create_queue(QueueName="late")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="from early client")
        got = client.receive_message(QueueUrl=url)
        mock.stop()
        print(url)
        print(got["Messages"][0]["Body"])
        """
    )
    assert out.splitlines() == [
        "https://sqs.us-east-1.amazonaws.com/123456789012/late",
        "from early client",
    ]


@pytest.mark.slow
def test_works_without_any_aws_configuration(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    home = tmp_path / "home"
    home.mkdir()
    env["HOME"] = str(home)
    env["AWS_CONFIG_FILE"] = str(tmp_path / "missing" / "config")
    env["AWS_SHARED_CREDENTIALS_FILE"] = str(tmp_path / "missing" / "credentials")
    out = run_python(
        """
        import os

        import boto3

        from sqsmock import mock_sqs

        before = {k: v for k, v in os.environ.items() if k.startswith("AWS_")}
        with mock_sqs():
            client = boto3.client("sqs")
            print(client.meta.region_name)
            url = client.create_queue(QueueName="bare")["QueueUrl"]
            client.send_message(QueueUrl=url, MessageBody="no config needed")
            got = client.receive_message(QueueUrl=url)
            client.delete_message(
                QueueUrl=url, ReceiptHandle=got["Messages"][0]["ReceiptHandle"]
            )
            print(url)
            print(got["Messages"][0]["Body"])
        after = {k: v for k, v in os.environ.items() if k.startswith("AWS_")}
        print(after == before)
        print(sorted(after))
        """,
        env=env,
    )
    assert out.splitlines() == [
        "us-east-1",
        "https://sqs.us-east-1.amazonaws.com/123456789012/bare",
        "no config needed",
        "True",
        "['AWS_CONFIG_FILE', 'AWS_SHARED_CREDENTIALS_FILE']",
    ]


@pytest.mark.slow
def test_default_session_forgets_the_placeholder_credentials_after_stop(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env["HOME"] = str(tmp_path)
    env["AWS_CONFIG_FILE"] = str(tmp_path / "missing" / "config")
    env["AWS_SHARED_CREDENTIALS_FILE"] = str(tmp_path / "missing" / "credentials")
    env["AWS_EC2_METADATA_DISABLED"] = "true"  # no network probe for credentials
    out = run_python(
        """
        import boto3

        from sqsmock import mock_sqs

        with mock_sqs():
            boto3.client("sqs").list_queues()
            print(boto3.DEFAULT_SESSION.get_credentials().access_key)
        print(boto3.DEFAULT_SESSION.get_credentials())
        client = boto3.client("s3", region_name="us-east-1")
        print(client._request_signer._credentials)
        """,
        env=env,
    )
    assert out.splitlines() == ["testing", "None", "None"]


@pytest.mark.slow
def test_default_session_keeps_credentials_the_user_configured(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env["HOME"] = str(tmp_path)
    env["AWS_ACCESS_KEY_ID"] = "testing"  # the user's own, even if spelled like sqsmock's
    env["AWS_SECRET_ACCESS_KEY"] = "testing"
    env["AWS_DEFAULT_REGION"] = "eu-west-1"
    out = run_python(
        """
        import boto3

        from sqsmock import mock_sqs

        with mock_sqs():
            boto3.client("sqs").list_queues()
            credentials = boto3.DEFAULT_SESSION._session._credentials
        print(boto3.DEFAULT_SESSION._session._credentials is credentials)
        """,
        env=env,
    )
    assert out.splitlines() == ["True"]


def test_existing_aws_environment_is_left_alone(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "user-key")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "user-secret")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-north-1")
    with mock_sqs(region="eu-north-1"):
        assert os.environ["AWS_ACCESS_KEY_ID"] == "user-key"
        assert os.environ["AWS_DEFAULT_REGION"] == "eu-north-1"
        client = boto3.client("sqs", endpoint_url=UNREACHABLE)
        assert client.create_queue(QueueName="q")["QueueUrl"].startswith(
            "https://sqs.eu-north-1.amazonaws.com/"
        )
    assert os.environ["AWS_ACCESS_KEY_ID"] == "user-key"
    assert os.environ["AWS_SECRET_ACCESS_KEY"] == "user-secret"
    assert os.environ["AWS_DEFAULT_REGION"] == "eu-north-1"


def test_other_services_are_untouched():
    s3 = boto3.client(
        "s3",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    answer = {"Buckets": [{"Name": "from-stubber"}], "Owner": {"ID": "owner"}}
    with Stubber(s3) as stubber, mock_sqs():
        stubber.add_response("list_buckets", answer)
        got = s3.list_buckets()
        stubber.assert_no_pending_responses()
    assert got["Buckets"] == [{"Name": "from-stubber"}]
    assert got["Owner"] == {"ID": "owner"}


# -- what the answers look like ------------------------------------------------------------------


#: The three ways a call is answered in process: nothing but sqsmock and botocore watch it
#: (fast); another before-call handler sees the serialized request (serialized); a handler
#: watches what botocore does after before-call, so the request is built, signed and "sent"
#: (full). Each answer must be the same.
PATHS = {
    "fast": None,
    "serialized": "before-call.sqs",
    "full": "before-send.sqs",
}


@pytest.fixture(params=sorted(PATHS))
def client(request):
    event = PATHS[request.param]
    seen: list[str] = []
    with mock_sqs():
        client = make_client()
        if event is not None:

            def watch(**kwargs):
                seen.append(kwargs["event_name"])

            client.meta.events.register(event, watch)
        yield client
    if event is not None:  # the path really was taken
        assert seen, f"no {event} event was emitted"


def test_response_metadata(client):
    first = client.list_queues()["ResponseMetadata"]
    second = client.create_queue(QueueName="q")["ResponseMetadata"]
    for meta in (first, second):
        assert UUID_RE.match(meta["RequestId"])
        uuid.UUID(meta["RequestId"])
        assert meta["HTTPStatusCode"] == 200
        assert meta["RetryAttempts"] == 0
    assert first["RequestId"] != second["RequestId"]


def test_error_is_modeled_exception_with_metadata(client):
    with pytest.raises(client.exceptions.QueueDoesNotExist) as excinfo:
        client.get_queue_url(QueueName="missing")
    response = excinfo.value.response
    assert response["Error"]["Code"] == "AWS.SimpleQueueService.NonExistentQueue"
    assert response["Error"]["QueryErrorCode"] == "QueueDoesNotExist"
    assert response["Error"]["Type"] == "Sender"
    assert response["Error"]["Message"] == "The specified queue does not exist."
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert UUID_RE.match(response["ResponseMetadata"]["RequestId"])
    assert response["ResponseMetadata"]["RetryAttempts"] == 0


def test_purge_in_progress_is_modeled_exception_with_403(client):
    url = client.create_queue(QueueName="purged")["QueueUrl"]
    client.purge_queue(QueueUrl=url)
    with pytest.raises(client.exceptions.PurgeQueueInProgress) as excinfo:
        client.purge_queue(QueueUrl=url)
    response = excinfo.value.response
    assert response["Error"]["Code"] == "AWS.SimpleQueueService.PurgeQueueInProgress"
    assert response["Error"]["QueryErrorCode"] == "PurgeQueueInProgress"
    assert response["Error"]["Type"] == "Sender"
    assert response["Error"]["Message"] == (
        "Only one PurgeQueue operation on purged is allowed every 60 seconds."
    )
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 403


def test_invalid_parameter_value_is_plain_client_error(client):
    url = client.create_queue(QueueName="q")["QueueUrl"]
    with pytest.raises(ClientError) as excinfo:
        client.receive_message(QueueUrl=url, MaxNumberOfMessages=11)
    assert type(excinfo.value) is ClientError
    response = excinfo.value.response
    assert response["Error"]["Code"] == "InvalidParameterValue"
    assert response["Error"]["QueryErrorCode"] == "InvalidParameterValueException"
    assert response["Error"]["Type"] == "Sender"
    assert response["Error"]["Message"] == (
        "Value 11 for parameter MaxNumberOfMessages is invalid. "
        "Reason: Must be between 1 and 10, if provided."
    )
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 400


def test_user_event_handlers_still_run(client):
    calls: list[tuple[str, object]] = []

    def before(model, params, **kwargs):
        calls.append(("before", model.name))

    def after(model, parsed, http_response, **kwargs):
        calls.append(("after", (model.name, parsed.get("QueueUrl"), http_response.status_code)))

    client.meta.events.register("before-call.sqs.CreateQueue", before)
    client.meta.events.register("after-call.sqs.CreateQueue", after)
    url = client.create_queue(QueueName="q")["QueueUrl"]

    assert calls == [("before", "CreateQueue"), ("after", ("CreateQueue", url, 200))]


def test_user_header_handler_runs_before_the_mock_answers(client):
    seen: list[str] = []

    def add_header(params, **kwargs):
        params["headers"]["X-Custom"] = "yes"
        seen.append("added")

    client.meta.events.register("before-call.sqs.ListQueues", add_header)
    client.list_queues()
    assert seen == ["added"]


def test_boto3_resource_works():
    with mock_sqs():
        sqs = boto3.resource(
            "sqs",
            region_name="us-east-1",
            endpoint_url=UNREACHABLE,
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )
        queue = sqs.create_queue(QueueName="res")
        assert queue.url == "https://sqs.us-east-1.amazonaws.com/123456789012/res"
        sent = queue.send_message(MessageBody="via resource")
        messages = queue.receive_messages(MaxNumberOfMessages=10)
        assert [m.body for m in messages] == ["via resource"]
        assert messages[0].message_id == sent["MessageId"]
        messages[0].delete()
        assert queue.receive_messages() == []
        assert sqs.get_queue_by_name(QueueName="res").url == queue.url
        queue.delete()
        assert list(sqs.queues.all()) == []


# -- the action registry -------------------------------------------------------------------------


def test_action_registry_matches_botocore_operations():
    from sqsmock._service import ACTIONS

    assert set(ACTIONS) == set(SQS_OPERATIONS)


def minimal_params(operation: str, client) -> dict:
    """The smallest valid request for ``operation`` against a fresh queue."""
    url = client.create_queue(QueueName="ops")["QueueUrl"]
    arn = client.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    client.send_message(QueueUrl=url, MessageBody="m")
    handle = client.receive_message(QueueUrl=url)["Messages"][0]["ReceiptHandle"]
    params = {
        "AddPermission": {
            "QueueUrl": url,
            "Label": "label",
            "AWSAccountIds": ["111122223333"],
            "Actions": ["SendMessage"],
        },
        "CancelMessageMoveTask": {"TaskHandle": "handle"},
        "ChangeMessageVisibility": {
            "QueueUrl": url,
            "ReceiptHandle": handle,
            "VisibilityTimeout": 0,
        },
        "ChangeMessageVisibilityBatch": {
            "QueueUrl": url,
            "Entries": [{"Id": "a", "ReceiptHandle": handle, "VisibilityTimeout": 0}],
        },
        "CreateQueue": {"QueueName": "another"},
        "DeleteMessage": {"QueueUrl": url, "ReceiptHandle": handle},
        "DeleteMessageBatch": {"QueueUrl": url, "Entries": [{"Id": "a", "ReceiptHandle": handle}]},
        "DeleteQueue": {"QueueUrl": url},
        "GetQueueAttributes": {"QueueUrl": url},
        "GetQueueUrl": {"QueueName": "ops"},
        "ListDeadLetterSourceQueues": {"QueueUrl": url},
        "ListMessageMoveTasks": {"SourceArn": arn},
        "ListQueueTags": {"QueueUrl": url},
        "ListQueues": {},
        "PurgeQueue": {"QueueUrl": url},
        "ReceiveMessage": {"QueueUrl": url},
        "RemovePermission": {"QueueUrl": url, "Label": "label"},
        "SendMessage": {"QueueUrl": url, "MessageBody": "body"},
        "SendMessageBatch": {"QueueUrl": url, "Entries": [{"Id": "a", "MessageBody": "body"}]},
        "SetQueueAttributes": {"QueueUrl": url, "Attributes": {"VisibilityTimeout": "30"}},
        "StartMessageMoveTask": {"SourceArn": arn},
        "TagQueue": {"QueueUrl": url, "Tags": {"k": "v"}},
        "UntagQueue": {"QueueUrl": url, "TagKeys": ["k"]},
    }
    return params[operation]


def call_operation(client, operation: str):
    """The response, or the ClientError raised; any other exception propagates."""
    params = minimal_params(operation, client)
    try:
        return getattr(client, xform_name(operation))(**params)
    except ClientError as error:
        return error


@pytest.mark.parametrize("operation", SQS_OPERATIONS)
def test_every_operation_answers_or_is_unsupported_by_name(client, operation):
    outcome = call_operation(client, operation)
    if isinstance(outcome, ClientError):
        error = outcome.response["Error"]
        assert error["Type"] == "Sender"
        assert outcome.response["ResponseMetadata"]["HTTPStatusCode"] in (400, 403, 404)
        if error["QueryErrorCode"] == "UnsupportedOperation":
            assert error["Code"] == "AWS.SimpleQueueService.UnsupportedOperation"
            assert operation in error["Message"]
            assert outcome.response["ResponseMetadata"]["HTTPStatusCode"] == 400
            assert isinstance(outcome, client.exceptions.UnsupportedOperation)
    else:
        assert outcome["ResponseMetadata"]["HTTPStatusCode"] == 200


def test_only_unbuilt_operations_answer_unsupported(client):
    unsupported = set()
    for operation in SQS_OPERATIONS:
        with mock_sqs():
            outcome = call_operation(client, operation)
        if (
            isinstance(outcome, ClientError)
            and outcome.response["Error"]["QueryErrorCode"] == "UnsupportedOperation"
        ):
            unsupported.add(operation)
    assert unsupported <= NOT_BUILT


# -- what event handlers see, and what AWS would make of it --------------------------------------

TRACE = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
OWN_TRACE = "Root=1-67891233-abcdef012345678912345678;Parent=463ac35c9f6413ad;Sampled=0"


def add_trace_header(request, **kwargs):
    """What a tracing library does on ``before-send``: the header SQS turns into the message's
    AWSTraceHeader."""
    request.headers["X-Amzn-Trace-Id"] = TRACE


def received_trace(client, url):
    got = client.receive_message(
        QueueUrl=url, MaxNumberOfMessages=10, MessageSystemAttributeNames=["AWSTraceHeader"]
    )
    return [m.get("Attributes", {}).get("AWSTraceHeader") for m in got["Messages"]]


def test_before_send_handler_header_becomes_the_aws_trace_header():
    with mock_sqs():
        client = make_client()
        url = client.create_queue(QueueName="traced")["QueueUrl"]
        client.meta.events.register("before-send.sqs.SendMessage", add_trace_header)
        client.send_message(QueueUrl=url, MessageBody="traced")
        assert received_trace(client, url) == [TRACE]


def test_the_message_own_trace_header_wins_over_the_request_header():
    with mock_sqs():
        client = make_client()
        url = client.create_queue(QueueName="traced")["QueueUrl"]
        client.meta.events.register("before-send", add_trace_header)
        client.send_message(
            QueueUrl=url,
            MessageBody="own",
            MessageSystemAttributes={
                "AWSTraceHeader": {"DataType": "String", "StringValue": OWN_TRACE}
            },
        )
        client.send_message_batch(
            QueueUrl=url,
            Entries=[
                {"Id": "plain", "MessageBody": "from header"},
                {
                    "Id": "own",
                    "MessageBody": "own",
                    "MessageSystemAttributes": {
                        "AWSTraceHeader": {"DataType": "String", "StringValue": OWN_TRACE}
                    },
                },
            ],
        )
        assert sorted(received_trace(client, url)) == sorted([OWN_TRACE, TRACE, OWN_TRACE])


def test_handlers_after_before_call_run_in_order_on_the_built_signed_request():
    events: list[str] = []
    signed: list[bool] = []

    def request_created(request, **kwargs):
        events.append("request-created")

    def before_sign(request, **kwargs):
        events.append("before-sign")
        signed.append("Authorization" in request.headers)

    def before_send(request, **kwargs):
        events.append("before-send")
        signed.append(request.headers["Authorization"].startswith(b"AWS4-HMAC-SHA256"))
        assert request.headers["X-Amz-Target"] == b"AmazonSQS.ListQueues"
        assert json.loads(request.body) == {"QueueNamePrefix": "p"}

    def after_call(http_response, parsed, **kwargs):
        events.append(f"after-call {http_response.status_code}")

    with mock_sqs():
        client = make_client()
        client.meta.events.register("request-created.sqs.ListQueues", request_created)
        client.meta.events.register("before-sign.sqs", before_sign)
        client.meta.events.register("before-send.sqs.ListQueues", before_send)
        client.meta.events.register("after-call.sqs.ListQueues", after_call)
        assert "QueueUrls" not in client.list_queues(QueueNamePrefix="p")
    assert events == ["request-created", "before-sign", "before-send", "after-call 200"]
    assert signed == [False, True]


def test_full_path_errors_are_the_modeled_exceptions():
    with mock_sqs():
        client = make_client()
        client.meta.events.register("before-send", add_trace_header)
        with pytest.raises(client.exceptions.QueueDoesNotExist) as excinfo:
            client.get_queue_url(QueueName="missing")
    response = excinfo.value.response
    assert response["Error"]["Code"] == "AWS.SimpleQueueService.NonExistentQueue"
    assert response["Error"]["QueryErrorCode"] == "QueueDoesNotExist"
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert response["ResponseMetadata"]["RetryAttempts"] == 0


def test_full_path_signs_with_placeholders_for_a_client_without_credentials():
    with mock_sqs():
        client = make_client()
        signer = client._request_signer
        signer._credentials = None  # as a client made where no credentials could be found
        client.meta.events.register("before-send", add_trace_header)
        url = client.create_queue(QueueName="unsigned")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="m")
        assert received_trace(client, url) == [TRACE]
    assert signer._credentials is None  # as it was, once no mock is active


def test_moto_handler_stands_aside_for_the_calls_sqsmock_answers():
    moto = pytest.importorskip("moto")
    with moto.mock_aws(), mock_sqs() as sqs:
        client = boto3.client("sqs", region_name="us-east-1")
        client.meta.events.register("before-send", add_trace_header)
        url = client.create_queue(QueueName="both")["QueueUrl"]
        sent = client.send_message(QueueUrl=url, MessageBody="to sqsmock")
        assert [(m.message_id, m.body) for m in sqs.peek("both")] == [
            (sent["MessageId"], "to sqsmock")
        ]
        assert received_trace(client, url) == [TRACE]
        s3 = boto3.client("s3", region_name="us-east-1")  # moto still answers the rest
        s3.create_bucket(Bucket="beside-sqsmock")
        assert [b["Name"] for b in s3.list_buckets()["Buckets"]] == ["beside-sqsmock"]


def test_before_call_handler_sees_the_serialized_request():
    seen: list[tuple[object, ...]] = []

    def inspect(params, **kwargs):
        body = json.loads(params["body"])
        seen.append((body.get("DelaySeconds"), params["headers"]["X-Amz-Target"], params["url"]))

    with mock_sqs():
        client = make_client()
        url = client.create_queue(QueueName="delayed")["QueueUrl"]
        client.meta.events.register("before-call.sqs.SendMessage", inspect)
        client.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=7)
    assert seen == [(7, "AmazonSQS.SendMessage", f"{UNREACHABLE}/")]


def test_a_body_changed_by_a_before_call_handler_is_what_sqs_receives():
    def delay_everything(params, **kwargs):
        body = json.loads(params["body"])
        body["DelaySeconds"] = 60
        params["body"] = json.dumps(body).encode()

    with mock_sqs(clock="frozen") as mock:
        client = make_client()
        url = client.create_queue(QueueName="delayed")["QueueUrl"]
        client.meta.events.register("before-call.sqs.SendMessage", delay_everything)
        client.send_message(QueueUrl=url, MessageBody="later")
        assert "Messages" not in client.receive_message(QueueUrl=url)
        mock.clock.advance(60)
        assert [m["Body"] for m in client.receive_message(QueueUrl=url)["Messages"]] == ["later"]


def test_a_handler_registered_later_changes_the_path_of_the_next_call():
    with mock_sqs():
        client = make_client()
        url = client.create_queue(QueueName="later")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="before")
        client.meta.events.register("before-send.sqs.SendMessage", add_trace_header)
        client.send_message(QueueUrl=url, MessageBody="after")
        client.meta.events.unregister("before-send.sqs.SendMessage", add_trace_header)
        client.send_message(QueueUrl=url, MessageBody="unregistered")
        got = client.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, MessageSystemAttributeNames=["All"]
        )["Messages"]
    traces = {m["Body"]: m["Attributes"].get("AWSTraceHeader") for m in got}
    assert traces == {"before": None, "after": TRACE, "unregistered": None}


def test_fast_path_builds_no_http_request(monkeypatch):
    # Powertools, once imported, adds a User-Agent handler to every session: it does not count
    import aws_lambda_powertools  # noqa: F401 - registers its handler on sessions made after

    with mock_sqs():
        client = boto3.session.Session().client(
            "sqs",
            region_name="us-east-1",
            endpoint_url=UNREACHABLE,
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
            config=Config(retries={"max_attempts": 0}, connect_timeout=0.5),
        )
        created = client.meta.events._emitter._handlers.prefix_search("request-created.sqs")
        assert any("powertools" in getattr(h, "__qualname__", "") for h in created)

        def no_request(*args, **kwargs):
            raise AssertionError("an HTTP request was built")

        monkeypatch.setattr(client._endpoint, "create_request", no_request)
        monkeypatch.setattr(client._endpoint, "make_request", no_request)
        url = client.create_queue(QueueName="fast")["QueueUrl"]
        client.send_message(QueueUrl=url, MessageBody="m")
        assert client.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "m"


def test_full_path_leaves_out_a_trace_header_that_is_not_text():
    def add_bad_header(request, **kwargs):
        request.headers["X-Amzn-Trace-Id"] = "a\ud800b"

    with mock_sqs():
        client = make_client()
        url = client.create_queue(QueueName="bad")["QueueUrl"]
        client.meta.events.register("before-sign.sqs.SendMessage", add_bad_header)
        client.send_message(QueueUrl=url, MessageBody="x")
        assert received_trace(client, url) == [None]


def test_another_services_call_gets_nothing_of_sqsmock_in_its_context() -> None:
    """While a mock is active, every client's calls pass sqsmock's wrappers: another service's
    request context (which its handlers see) is left as botocore made it."""

    class Seen(Exception):
        pass

    def look(request: Any, **_: Any) -> None:
        raise Seen([key for key in request.context if key.startswith("sqsmock")])

    with mock_sqs():
        s3 = boto3.client(
            "s3", region_name="us-east-1", aws_access_key_id="k", aws_secret_access_key="s"
        )
        s3.meta.events.register("before-send.s3.ListBuckets", look)
        with pytest.raises(Seen) as seen:
            s3.list_buckets()
    assert seen.value.args[0] == []
