"""SNS http/https subscribers on this machine: the SubscriptionConfirmation post, confirmation
by token, then notifications with AWS's headers and bodies, posted off the caller's thread;
endpoints other than loopback are never contacted.

Each test runs a stdlib HTTP server on 127.0.0.1 in a thread and stops it.
"""

from __future__ import annotations

import json
import queue
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import boto3
import pytest

import sqsmock
from sqsmock import FrozenClock, mock_sqs
from sqsmock._engine.outbox import Outgoing
from sqsmock._features.sns_http import is_loopback, send_over_loopback

REGION = "us-east-1"
WAIT = 10.0  # seconds a test waits for the background sender before it fails
#: Straight to the server (no proxy from the environment).
direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Endpoint:
    """A subscriber: records every request; answers ``status``; may hold answers back."""

    def __init__(self) -> None:
        self.requests: queue.Queue[tuple[str, dict[str, str], str]] = queue.Queue()
        self.status = 200
        self.release = threading.Event()
        self.release.set()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length).decode()
                endpoint.requests.put((self.path, dict(self.headers.items()), body))
                endpoint.release.wait(WAIT)
                self.send_response(endpoint.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/sns"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()

    def next(self) -> tuple[dict[str, str], dict[str, Any] | str]:
        path, headers, body = self.requests.get(timeout=WAIT)
        assert path == "/sns"
        try:
            return headers, json.loads(body)
        except ValueError:
            return headers, body

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(WAIT)


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    server = Endpoint()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def mock() -> Iterator[Any]:
    with mock_sqs(sns=True, clock=FrozenClock(start=1_700_000_000.0)) as handle:
        yield handle


@pytest.fixture
def reports(mock: Any) -> queue.Queue[bool]:
    """What the sender reported for each notification (whether the endpoint took it)."""
    done: queue.Queue[bool] = queue.Queue()
    topics = mock._runtime.backend.topics

    def sender(outgoing: Outgoing) -> None:
        told = outgoing.done
        if told is None:
            send_over_loopback(outgoing)
            return

        def report(taken: bool) -> None:
            told(taken)
            done.put(taken)

        send_over_loopback(replace(outgoing, done=report))

    topics.sender = sender
    return done


@pytest.fixture
def sns(mock: Any) -> Any:
    return boto3.client("sns", region_name=REGION)


def subscribe(sns: Any, topic: str, url: str, **attributes: str) -> str:
    answer = sns.subscribe(
        TopicArn=topic,
        Protocol="http",
        Endpoint=url,
        Attributes=attributes,
        ReturnSubscriptionArn=True,
    )
    return str(answer["SubscriptionArn"])


def confirmed(sns: Any, endpoint: Endpoint, topic: str, **attributes: str) -> str:
    arn = subscribe(sns, topic, endpoint.url, **attributes)
    _, body = endpoint.next()
    assert isinstance(body, dict)
    sns.confirm_subscription(TopicArn=topic, Token=body["Token"])
    return arn


def test_the_confirmation_is_posted_and_the_token_confirms(
    mock: Any, sns: Any, endpoint: Endpoint
) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    answer = sns.subscribe(TopicArn=topic, Protocol="http", Endpoint=endpoint.url)
    assert answer["SubscriptionArn"] == "pending confirmation"
    headers, body = endpoint.next()
    assert isinstance(body, dict)
    assert headers["x-amz-sns-message-type"] == "SubscriptionConfirmation"
    assert headers["x-amz-sns-message-id"] == body["MessageId"]
    assert headers["x-amz-sns-topic-arn"] == topic
    assert headers["Content-Type"] == "text/plain; charset=UTF-8"
    assert headers["User-Agent"] == "Amazon Simple Notification Service Agent"
    assert "x-amz-sns-subscription-arn" not in headers
    assert list(body) == [
        "Type",
        "MessageId",
        "Token",
        "TopicArn",
        "Message",
        "SubscribeURL",
        "Timestamp",
        "SignatureVersion",
        "Signature",
        "SigningCertURL",
    ]
    assert body["Type"] == "SubscriptionConfirmation"
    assert body["SubscribeURL"].endswith(
        f"Action=ConfirmSubscription&TopicArn={topic}&Token={body['Token']}"
    )
    sns.publish(TopicArn=topic, Message="before")  # pending: not posted
    arn = sns.confirm_subscription(TopicArn=topic, Token=body["Token"])["SubscriptionArn"]
    attributes = sns.get_subscription_attributes(SubscriptionArn=arn)["Attributes"]
    assert attributes["PendingConfirmation"] == "false"
    sns.publish(TopicArn=topic, Message="after")
    headers, body = endpoint.next()  # requests are posted in order: "before" would come first
    assert isinstance(body, dict)
    assert body["Message"] == "after"


def test_a_notification_as_aws_posts_it(
    mock: Any, sns: Any, endpoint: Endpoint, reports: queue.Queue[bool]
) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    arn = confirmed(sns, endpoint, topic)
    published = sns.publish(
        TopicArn=topic,
        Message="hello",
        Subject="s",
        MessageAttributes={"a": {"DataType": "String", "StringValue": "v"}},
    )
    headers, body = endpoint.next()
    assert isinstance(body, dict)
    assert headers["x-amz-sns-message-type"] == "Notification"
    assert headers["x-amz-sns-message-id"] == published["MessageId"]
    assert headers["x-amz-sns-topic-arn"] == topic
    assert headers["x-amz-sns-subscription-arn"] == arn
    assert headers["Content-Type"] == "text/plain; charset=UTF-8"
    assert "x-amz-sns-rawdelivery" not in headers
    assert body["Type"] == "Notification"
    assert body["MessageId"] == published["MessageId"]
    assert (body["Message"], body["Subject"], body["TopicArn"]) == ("hello", "s", topic)
    assert body["MessageAttributes"] == {"a": {"Type": "String", "Value": "v"}}
    assert body["UnsubscribeURL"].endswith(f"SubscriptionArn={arn}")
    assert reports.get(timeout=WAIT) is True
    assert mock._runtime.backend.topics.subscription(arn).delivered == 1


def test_raw_delivery_filters_and_the_http_entry_of_a_structured_message(
    sns: Any, endpoint: Endpoint
) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    confirmed(sns, endpoint, topic, RawMessageDelivery="true", FilterPolicy='{"k": ["yes"]}')
    yes = {"k": {"DataType": "String", "StringValue": "yes"}}
    no = {"k": {"DataType": "String", "StringValue": "no"}}
    sns.publish(TopicArn=topic, Message="filtered out", MessageAttributes=no)
    document = {"default": "d", "sqs": "for sqs", "http": "for http"}
    sns.publish(
        TopicArn=topic, Message=json.dumps(document), MessageStructure="json", MessageAttributes=yes
    )
    headers, body = endpoint.next()
    assert headers["x-amz-sns-rawdelivery"] == "true"
    assert body == "for http"


def test_publish_does_not_wait_for_a_slow_subscriber(
    mock: Any, sns: Any, endpoint: Endpoint, reports: queue.Queue[bool]
) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    arn = confirmed(sns, endpoint, topic)
    endpoint.release.clear()  # the endpoint holds its answers back
    for n in range(3):
        sns.publish(TopicArn=topic, Message=str(n))  # returns while the endpoint holds
    _, body = endpoint.next()
    assert isinstance(body, dict)
    assert body["Message"] == "0"
    endpoint.release.set()
    assert [reports.get(timeout=WAIT) for _ in range(3)] == [True, True, True]
    assert [body["Message"] for _, body in (endpoint.next(), endpoint.next())] == ["1", "2"]  # type: ignore[index]
    assert mock._runtime.backend.topics.subscription(arn).delivered == 3


def test_an_endpoint_that_fails_counts_the_message_dropped(
    mock: Any, sns: Any, endpoint: Endpoint, reports: queue.Queue[bool]
) -> None:
    topic = sns.create_topic(Name="t")["TopicArn"]
    arn = confirmed(sns, endpoint, topic)
    endpoint.status = 500
    sns.publish(TopicArn=topic, Message="m")
    assert reports.get(timeout=WAIT) is False
    found = mock._runtime.backend.topics.subscription(arn)
    assert (found.delivered, found.dropped) == (0, 1)


def test_an_endpoint_off_this_machine_is_never_contacted() -> None:
    taken: queue.Queue[bool] = queue.Queue()
    # TEST-NET-1 (RFC 5737): would hang if it were contacted; refused at once instead
    send_over_loopback(Outgoing("http://192.0.2.1/", {}, b"x", taken.put))
    assert taken.get(timeout=WAIT) is False


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://127.0.0.1:8080/a", True),
        ("https://127.1.2.3/", True),
        ("http://localhost/", True),
        ("http://api.localhost:9/", True),
        ("http://[::1]:80/", True),
        ("http://192.0.2.1/", False),
        ("https://example.com/", False),
        ("http://localhost.example.com/", False),
        ("http://10.0.0.1/", False),
        ("ftp://127.0.0.1/", False),
        ("http://[::1/", False),
    ],
)
def test_only_loopback_endpoints_are_posted_to(url: str, loopback: bool) -> None:
    assert is_loopback(url) is loopback


def test_the_server_posts_to_http_subscribers_too(endpoint: Endpoint) -> None:
    with sqsmock.serve(port=0, clock="frozen") as server:
        sns = boto3.client(
            "sns",
            endpoint_url=server.endpoint_url,
            region_name=REGION,
            aws_access_key_id="x",
            aws_secret_access_key="x",
        )
        topic = sns.create_topic(Name="t")["TopicArn"]
        confirmed(sns, endpoint, topic)
        sns.publish(TopicArn=topic, Message="over the server")
        headers, body = endpoint.next()
        assert isinstance(body, dict)
        assert headers["x-amz-sns-message-type"] == "Notification"
        assert body["Message"] == "over the server"


def test_over_the_server_a_get_of_the_subscribe_url_confirms(endpoint: Endpoint) -> None:
    with sqsmock.serve(port=0, clock="frozen") as server:
        sns = boto3.client(
            "sns",
            endpoint_url=server.endpoint_url,
            region_name=REGION,
            aws_access_key_id="x",
            aws_secret_access_key="x",
        )
        topic = sns.create_topic(Name="t")["TopicArn"]
        arn = subscribe(sns, topic, endpoint.url)
        _, body = endpoint.next()
        assert isinstance(body, dict)
        url = body["SubscribeURL"]
        assert url.startswith(server.endpoint_url + "/?Action=ConfirmSubscription&")
        with direct.open(url) as answer:  # what an http subscriber does with it
            assert answer.status == 200
            assert arn in answer.read().decode()
        attributes = sns.get_subscription_attributes(SubscriptionArn=arn)["Attributes"]
        assert attributes["PendingConfirmation"] == "false"
        bad = url.replace("Token=", "Token=0")
        with pytest.raises(urllib.error.HTTPError) as caught:
            direct.open(bad)
        assert caught.value.code == 400
