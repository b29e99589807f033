"""Standard queue lifecycle, attributes, tags, purge and namespace isolation against sqsmock."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

ACCOUNT = "123456789012"
REGION = "us-east-1"

NON_EXISTENT = ("AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist")
INVALID_PARAMETER = ("InvalidParameterValue", "InvalidParameterValueException")
INVALID_NAME = ("InvalidAttributeName", "InvalidAttributeName")
INVALID_VALUE = ("InvalidAttributeValue", "InvalidAttributeValue")
NAME_EXISTS = ("QueueAlreadyExists", "QueueNameExists")
DELETED_RECENTLY = ("AWS.SimpleQueueService.QueueDeletedRecently", "QueueDeletedRecently")
PURGE_IN_PROGRESS = ("AWS.SimpleQueueService.PurgeQueueInProgress", "PurgeQueueInProgress")

NO_QUEUE_MESSAGE = "The specified queue does not exist."
DELETED_RECENTLY_MESSAGE = (
    "You must wait 60 seconds after deleting a queue before you can create another with the "
    "same name."
)
SSE_CONFLICT_MESSAGE = (
    "You can use one type of server-side encryption (SSE) at one time. You can either enable "
    "KMS SSE or SQS SSE."
)

DEFAULT_ATTRIBUTES = {
    "ApproximateNumberOfMessages": "0",
    "ApproximateNumberOfMessagesDelayed": "0",
    "ApproximateNumberOfMessagesNotVisible": "0",
    "DelaySeconds": "0",
    "MaximumMessageSize": "1048576",
    "MessageRetentionPeriod": "345600",
    "ReceiveMessageWaitTimeSeconds": "0",
    "SqsManagedSseEnabled": "true",
    "VisibilityTimeout": "30",
}

# name: (minimum, maximum)
RANGES = {
    "VisibilityTimeout": (0, 43200),
    "DelaySeconds": (0, 900),
    "MessageRetentionPeriod": (60, 1209600),
    "MaximumMessageSize": (1024, 1048576),
    "ReceiveMessageWaitTimeSeconds": (0, 20),
}
BAD_RANGE_VALUES = [
    (name, value)
    for name, (low, high) in RANGES.items()
    for value in (str(low - 1), str(high + 1), "abc", "1.5", "")
]
GOOD_RANGE_VALUES = [
    (name, str(value)) for name, (low, high) in RANGES.items() for value in (low, high)
]


def url_of(name: str, region: str = REGION, account: str = ACCOUNT) -> str:
    return f"https://sqs.{region}.amazonaws.com/{account}/{name}"


def arn_of(name: str, region: str = REGION, account: str = ACCOUNT) -> str:
    return f"arn:aws:sqs:{region}:{account}:{name}"


def check_error(
    error: BaseException,
    codes: tuple[str, str],
    message: str | None = None,
    status: int = 400,
) -> dict[str, Any]:
    """Assert the legacy code, query shape, type, status and request id of an SQS error."""
    assert isinstance(error, ClientError)
    response = error.response
    code, query_code = codes
    assert response["Error"]["Code"] == code
    assert response["Error"]["QueryErrorCode"] == query_code
    assert response["Error"]["Type"] == "Sender"
    assert response["ResponseMetadata"]["HTTPStatusCode"] == status
    assert response["ResponseMetadata"]["RequestId"]
    if message is not None:
        assert response["Error"]["Message"] == message
    return response


def attributes(client: Any, url: str, *names: str) -> dict[str, str]:
    response = client.get_queue_attributes(QueueUrl=url, AttributeNames=list(names or ["All"]))
    return dict(response.get("Attributes", {}))


def all_queue_urls(client: Any, **kwargs: Any) -> list[str]:
    return list(client.list_queues(**kwargs).get("QueueUrls", []))


# --- CreateQueue: names, URL, ARN ------------------------------------------------------------


def test_create_queue_returns_regional_url(sqs_client: Any) -> None:
    response = sqs_client.create_queue(QueueName="orders")
    assert response["QueueUrl"] == url_of("orders")
    assert response["ResponseMetadata"]["RequestId"]


def test_queue_arn_format(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="orders")["QueueUrl"]
    assert attributes(sqs_client, url, "QueueArn") == {"QueueArn": arn_of("orders")}


@pytest.mark.parametrize(
    "name",
    ["a", "Z", "0", "-", "_", "my-queue_01", "A" * 80, "x" * 79 + "9"],
)
def test_valid_queue_names_are_accepted(sqs_client: Any, name: str) -> None:
    url = sqs_client.create_queue(QueueName=name)["QueueUrl"]
    assert url == url_of(name)
    assert sqs_client.get_queue_url(QueueName=name)["QueueUrl"] == url


@pytest.mark.parametrize(
    "name",
    [
        "a" * 81,
        "with space",
        "dot.name",
        "slash/name",
        "colon:name",
        "star*",
        "caf\u00e9",
        "tab\tname",
    ],
)
def test_invalid_queue_names_are_rejected(sqs_client: Any, name: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        sqs_client.create_queue(QueueName=name)
    check_error(excinfo.value, INVALID_PARAMETER)
    assert type(excinfo.value) is ClientError
    assert "QueueUrls" not in sqs_client.list_queues()


def test_standard_queue_named_fifo_is_rejected(sqs_client: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        sqs_client.create_queue(QueueName="orders.fifo")
    check_error(excinfo.value, INVALID_PARAMETER)
    assert "QueueUrls" not in sqs_client.list_queues()


def test_fifo_attribute_without_fifo_suffix_is_rejected(sqs_client: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        sqs_client.create_queue(QueueName="orders", Attributes={"FifoQueue": "true"})
    check_error(excinfo.value, INVALID_PARAMETER)


def test_queue_names_are_case_sensitive(sqs_client: Any) -> None:
    upper = sqs_client.create_queue(QueueName="Orders")["QueueUrl"]
    lower = sqs_client.create_queue(QueueName="orders")["QueueUrl"]
    assert upper != lower
    sqs_client.send_message(QueueUrl=upper, MessageBody="m")
    assert attributes(sqs_client, lower, "ApproximateNumberOfMessages") == {
        "ApproximateNumberOfMessages": "0"
    }
    with pytest.raises(sqs_client.exceptions.QueueDoesNotExist):
        sqs_client.get_queue_url(QueueName="ORDERS")


# --- CreateQueue: idempotency ----------------------------------------------------------------


def test_recreate_with_identical_attributes_returns_same_url(sqs_client: Any) -> None:
    given = {"VisibilityTimeout": "45", "DelaySeconds": "5"}
    first = sqs_client.create_queue(QueueName="q", Attributes=given)["QueueUrl"]
    second = sqs_client.create_queue(QueueName="q", Attributes=given)["QueueUrl"]
    assert first == second
    assert all_queue_urls(sqs_client) == [first]


def test_recreate_without_attributes_returns_same_url(sqs_client: Any) -> None:
    first = sqs_client.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "45"})
    second = sqs_client.create_queue(QueueName="q")
    assert first["QueueUrl"] == second["QueueUrl"]
    assert attributes(sqs_client, second["QueueUrl"], "VisibilityTimeout") == {
        "VisibilityTimeout": "45"
    }


def test_recreate_with_subset_of_attributes_returns_same_url(sqs_client: Any) -> None:
    first = sqs_client.create_queue(
        QueueName="q", Attributes={"VisibilityTimeout": "45", "DelaySeconds": "5"}
    )["QueueUrl"]
    second = sqs_client.create_queue(QueueName="q", Attributes={"DelaySeconds": "5"})["QueueUrl"]
    assert first == second


def test_recreate_with_explicit_default_returns_same_url(sqs_client: Any) -> None:
    first = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    second = sqs_client.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "30"})
    assert second["QueueUrl"] == first


def test_recreate_with_different_value_raises_queue_name_exists(sqs_client: Any) -> None:
    sqs_client.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "45"})
    with pytest.raises(sqs_client.exceptions.QueueNameExists) as excinfo:
        sqs_client.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "46"})
    check_error(
        excinfo.value,
        NAME_EXISTS,
        "A queue already exists with the same name and a different value for attribute "
        "VisibilityTimeout",
    )
    assert attributes(sqs_client, "q", "VisibilityTimeout") == {"VisibilityTimeout": "45"}


def test_recreate_with_non_default_value_on_default_queue_raises(sqs_client: Any) -> None:
    sqs_client.create_queue(QueueName="q")
    with pytest.raises(sqs_client.exceptions.QueueNameExists) as excinfo:
        sqs_client.create_queue(QueueName="q", Attributes={"DelaySeconds": "10"})
    check_error(excinfo.value, NAME_EXISTS)


def test_recreate_compares_with_current_attributes(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "30"})["QueueUrl"]
    sqs_client.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": "60"})
    again = sqs_client.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "60"})
    assert again["QueueUrl"] == url
    with pytest.raises(sqs_client.exceptions.QueueNameExists) as excinfo:
        sqs_client.create_queue(QueueName="q", Attributes={"VisibilityTimeout": "30"})
    check_error(excinfo.value, NAME_EXISTS)


def test_create_queue_tags_apply(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q", tags={"team": "core", "env": ""})["QueueUrl"]
    assert sqs_client.list_queue_tags(QueueUrl=url)["Tags"] == {"team": "core", "env": ""}


def test_create_queue_attributes_apply(sqs_client: Any) -> None:
    url = sqs_client.create_queue(
        QueueName="q",
        Attributes={"VisibilityTimeout": "120", "MessageRetentionPeriod": "600"},
    )["QueueUrl"]
    got = attributes(sqs_client, url, "VisibilityTimeout", "MessageRetentionPeriod")
    assert got == {"VisibilityTimeout": "120", "MessageRetentionPeriod": "600"}


# --- DeleteQueue / QueueDeletedRecently ------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda c, url: c.get_queue_attributes(QueueUrl=url, AttributeNames=["All"]),
        lambda c, url: c.send_message(QueueUrl=url, MessageBody="m"),
        lambda c, url: c.receive_message(QueueUrl=url),
        lambda c, url: c.purge_queue(QueueUrl=url),
        lambda c, url: c.delete_queue(QueueUrl=url),
        lambda c, url: c.set_queue_attributes(QueueUrl=url, Attributes={"DelaySeconds": "1"}),
        lambda c, url: c.list_queue_tags(QueueUrl=url),
        lambda c, url: c.tag_queue(QueueUrl=url, Tags={"a": "b"}),
        lambda c, url: c.get_queue_url(QueueName="gone"),
    ],
    ids=[
        "get_queue_attributes",
        "send_message",
        "receive_message",
        "purge_queue",
        "delete_queue",
        "set_queue_attributes",
        "list_queue_tags",
        "tag_queue",
        "get_queue_url",
    ],
)
def test_deleted_queue_does_not_exist(sqs_client: Any, call: Any) -> None:
    url = sqs_client.create_queue(QueueName="gone")["QueueUrl"]
    sqs_client.delete_queue(QueueUrl=url)
    with pytest.raises(sqs_client.exceptions.QueueDoesNotExist) as excinfo:
        call(sqs_client, url)
    check_error(excinfo.value, NON_EXISTENT, NO_QUEUE_MESSAGE)


def test_deleted_queue_is_not_listed(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="gone")["QueueUrl"]
    kept = sqs_client.create_queue(QueueName="kept")["QueueUrl"]
    sqs_client.delete_queue(QueueUrl=url)
    assert all_queue_urls(sqs_client) == [kept]


@pytest.mark.sqsmock(clock="frozen")
def test_recreate_within_60_seconds_of_delete_fails(sqs_mock: Any, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    sqs_client.delete_queue(QueueUrl=url)
    sqs_mock.clock.advance(59)
    with pytest.raises(sqs_client.exceptions.QueueDeletedRecently) as excinfo:
        sqs_client.create_queue(QueueName="q")
    check_error(excinfo.value, DELETED_RECENTLY, DELETED_RECENTLY_MESSAGE)
    with pytest.raises(sqs_client.exceptions.QueueDoesNotExist):
        sqs_client.get_queue_url(QueueName="q")


@pytest.mark.sqsmock(clock="frozen")
def test_recreate_after_60_seconds_of_delete_works(sqs_mock: Any, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q", Attributes={"DelaySeconds": "5"})["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="old")
    sqs_client.delete_queue(QueueUrl=url)
    sqs_mock.clock.advance(61)
    again = sqs_client.create_queue(QueueName="q", Attributes={"DelaySeconds": "7"})["QueueUrl"]
    assert again == url
    got = attributes(sqs_client, again)
    assert got["DelaySeconds"] == "7"
    assert got["ApproximateNumberOfMessagesDelayed"] == "0"
    assert sqs_mock.peek(again) == []


@pytest.mark.sqsmock(clock="frozen")
def test_delete_blocks_only_the_deleted_name(sqs_client: Any) -> None:
    sqs_client.delete_queue(QueueUrl=sqs_client.create_queue(QueueName="q")["QueueUrl"])
    assert sqs_client.create_queue(QueueName="q2")["QueueUrl"] == url_of("q2")


# --- GetQueueUrl ----------------------------------------------------------------------------


def test_get_queue_url_returns_url(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    response = sqs_client.get_queue_url(QueueName="q")
    assert response["QueueUrl"] == url
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 200


def test_get_queue_url_unknown_queue(sqs_client: Any) -> None:
    with pytest.raises(sqs_client.exceptions.QueueDoesNotExist) as excinfo:
        sqs_client.get_queue_url(QueueName="missing")
    check_error(excinfo.value, NON_EXISTENT, NO_QUEUE_MESSAGE)


def test_get_queue_url_with_own_account_id(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    response = sqs_client.get_queue_url(QueueName="q", QueueOwnerAWSAccountId=ACCOUNT)
    assert response["QueueUrl"] == url


def test_get_queue_url_with_other_account_id(sqs_client: Any) -> None:
    sqs_client.create_queue(QueueName="q")
    with pytest.raises(sqs_client.exceptions.QueueDoesNotExist) as excinfo:
        sqs_client.get_queue_url(QueueName="q", QueueOwnerAWSAccountId="210987654321")
    check_error(excinfo.value, NON_EXISTENT, NO_QUEUE_MESSAGE)


# --- ListQueues -----------------------------------------------------------------------------


def test_list_queues_empty_has_no_queue_urls_key(sqs_client: Any) -> None:
    response = sqs_client.list_queues()
    assert "QueueUrls" not in response
    assert "NextToken" not in response


def test_list_queues_returns_all(sqs_client: Any) -> None:
    urls = {sqs_client.create_queue(QueueName=n)["QueueUrl"] for n in ("a", "b", "c")}
    response = sqs_client.list_queues()
    assert set(response["QueueUrls"]) == urls
    assert len(response["QueueUrls"]) == 3
    assert "NextToken" not in response


def test_list_queues_prefix_filter(sqs_client: Any) -> None:
    for name in ("orders", "orders-dlq", "ord", "audit-orders", "Orders"):
        sqs_client.create_queue(QueueName=name)
    got = sorted(all_queue_urls(sqs_client, QueueNamePrefix="orders"))
    assert got == [url_of("orders"), url_of("orders-dlq")]


def test_list_queues_prefix_without_match_has_no_queue_urls_key(sqs_client: Any) -> None:
    sqs_client.create_queue(QueueName="orders")
    response = sqs_client.list_queues(QueueNamePrefix="zzz")
    assert "QueueUrls" not in response


@pytest.mark.parametrize("max_results", [0, -1, 1001])
def test_list_queues_max_results_out_of_range(sqs_client: Any, max_results: int) -> None:
    with pytest.raises(ClientError) as excinfo:
        sqs_client.list_queues(MaxResults=max_results)
    check_error(excinfo.value, INVALID_PARAMETER)


@pytest.mark.parametrize("max_results", [1, 1000])
def test_list_queues_max_results_bounds_accepted(sqs_client: Any, max_results: int) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    response = sqs_client.list_queues(MaxResults=max_results)
    assert response["QueueUrls"] == [url]
    assert "NextToken" not in response


def test_list_queues_paging_visits_every_queue_once(sqs_client: Any) -> None:
    expected = {sqs_client.create_queue(QueueName=f"page-{i}")["QueueUrl"] for i in range(5)}
    sqs_client.create_queue(QueueName="other")
    seen: list[str] = []
    sizes: list[int] = []
    kwargs: dict[str, Any] = {"QueueNamePrefix": "page-", "MaxResults": 2}
    for _ in range(10):
        response = sqs_client.list_queues(**kwargs)
        seen.extend(response["QueueUrls"])
        sizes.append(len(response["QueueUrls"]))
        if "NextToken" not in response:
            break
        kwargs["NextToken"] = response["NextToken"]
    assert sizes == [2, 2, 1]
    assert len(seen) == 5
    assert set(seen) == expected


def test_list_queues_no_next_token_when_page_holds_the_rest(sqs_client: Any) -> None:
    for i in range(3):
        sqs_client.create_queue(QueueName=f"q{i}")
    response = sqs_client.list_queues(MaxResults=3)
    assert len(response["QueueUrls"]) == 3
    assert "NextToken" not in response


def test_list_queues_next_token_only_with_max_results(sqs_client: Any) -> None:
    for i in range(3):
        sqs_client.create_queue(QueueName=f"q{i}")
    assert "NextToken" not in sqs_client.list_queues()
    limited = sqs_client.list_queues(MaxResults=2)
    assert len(limited["QueueUrls"]) == 2
    assert limited["NextToken"]


@pytest.mark.slow
def test_list_queues_caps_at_1000(sqs_client: Any) -> None:
    for i in range(1001):
        sqs_client.create_queue(QueueName=f"q{i:04d}")
    unlimited = sqs_client.list_queues()
    assert len(unlimited["QueueUrls"]) == 1000
    assert "NextToken" not in unlimited
    limited = sqs_client.list_queues(MaxResults=1000)
    assert len(limited["QueueUrls"]) == 1000
    rest = sqs_client.list_queues(MaxResults=1000, NextToken=limited["NextToken"])
    assert len(rest["QueueUrls"]) == 1
    assert "NextToken" not in rest
    assert set(limited["QueueUrls"]) | set(rest["QueueUrls"]) == {
        url_of(f"q{i:04d}") for i in range(1001)
    }


# --- GetQueueAttributes ---------------------------------------------------------------------


@pytest.mark.sqsmock(clock="frozen")
def test_get_all_attributes_of_new_standard_queue(sqs_mock: Any, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    got = attributes(sqs_client, url)
    now = str(int(sqs_mock.clock.now()))
    assert got == {
        **DEFAULT_ATTRIBUTES,
        "CreatedTimestamp": now,
        "LastModifiedTimestamp": now,
        "QueueArn": arn_of("q"),
    }


@pytest.mark.sqsmock(clock="frozen")
def test_timestamps_are_integer_epoch_seconds(sqs_mock: Any, sqs_client: Any) -> None:
    sqs_mock.clock.advance(0.75)
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    got = attributes(sqs_client, url, "CreatedTimestamp", "LastModifiedTimestamp")
    for value in got.values():
        assert value.isdigit()
        assert abs(int(value) - sqs_mock.clock.now()) < 1
    assert set(got) == {"CreatedTimestamp", "LastModifiedTimestamp"}


@pytest.mark.sqsmock(clock="frozen")
def test_last_modified_moves_after_set_attributes(sqs_mock: Any, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    before = attributes(sqs_client, url, "CreatedTimestamp", "LastModifiedTimestamp")
    sqs_mock.clock.advance(100)
    sqs_client.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": "10"})
    after = attributes(sqs_client, url, "CreatedTimestamp", "LastModifiedTimestamp")
    assert after["CreatedTimestamp"] == before["CreatedTimestamp"]
    assert int(after["LastModifiedTimestamp"]) == int(before["LastModifiedTimestamp"]) + 100


def test_get_selected_attributes_only(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    got = attributes(sqs_client, url, "VisibilityTimeout", "QueueArn")
    assert got == {"VisibilityTimeout": "30", "QueueArn": arn_of("q")}


def test_get_attributes_without_names_has_no_attributes_key(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    response = sqs_client.get_queue_attributes(QueueUrl=url)
    assert "Attributes" not in response


def test_get_unknown_attribute_name(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    with pytest.raises(sqs_client.exceptions.InvalidAttributeName) as excinfo:
        sqs_client.get_queue_attributes(QueueUrl=url, AttributeNames=["Foobar"])
    check_error(excinfo.value, INVALID_NAME, "Unknown Attribute Foobar.")


def test_get_fifo_queue_attribute_on_standard_queue(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    with pytest.raises(sqs_client.exceptions.InvalidAttributeName) as excinfo:
        sqs_client.get_queue_attributes(QueueUrl=url, AttributeNames=["FifoQueue"])
    check_error(excinfo.value, INVALID_NAME, "Unknown Attribute FifoQueue.")


def test_get_content_based_deduplication_on_standard_queue(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    with pytest.raises(sqs_client.exceptions.InvalidAttributeName) as excinfo:
        sqs_client.get_queue_attributes(QueueUrl=url, AttributeNames=["ContentBasedDeduplication"])
    check_error(excinfo.value, INVALID_NAME)


@pytest.mark.parametrize(
    "name", ["Policy", "RedrivePolicy", "RedriveAllowPolicy", "KmsMasterKeyId"]
)
def test_optional_attributes_absent_until_set(sqs_client: Any, name: str) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    assert name not in attributes(sqs_client, url)
    assert name not in attributes(sqs_client, url, name)


# --- Attribute validation -------------------------------------------------------------------


@pytest.mark.parametrize(("name", "value"), BAD_RANGE_VALUES)
def test_set_attribute_out_of_range(sqs_client: Any, name: str, value: str) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    before = attributes(sqs_client, url, name)
    with pytest.raises(sqs_client.exceptions.InvalidAttributeValue) as excinfo:
        sqs_client.set_queue_attributes(QueueUrl=url, Attributes={name: value})
    check_error(excinfo.value, INVALID_VALUE, f"Invalid value for the parameter {name}.")
    assert attributes(sqs_client, url, name) == before


@pytest.mark.parametrize(("name", "value"), BAD_RANGE_VALUES)
def test_create_with_attribute_out_of_range(sqs_client: Any, name: str, value: str) -> None:
    with pytest.raises(sqs_client.exceptions.InvalidAttributeValue) as excinfo:
        sqs_client.create_queue(QueueName="q", Attributes={name: value})
    check_error(excinfo.value, INVALID_VALUE, f"Invalid value for the parameter {name}.")
    assert "QueueUrls" not in sqs_client.list_queues()


@pytest.mark.parametrize(("name", "value"), GOOD_RANGE_VALUES)
def test_set_attribute_range_bounds_accepted(sqs_client: Any, name: str, value: str) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    sqs_client.set_queue_attributes(QueueUrl=url, Attributes={name: value})
    assert attributes(sqs_client, url, name) == {name: value}


@pytest.mark.parametrize(("name", "value"), GOOD_RANGE_VALUES)
def test_create_with_attribute_range_bounds(sqs_client: Any, name: str, value: str) -> None:
    url = sqs_client.create_queue(QueueName="q", Attributes={name: value})["QueueUrl"]
    assert attributes(sqs_client, url, name) == {name: value}


def test_set_unknown_attribute_name(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    with pytest.raises(sqs_client.exceptions.InvalidAttributeName) as excinfo:
        sqs_client.set_queue_attributes(QueueUrl=url, Attributes={"Foobar": "1"})
    check_error(excinfo.value, INVALID_NAME, "Unknown Attribute Foobar.")


def test_create_with_unknown_attribute_name(sqs_client: Any) -> None:
    with pytest.raises(sqs_client.exceptions.InvalidAttributeName) as excinfo:
        sqs_client.create_queue(QueueName="q", Attributes={"Foobar": "1"})
    check_error(excinfo.value, INVALID_NAME, "Unknown Attribute Foobar.")
    assert "QueueUrls" not in sqs_client.list_queues()


def test_set_fifo_queue_on_standard_queue(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    with pytest.raises(sqs_client.exceptions.InvalidAttributeName) as excinfo:
        sqs_client.set_queue_attributes(QueueUrl=url, Attributes={"FifoQueue": "true"})
    check_error(excinfo.value, INVALID_NAME, "Unknown Attribute FifoQueue.")


@pytest.mark.parametrize("value", ["true", "false"])
def test_set_content_based_deduplication_on_standard_queue(sqs_client: Any, value: str) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    with pytest.raises(sqs_client.exceptions.InvalidAttributeName) as excinfo:
        sqs_client.set_queue_attributes(
            QueueUrl=url, Attributes={"ContentBasedDeduplication": value}
        )
    check_error(excinfo.value, INVALID_NAME)


def test_create_standard_with_content_based_deduplication(sqs_client: Any) -> None:
    with pytest.raises(sqs_client.exceptions.InvalidAttributeName) as excinfo:
        sqs_client.create_queue(QueueName="q", Attributes={"ContentBasedDeduplication": "true"})
    check_error(excinfo.value, INVALID_NAME)
    assert "QueueUrls" not in sqs_client.list_queues()


@pytest.mark.parametrize("create", [True, False], ids=["create", "set"])
def test_deduplication_scope_on_standard_queue(sqs_client: Any, create: bool) -> None:
    setting = {"DeduplicationScope": "messageGroup"}
    with pytest.raises(sqs_client.exceptions.InvalidAttributeName) as excinfo:
        if create:
            sqs_client.create_queue(QueueName="q", Attributes=setting)
        else:
            url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
            sqs_client.set_queue_attributes(QueueUrl=url, Attributes=setting)
    check_error(
        excinfo.value,
        INVALID_NAME,
        "You can specify the DeduplicationScope only when FifoQueue is set to true.",
    )


@pytest.mark.parametrize("create", [True, False], ids=["create", "set"])
def test_fifo_throughput_limit_on_standard_queue(sqs_client: Any, create: bool) -> None:
    setting = {"FifoThroughputLimit": "perQueue"}
    with pytest.raises(sqs_client.exceptions.InvalidAttributeName) as excinfo:
        if create:
            sqs_client.create_queue(QueueName="q", Attributes=setting)
        else:
            url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
            sqs_client.set_queue_attributes(QueueUrl=url, Attributes=setting)
    response = check_error(excinfo.value, INVALID_NAME)
    assert response["Error"]["Message"] in {
        "You can specify the DeduplicationScope only when FifoQueue is set to true.",
        "You can specify the FifoThroughputLimit only when FifoQueue is set to true.",
    }


def test_failed_set_changes_nothing(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    with pytest.raises(sqs_client.exceptions.InvalidAttributeValue):
        sqs_client.set_queue_attributes(
            QueueUrl=url, Attributes={"DelaySeconds": "5", "VisibilityTimeout": "99999"}
        )
    assert attributes(sqs_client, url, "DelaySeconds", "VisibilityTimeout") == {
        "DelaySeconds": "0",
        "VisibilityTimeout": "30",
    }


# --- Policy, SSE ----------------------------------------------------------------------------


def _policy(resource: str) -> str:
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Sid": "s1",
                    "Effect": "Allow",
                    "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"},
                    "Action": "SQS:SendMessage",
                    "Resource": resource,
                }
            ],
        }
    )


def test_set_policy_is_returned(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    policy = _policy(arn_of("q"))
    sqs_client.set_queue_attributes(QueueUrl=url, Attributes={"Policy": policy})
    assert json.loads(attributes(sqs_client, url)["Policy"]) == json.loads(policy)


def test_empty_policy_removes_it(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q", Attributes={"Policy": _policy(arn_of("q"))})[
        "QueueUrl"
    ]
    assert "Policy" in attributes(sqs_client, url)
    sqs_client.set_queue_attributes(QueueUrl=url, Attributes={"Policy": ""})
    assert "Policy" not in attributes(sqs_client, url)


def test_kms_key_disables_sqs_managed_sse_on_create(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q", Attributes={"KmsMasterKeyId": "alias/aws/sqs"})[
        "QueueUrl"
    ]
    got = attributes(sqs_client, url)
    assert got["KmsMasterKeyId"] == "alias/aws/sqs"
    assert got["SqsManagedSseEnabled"] == "false"


def test_kms_key_disables_sqs_managed_sse_on_set(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    sqs_client.set_queue_attributes(QueueUrl=url, Attributes={"KmsMasterKeyId": "alias/my-key"})
    got = attributes(sqs_client, url)
    assert got["KmsMasterKeyId"] == "alias/my-key"
    assert got["SqsManagedSseEnabled"] == "false"


@pytest.mark.parametrize("create", [True, False], ids=["create", "set"])
def test_kms_and_sqs_managed_sse_together_rejected(sqs_client: Any, create: bool) -> None:
    both = {"KmsMasterKeyId": "alias/aws/sqs", "SqsManagedSseEnabled": "true"}
    with pytest.raises(sqs_client.exceptions.InvalidAttributeName) as excinfo:
        if create:
            sqs_client.create_queue(QueueName="q", Attributes=both)
        else:
            url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
            sqs_client.set_queue_attributes(QueueUrl=url, Attributes=both)
    check_error(excinfo.value, INVALID_NAME, SSE_CONFLICT_MESSAGE)


def test_sqs_managed_sse_can_be_disabled(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q", Attributes={"SqsManagedSseEnabled": "false"})[
        "QueueUrl"
    ]
    got = attributes(sqs_client, url)
    assert got["SqsManagedSseEnabled"] == "false"
    assert "KmsMasterKeyId" not in got


# --- RedrivePolicy / RedriveAllowPolicy -----------------------------------------------------


def _redrive(target: str, count: Any) -> str:
    return json.dumps({"deadLetterTargetArn": target, "maxReceiveCount": count})


@pytest.mark.parametrize("count", [3, "3"], ids=["int", "string"])
def test_redrive_policy_returned_as_json_number(sqs_client: Any, count: Any) -> None:
    sqs_client.create_queue(QueueName="dlq")
    url = sqs_client.create_queue(QueueName="src")["QueueUrl"]
    sqs_client.set_queue_attributes(
        QueueUrl=url, Attributes={"RedrivePolicy": _redrive(arn_of("dlq"), count)}
    )
    stored = json.loads(attributes(sqs_client, url, "RedrivePolicy")["RedrivePolicy"])
    assert stored == {"deadLetterTargetArn": arn_of("dlq"), "maxReceiveCount": 3}
    assert type(stored["maxReceiveCount"]) is int


def test_redrive_policy_on_create(sqs_client: Any) -> None:
    sqs_client.create_queue(QueueName="dlq")
    url = sqs_client.create_queue(
        QueueName="src", Attributes={"RedrivePolicy": _redrive(arn_of("dlq"), "5")}
    )["QueueUrl"]
    stored = json.loads(attributes(sqs_client, url)["RedrivePolicy"])
    assert stored == {"deadLetterTargetArn": arn_of("dlq"), "maxReceiveCount": 5}


@pytest.mark.parametrize("count", [1, 1000])
def test_redrive_policy_max_receive_count_bounds(sqs_client: Any, count: int) -> None:
    sqs_client.create_queue(QueueName="dlq")
    url = sqs_client.create_queue(QueueName="src")["QueueUrl"]
    sqs_client.set_queue_attributes(
        QueueUrl=url, Attributes={"RedrivePolicy": _redrive(arn_of("dlq"), count)}
    )
    stored = json.loads(attributes(sqs_client, url, "RedrivePolicy")["RedrivePolicy"])
    assert stored["maxReceiveCount"] == count


@pytest.mark.parametrize(
    "policy",
    [
        _redrive(arn_of("dlq"), 0),
        _redrive(arn_of("dlq"), 1001),
        _redrive(arn_of("dlq"), "many"),
        _redrive(arn_of("missing"), 3),
        "not json",
        json.dumps({"maxReceiveCount": 3}),
    ],
    ids=["count-0", "count-1001", "count-text", "missing-target", "not-json", "no-target"],
)
def test_invalid_redrive_policy_rejected(sqs_client: Any, policy: str) -> None:
    sqs_client.create_queue(QueueName="dlq")
    url = sqs_client.create_queue(QueueName="src")["QueueUrl"]
    with pytest.raises(ClientError) as excinfo:
        sqs_client.set_queue_attributes(QueueUrl=url, Attributes={"RedrivePolicy": policy})
    check_error(excinfo.value, INVALID_PARAMETER)
    assert "RedrivePolicy" not in attributes(sqs_client, url)


def test_redrive_policy_target_in_other_region_does_not_exist(sqs_client: Any) -> None:
    other = boto3.client("sqs", region_name="eu-west-1")
    other.create_queue(QueueName="dlq")
    url = sqs_client.create_queue(QueueName="src")["QueueUrl"]
    with pytest.raises(ClientError) as excinfo:
        sqs_client.set_queue_attributes(
            QueueUrl=url, Attributes={"RedrivePolicy": _redrive(arn_of("dlq"), 3)}
        )
    check_error(excinfo.value, INVALID_PARAMETER)


def test_empty_redrive_policy_removes_it(sqs_client: Any) -> None:
    sqs_client.create_queue(QueueName="dlq")
    url = sqs_client.create_queue(
        QueueName="src", Attributes={"RedrivePolicy": _redrive(arn_of("dlq"), 3)}
    )["QueueUrl"]
    sqs_client.set_queue_attributes(QueueUrl=url, Attributes={"RedrivePolicy": ""})
    assert "RedrivePolicy" not in attributes(sqs_client, url)


SOURCE_ARNS = [arn_of(f"src-{i}") for i in range(11)]


@pytest.mark.parametrize(
    "policy",
    [
        {"redrivePermission": "allowAll"},
        {"redrivePermission": "denyAll"},
        {"redrivePermission": "byQueue", "sourceQueueArns": SOURCE_ARNS[:1]},
        {"redrivePermission": "byQueue", "sourceQueueArns": SOURCE_ARNS[:10]},
    ],
    ids=["allowAll", "denyAll", "byQueue-1", "byQueue-10"],
)
def test_redrive_allow_policy_accepted(sqs_client: Any, policy: dict[str, Any]) -> None:
    url = sqs_client.create_queue(QueueName="dlq")["QueueUrl"]
    sqs_client.set_queue_attributes(
        QueueUrl=url, Attributes={"RedriveAllowPolicy": json.dumps(policy)}
    )
    stored = attributes(sqs_client, url)["RedriveAllowPolicy"]
    assert json.loads(stored) == policy


@pytest.mark.parametrize(
    "policy",
    [
        json.dumps({"redrivePermission": "byQueue", "sourceQueueArns": SOURCE_ARNS}),
        json.dumps({"redrivePermission": "allowAll", "sourceQueueArns": SOURCE_ARNS[:1]}),
        json.dumps({"redrivePermission": "denyAll", "sourceQueueArns": SOURCE_ARNS[:1]}),
        json.dumps({"redrivePermission": "sometimes"}),
        "not json",
    ],
    ids=["byQueue-11", "allowAll-with-arns", "denyAll-with-arns", "bad-permission", "not-json"],
)
def test_invalid_redrive_allow_policy_rejected(sqs_client: Any, policy: str) -> None:
    url = sqs_client.create_queue(QueueName="dlq")["QueueUrl"]
    with pytest.raises(ClientError) as excinfo:
        sqs_client.set_queue_attributes(QueueUrl=url, Attributes={"RedriveAllowPolicy": policy})
    check_error(excinfo.value, INVALID_PARAMETER)
    assert "RedriveAllowPolicy" not in attributes(sqs_client, url)


# --- PurgeQueue -----------------------------------------------------------------------------


@pytest.mark.sqsmock(clock="frozen")
def test_purge_removes_visible_inflight_and_delayed(sqs_mock: Any, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="in-flight")
    assert len(sqs_client.receive_message(QueueUrl=url)["Messages"]) == 1
    sqs_client.send_message(QueueUrl=url, MessageBody="visible")
    sqs_client.send_message(QueueUrl=url, MessageBody="delayed", DelaySeconds=60)
    counters = (
        "ApproximateNumberOfMessages",
        "ApproximateNumberOfMessagesNotVisible",
        "ApproximateNumberOfMessagesDelayed",
    )
    assert attributes(sqs_client, url, *counters) == dict.fromkeys(counters, "1")

    sqs_client.purge_queue(QueueUrl=url)

    assert attributes(sqs_client, url, *counters) == dict.fromkeys(counters, "0")
    assert sqs_mock.peek(url) == []
    sqs_mock.clock.advance(120)
    assert "Messages" not in sqs_client.receive_message(QueueUrl=url, MaxNumberOfMessages=10)


@pytest.mark.sqsmock(clock="frozen")
def test_second_purge_within_60_seconds_rejected(sqs_mock: Any, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="jobs")["QueueUrl"]
    sqs_client.purge_queue(QueueUrl=url)
    sqs_mock.clock.advance(59)
    with pytest.raises(sqs_client.exceptions.PurgeQueueInProgress) as excinfo:
        sqs_client.purge_queue(QueueUrl=url)
    check_error(
        excinfo.value,
        PURGE_IN_PROGRESS,
        "Only one PurgeQueue operation on jobs is allowed every 60 seconds.",
        status=403,
    )


@pytest.mark.sqsmock(clock="frozen")
def test_purge_allowed_again_after_60_seconds(sqs_mock: Any, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="jobs")["QueueUrl"]
    sqs_client.purge_queue(QueueUrl=url)
    sqs_mock.clock.advance(60)
    sqs_client.send_message(QueueUrl=url, MessageBody="m")
    sqs_client.purge_queue(QueueUrl=url)
    assert sqs_mock.peek(url) == []


@pytest.mark.sqsmock(clock="frozen")
def test_purge_limit_is_per_queue(sqs_mock: Any, sqs_client: Any) -> None:
    first = sqs_client.create_queue(QueueName="a")["QueueUrl"]
    second = sqs_client.create_queue(QueueName="b")["QueueUrl"]
    sqs_client.send_message(QueueUrl=second, MessageBody="m")
    sqs_client.purge_queue(QueueUrl=first)
    sqs_client.purge_queue(QueueUrl=second)
    assert sqs_mock.peek(second) == []


@pytest.mark.sqsmock(clock="frozen")
def test_messages_sent_after_purge_are_kept(sqs_mock: Any, sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    sqs_client.send_message(QueueUrl=url, MessageBody="old")
    sqs_client.purge_queue(QueueUrl=url)
    sqs_mock.clock.advance(1)
    sqs_client.send_message(QueueUrl=url, MessageBody="new")
    messages = sqs_client.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in messages] == ["new"]


# --- Tags -----------------------------------------------------------------------------------


def test_untagged_queue_has_no_tags_key(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    assert "Tags" not in sqs_client.list_queue_tags(QueueUrl=url)


def test_tag_queue_adds_tags(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    sqs_client.tag_queue(QueueUrl=url, Tags={"team": "core", "empty": ""})
    sqs_client.tag_queue(QueueUrl=url, Tags={"cost": "42"})
    assert sqs_client.list_queue_tags(QueueUrl=url)["Tags"] == {
        "team": "core",
        "empty": "",
        "cost": "42",
    }


def test_tag_keys_are_case_sensitive(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    sqs_client.tag_queue(QueueUrl=url, Tags={"Env": "prod", "env": "dev"})
    sqs_client.untag_queue(QueueUrl=url, TagKeys=["ENV"])
    assert sqs_client.list_queue_tags(QueueUrl=url)["Tags"] == {"Env": "prod", "env": "dev"}


def test_tag_queue_overwrites_value(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q", tags={"env": "dev"})["QueueUrl"]
    sqs_client.tag_queue(QueueUrl=url, Tags={"env": "prod"})
    assert sqs_client.list_queue_tags(QueueUrl=url)["Tags"] == {"env": "prod"}


def test_untag_queue_removes_and_ignores_unknown_keys(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q", tags={"a": "1", "b": "2"})["QueueUrl"]
    sqs_client.untag_queue(QueueUrl=url, TagKeys=["a", "never-set"])
    assert sqs_client.list_queue_tags(QueueUrl=url)["Tags"] == {"b": "2"}
    sqs_client.untag_queue(QueueUrl=url, TagKeys=["b"])
    assert "Tags" not in sqs_client.list_queue_tags(QueueUrl=url)


def test_fifty_tags_allowed(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    tags = {f"k{i}": f"v{i}" for i in range(50)}
    sqs_client.tag_queue(QueueUrl=url, Tags=tags)
    assert sqs_client.list_queue_tags(QueueUrl=url)["Tags"] == tags


def test_fifty_one_tags_rejected(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    with pytest.raises(ClientError) as excinfo:
        sqs_client.tag_queue(QueueUrl=url, Tags={f"k{i}": "v" for i in range(51)})
    check_error(excinfo.value, INVALID_PARAMETER)
    assert "Tags" not in sqs_client.list_queue_tags(QueueUrl=url)


def test_tags_beyond_fifty_in_total_rejected(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q", tags={f"k{i}": "v" for i in range(50)})["QueueUrl"]
    sqs_client.tag_queue(QueueUrl=url, Tags={"k0": "changed"})
    with pytest.raises(ClientError) as excinfo:
        sqs_client.tag_queue(QueueUrl=url, Tags={"k50": "v"})
    check_error(excinfo.value, INVALID_PARAMETER)
    tags = sqs_client.list_queue_tags(QueueUrl=url)["Tags"]
    assert len(tags) == 50
    assert tags["k0"] == "changed"


def test_create_queue_with_fifty_one_tags_rejected(sqs_client: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        sqs_client.create_queue(QueueName="q", tags={f"k{i}": "v" for i in range(51)})
    check_error(excinfo.value, INVALID_PARAMETER)


# --- Isolation and addressing ---------------------------------------------------------------


def test_same_name_in_two_regions_are_different_queues(sqs_client: Any) -> None:
    other = boto3.client("sqs", region_name="eu-west-1")
    here = sqs_client.create_queue(QueueName="q", Attributes={"DelaySeconds": "5"})["QueueUrl"]
    there = other.create_queue(QueueName="q", Attributes={"DelaySeconds": "9"})["QueueUrl"]
    assert here == url_of("q")
    assert there == url_of("q", region="eu-west-1")
    assert attributes(other, there, "QueueArn") == {"QueueArn": arn_of("q", region="eu-west-1")}
    sqs_client.send_message(QueueUrl=here, MessageBody="m")
    assert attributes(other, there, "ApproximateNumberOfMessagesDelayed", "DelaySeconds") == {
        "ApproximateNumberOfMessagesDelayed": "0",
        "DelaySeconds": "9",
    }
    assert all_queue_urls(sqs_client) == [here]
    assert all_queue_urls(other) == [there]


def test_delete_in_one_region_keeps_the_other(sqs_client: Any) -> None:
    other = boto3.client("sqs", region_name="eu-west-1")
    here = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    there = other.create_queue(QueueName="q")["QueueUrl"]
    other.delete_queue(QueueUrl=there)
    assert sqs_client.get_queue_url(QueueName="q")["QueueUrl"] == here
    with pytest.raises(other.exceptions.QueueDoesNotExist):
        other.get_queue_url(QueueName="q")


def test_queue_unknown_in_other_region(sqs_client: Any) -> None:
    sqs_client.create_queue(QueueName="q")
    other = boto3.client("sqs", region_name="ap-southeast-2")
    with pytest.raises(other.exceptions.QueueDoesNotExist) as excinfo:
        other.get_queue_url(QueueName="q")
    check_error(excinfo.value, NON_EXISTENT, NO_QUEUE_MESSAGE)
    assert "QueueUrls" not in other.list_queues()


@pytest.mark.sqsmock(account_id="111122223333")
def test_account_id_option_changes_url_and_arn(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    assert url == url_of("q", account="111122223333")
    assert attributes(sqs_client, url, "QueueArn") == {
        "QueueArn": arn_of("q", account="111122223333")
    }
    assert sqs_client.get_queue_url(QueueName="q")["QueueUrl"] == url


@pytest.mark.sqsmock(region="eu-central-1")
def test_region_option_changes_url_and_arn(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    assert url == url_of("q", region="eu-central-1")
    assert attributes(sqs_client, url, "QueueArn") == {
        "QueueArn": arn_of("q", region="eu-central-1")
    }


def test_bare_queue_name_works_as_queue_url(sqs_client: Any) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    sqs_client.send_message(QueueUrl="q", MessageBody="hello")
    assert attributes(sqs_client, "q", "QueueArn") == {"QueueArn": arn_of("q")}
    messages = sqs_client.receive_message(QueueUrl=url)["Messages"]
    assert [m["Body"] for m in messages] == ["hello"]


def test_bare_unknown_queue_name_does_not_exist(sqs_client: Any) -> None:
    with pytest.raises(sqs_client.exceptions.QueueDoesNotExist) as excinfo:
        sqs_client.send_message(QueueUrl="missing", MessageBody="m")
    check_error(excinfo.value, NON_EXISTENT, NO_QUEUE_MESSAGE)


@pytest.mark.parametrize(
    "address",
    [
        f"http://localhost:4566/{ACCOUNT}/q",
        f"https://queue.amazonaws.com/{ACCOUNT}/q",
        f"http://sqs.us-east-1.localhost.localstack.cloud:4566/{ACCOUNT}/q",
    ],
)
def test_url_with_any_host_finds_queue(sqs_client: Any, address: str) -> None:
    url = sqs_client.create_queue(QueueName="q")["QueueUrl"]
    sqs_client.send_message(QueueUrl=address, MessageBody="via other host")
    messages = sqs_client.receive_message(QueueUrl=url)["Messages"]
    assert [m["Body"] for m in messages] == ["via other host"]
    assert attributes(sqs_client, address, "QueueArn") == {"QueueArn": arn_of("q")}


def test_url_naming_other_account_does_not_exist(sqs_client: Any) -> None:
    sqs_client.create_queue(QueueName="q")
    with pytest.raises(sqs_client.exceptions.QueueDoesNotExist) as excinfo:
        sqs_client.send_message(QueueUrl=url_of("q", account="999999999999"), MessageBody="m")
    check_error(excinfo.value, NON_EXISTENT, NO_QUEUE_MESSAGE)


def test_delete_queue_by_bare_name(sqs_client: Any) -> None:
    sqs_client.create_queue(QueueName="q")
    sqs_client.delete_queue(QueueUrl="q")
    assert "QueueUrls" not in sqs_client.list_queues()
