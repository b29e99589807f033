"""Where the query protocol differs from the JSON protocol, as recorded from AWS: the wording of a
missing queue, actions refused at a queue's URL, a GET of a queue URL that names no action, and
JSON answers for a client that accepts JSON. Each is checked over the server in both protocols."""

from __future__ import annotations

import json
import urllib.parse
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from server_support import Answer, call_json, call_query, request

from sqsmock import SqsServer

JSON_ACCEPT = {"Accept": "application/json"}
QUERY_MISSING = "The specified queue does not exist for this wsdl version."
JSON_MISSING = "The specified queue does not exist."


def make_queue(server: SqsServer, name: str = "q") -> str:
    answer = call_json(server.endpoint_url, "CreateQueue", {"QueueName": name})
    return str(answer.json()["QueueUrl"])


def path_of(url: str) -> str:
    return urllib.parse.urlsplit(url).path


def query_get(
    server: SqsServer, path: str, headers: dict[str, str] | None = None, **form: str
) -> Answer:
    target = f"{path}?{urllib.parse.urlencode(form)}" if form else path
    return request(server.endpoint_url, "GET", target, b"", headers)


def xml_error(answer: Answer) -> tuple[int, str, str]:
    assert answer.headers["content-type"] == "text/xml"
    ET.fromstring(answer.body)
    return answer.status, answer.find("Error/Code") or "", answer.find("Error/Message") or ""


def queue_names(server: SqsServer) -> list[str]:
    urls = call_json(server.endpoint_url, "ListQueues", {}).json().get("QueueUrls", [])
    return [url.rsplit("/", 1)[1] for url in urls]


# --- B1: the query protocol's wording of a missing queue -----------------------------------------


def test_a_missing_queue_in_the_query_protocol_names_the_wsdl_version(
    sqs_server: SqsServer,
) -> None:
    form = [("Action", "GetQueueUrl"), ("QueueName", "missing")]
    assert xml_error(call_query(sqs_server.endpoint_url, form)) == (
        400,
        "AWS.SimpleQueueService.NonExistentQueue",
        QUERY_MISSING,
    )
    url = make_queue(sqs_server, "gone")
    call_json(sqs_server.endpoint_url, "DeleteQueue", {"QueueUrl": url})
    answer = query_get(sqs_server, path_of(url), Action="GetQueueAttributes")
    assert xml_error(answer)[2] == QUERY_MISSING


def test_a_missing_queue_in_the_json_protocol_keeps_the_short_text(sqs_server: SqsServer) -> None:
    answer = call_json(sqs_server.endpoint_url, "GetQueueUrl", {"QueueName": "missing"})
    assert answer.status == 400
    assert answer.headers["x-amzn-query-error"] == "AWS.SimpleQueueService.NonExistentQueue;Sender"
    assert answer.json() == {
        "__type": "com.amazonaws.sqs#QueueDoesNotExist",
        "message": JSON_MISSING,
    }


# --- B2: actions that are not a queue's, sent to a queue's URL -----------------------------------


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_create_queue_at_a_queue_url_is_an_invalid_action(
    sqs_server: SqsServer, method: str
) -> None:
    path = path_of(make_queue(sqs_server))
    if method == "GET":
        answer = query_get(sqs_server, path, Action="CreateQueue", QueueName="other")
    else:
        form = [("Action", "CreateQueue"), ("QueueName", "other")]
        answer = call_query(sqs_server.endpoint_url, form, path=path)
    assert xml_error(answer) == (
        400,
        "InvalidAction",
        "The action CreateQueue is not valid for this endpoint.",
    )
    assert queue_names(sqs_server) == ["q"]  # nothing was created


def test_list_queues_at_a_queue_url_is_an_invalid_action(sqs_server: SqsServer) -> None:
    path = path_of(make_queue(sqs_server))
    assert xml_error(query_get(sqs_server, path, Action="ListQueues")) == (
        400,
        "InvalidAction",
        "The action ListQueues is not valid for this endpoint.",
    )
    answer = query_get(sqs_server, path, JSON_ACCEPT, Action="ListQueues")
    assert answer.status == 400
    assert answer.headers["content-type"] == "application/json"
    error = answer.json()["Error"]
    assert (error["Code"], error["Message"]) == (
        "InvalidAction",
        "The action ListQueues is not valid for this endpoint.",
    )


def test_queue_actions_and_get_queue_url_work_at_a_queue_url(sqs_server: SqsServer) -> None:
    url = make_queue(sqs_server)
    other = make_queue(sqs_server, "other")
    path = path_of(url)
    answer = query_get(sqs_server, path, Action="GetQueueUrl", QueueName="other")
    assert (answer.status, answer.find("GetQueueUrlResult/QueueUrl")) == (200, other)
    sent = call_query(
        sqs_server.endpoint_url, [("Action", "SendMessage"), ("MessageBody", "hi")], path
    )
    assert sent.status == 200
    assert [view.body for view in sqs_server.peek("q")] == ["hi"]
    # The same action at the service's root is of course valid.
    assert call_query(sqs_server.endpoint_url, [("Action", "ListQueues")]).status == 200


def test_the_json_protocol_at_a_queue_url_is_answered(sqs_server: SqsServer) -> None:
    """Some SDKs post the JSON protocol to the queue's URL; SQS answers it (AWS-recorded)."""
    url = make_queue(sqs_server)
    call_json(sqs_server.endpoint_url, "SendMessage", {"QueueUrl": url, "MessageBody": "m"})
    answer = request(
        sqs_server.endpoint_url,
        "POST",
        path_of(url),
        json.dumps({"QueueUrl": url}).encode(),
        {"X-Amz-Target": "AmazonSQS.ReceiveMessage", "Content-Type": "application/x-amz-json-1.0"},
    )
    assert answer.status == 200
    assert answer.headers["content-type"] == "application/x-amz-json-1.0"
    assert [m["Body"] for m in answer.json()["Messages"]] == ["m"]


# --- B3: a GET of a queue URL without an action --------------------------------------------------


@pytest.mark.parametrize("headers", [{}, JSON_ACCEPT], ids=["xml", "accept-json"])
def test_a_get_of_a_queue_url_without_an_action_is_an_unknown_operation(
    sqs_server: SqsServer, headers: dict[str, str]
) -> None:
    answer = query_get(sqs_server, path_of(make_queue(sqs_server)), headers)
    assert answer.status == 404
    assert answer.headers["content-type"] == "text/xml"  # XML even when JSON is accepted
    assert ET.fromstring(answer.body).tag == "UnknownOperationException"


def test_a_get_of_the_root_without_an_action_is_still_a_missing_action(
    sqs_server: SqsServer,
) -> None:
    assert xml_error(query_get(sqs_server, "/"))[:2] == (400, "MissingAction")


# --- B4: query-protocol answers in JSON ----------------------------------------------------------


def test_list_queues_answers_json_to_a_client_that_accepts_it(sqs_server: SqsServer) -> None:
    answer = query_get(sqs_server, "/", JSON_ACCEPT, Action="ListQueues", Version="2012-11-05")
    assert answer.status == 200
    assert answer.headers["content-type"] == "application/json"
    request_id = answer.headers["x-amzn-requestid"]
    assert answer.json() == {
        "ListQueuesResponse": {
            "ListQueuesResult": {
                "NextExclusiveStartQueueName": None,
                "NextToken": None,
                "queueUrls": None,
            },
            "ResponseMetadata": {"RequestId": request_id},
        }
    }
    url = make_queue(sqs_server)
    answer = query_get(sqs_server, "/", JSON_ACCEPT, Action="ListQueues")
    assert answer.json()["ListQueuesResponse"]["ListQueuesResult"]["queueUrls"] == [url]
    # Without the header the answer is XML, as before.
    plain = query_get(sqs_server, "/", Action="ListQueues")
    assert plain.headers["content-type"] == "text/xml"
    assert ET.fromstring(plain.body).tag.endswith("ListQueuesResponse")


def test_receive_message_answers_json_messages(sqs_server: SqsServer) -> None:
    url = make_queue(sqs_server)
    empty = call_query(
        sqs_server.endpoint_url,
        [("Action", "ReceiveMessage"), ("QueueUrl", url)],
        headers=JSON_ACCEPT,
    ).json()
    assert empty["ReceiveMessageResponse"]["ReceiveMessageResult"] == {"messages": None}
    body = '{"foo": "ba\rr", "foo2": "ba&quot;r&quot;"}'
    call_json(sqs_server.endpoint_url, "SendMessage", {"QueueUrl": url, "MessageBody": body})
    answer = call_query(
        sqs_server.endpoint_url,
        [("Action", "ReceiveMessage"), ("QueueUrl", url), ("VisibilityTimeout", "0")],
        headers=JSON_ACCEPT,
    )
    [message] = answer.json()["ReceiveMessageResponse"]["ReceiveMessageResult"]["messages"]
    assert message["Body"] == body
    assert set(message) == {
        "Attributes",
        "Body",
        "MD5OfBody",
        "MD5OfMessageAttributes",
        "MessageAttributes",
        "MessageId",
        "ReceiptHandle",
    }
    assert (message["Attributes"], message["MessageAttributes"]) == (None, None)


def test_get_queue_attributes_answers_json_name_value_pairs(sqs_server: SqsServer) -> None:
    url = make_queue(sqs_server)
    answer = query_get(
        sqs_server,
        path_of(url),
        JSON_ACCEPT,
        **{
            "Action": "GetQueueAttributes",
            "AttributeName.1": "All",
        },
    )
    attributes: list[dict[str, Any]] = answer.json()["GetQueueAttributesResponse"][
        "GetQueueAttributesResult"
    ]["Attributes"]
    values = {attribute["Name"]: attribute["Value"] for attribute in attributes}
    assert values["QueueArn"] == "arn:aws:sqs:us-east-1:123456789012:q"
    assert values["VisibilityTimeout"] == "30"


def test_an_error_answers_json_and_an_action_without_result_has_only_metadata(
    sqs_server: SqsServer,
) -> None:
    form = [("Action", "GetQueueUrl"), ("QueueName", "missing")]
    answer = call_query(sqs_server.endpoint_url, form, headers=JSON_ACCEPT)
    assert answer.status == 400
    assert answer.headers["content-type"] == "application/json"
    assert answer.json() == {
        "Error": {
            "Type": "Sender",
            "Code": "AWS.SimpleQueueService.NonExistentQueue",
            "Message": QUERY_MISSING,
        },
        "RequestId": answer.headers["x-amzn-requestid"],
    }
    url = make_queue(sqs_server)
    done = call_query(
        sqs_server.endpoint_url, [("Action", "PurgeQueue"), ("QueueUrl", url)], headers=JSON_ACCEPT
    )
    assert done.json() == {
        "PurgeQueueResponse": {"ResponseMetadata": {"RequestId": done.headers["x-amzn-requestid"]}}
    }


def test_the_json_protocol_ignores_the_accept_header(sqs_server: SqsServer) -> None:
    answer = call_json(
        sqs_server.endpoint_url, "GetQueueUrl", {"QueueName": "missing"}, JSON_ACCEPT
    )
    assert answer.headers["content-type"] == "application/x-amz-json-1.0"
    assert answer.json()["message"] == JSON_MISSING
