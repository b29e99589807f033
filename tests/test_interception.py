"""How SQS calls reach sqsmock: every botocore SQS client, and nothing else."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import uuid

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


@pytest.fixture
def client():
    with mock_sqs():
        yield make_client()


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
