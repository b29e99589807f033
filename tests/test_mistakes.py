"""Common mistakes with ``mock_sqs`` get a message that says what was wrong and what to do."""

from __future__ import annotations

import boto3
import pytest

from sqsmock import mock_sqs

OPTIONS = (
    "region, account_id, clock, persistence, namespace, persistence_timeout, "
    "journal_limit, journal_byte_limit, delivery, config, elasticmq, allow_aws, join, sns"
)


def test_misspelt_option_names_mock_sqs_and_lists_its_options():
    with pytest.raises(TypeError) as exc:
        mock_sqs(regoin="eu-west-1")
    message = str(exc.value)
    assert message.startswith("mock_sqs() got unexpected option 'regoin'")
    assert "did you mean 'region'?" in message
    assert message.endswith(f"its options are {OPTIONS}")


def test_several_unknown_options_are_all_named():
    with pytest.raises(TypeError, match="options 'backend', 'reset_boto3_session'"):
        mock_sqs(backend={}, reset_boto3_session=True)


def test_misspelt_option_of_a_decorator_fails_at_decoration():
    with pytest.raises(TypeError, match="mock_sqs"):

        @mock_sqs(acount_id="111111111111")
        def test() -> None: ...


@pytest.mark.parametrize(
    ("typo", "meant"),
    [
        ("us-east-l", "us-east-1"),
        ("eu-west-l", "eu-west-1"),
        ("us-easst-1", "us-east-1"),
        ("useast1", "us-east-1"),
        ("ap-southeast-O", "ap-southeast-1"),
        ("US-EAST-2", "us-east-2"),
    ],
)
def test_a_region_typo_is_told_the_closest_real_region(typo, meant):
    # "us-east-l" is as far from "us-east-2" as from "us-east-1" by plain edit distance; an l
    # for a 1 is the typo people make.
    with pytest.raises(ValueError) as exc:
        mock_sqs(region=typo)
    message = str(exc.value)
    assert f"region {typo!r} is not an AWS region (did you mean {meant!r}?)" in message
    assert not message.startswith("sqsmock: sqsmock")


def test_a_name_far_from_every_region_gets_no_suggestion():
    with pytest.raises(ValueError) as exc:
        mock_sqs(region="local")
    assert "did you mean" not in str(exc.value)
    assert "regions look like 'us-east-1'" in str(exc.value)


@pytest.mark.parametrize("region", ["", "US-EAST-1", "us_east_1", "local", None, 1])
def test_other_non_regions_are_refused(region):
    with pytest.raises(ValueError, match="is not an AWS region"):
        mock_sqs(region=region)


@pytest.mark.parametrize("region", ["us-east-1", "cn-northwest-1", "us-gov-east-1", "eu-south-9"])
def test_regions_of_every_partition_are_accepted_even_newer_ones(region):
    # "eu-south-9" is not in botocore's data (yet) but has the aws partition's shape of a name.
    with mock_sqs(region=region) as sqs:
        client = boto3.client("sqs", region_name=region)
        assert client.create_queue(QueueName="q")["QueueUrl"].endswith("/q")
        assert sqs.peek("q") == []


def test_service_name_argument_says_what_mock_sqs_accepts():
    with pytest.raises(TypeError) as exc:
        mock_sqs("sqs")  # type: ignore[call-overload]
    message = str(exc.value)
    assert "mock_sqs() takes no service name ('sqs')" in message
    assert "@mock_sqs(region=..., account_id=..., clock=..., persistence=..., namespace=...)" in (
        message
    )


def test_other_non_callable_argument_says_what_mock_sqs_accepts():
    with pytest.raises(TypeError, match=r"decorates a function or a class.*not 42"):
        mock_sqs(42)  # type: ignore[call-overload]


def test_account_id_must_be_ascii_digits():
    with pytest.raises(ValueError, match="12-digit"):
        mock_sqs(account_id="\u0661" * 12)


def test_peek_of_a_queue_in_another_region_says_which_region_has_it():
    with mock_sqs(region="us-east-1") as sqs:
        url = boto3.client("sqs", region_name="eu-west-1").create_queue(QueueName="q")["QueueUrl"]
        boto3.client("sqs", region_name="ap-south-1").create_queue(QueueName="q")
        for name in ("q", url):
            with pytest.raises(LookupError) as exc:
                sqs.peek(name)
            assert str(exc.value) == (
                f"queue {name!r} does not exist in region 'us-east-1' of this mock, but in "
                f"'ap-south-1' and 'eu-west-1': peek({name!r}, region='ap-south-1')"
            )
        assert sqs.peek("q", region="eu-west-1") == []


def test_peek_of_a_queue_nowhere_in_the_mock():
    with mock_sqs() as sqs, pytest.raises(LookupError, match="'nope' does not exist in this mock"):
        sqs.peek("nope")


def test_a_queue_in_another_region_is_named_in_the_log_and_the_error_is_aws(caplog):
    with mock_sqs():
        boto3.client("sqs", region_name="eu-west-1").create_queue(QueueName="orders")
        sqs = boto3.client("sqs", region_name="us-east-1")
        with (
            caplog.at_level("WARNING", logger="sqsmock"),
            pytest.raises(sqs.exceptions.QueueDoesNotExist) as exc,
        ):
            sqs.get_queue_url(QueueName="orders")
        error = exc.value.response["Error"]
        assert error["Code"] == "AWS.SimpleQueueService.NonExistentQueue"
        assert error["Message"] == "The specified queue does not exist."  # AWS's words
        [record] = [r for r in caplog.records if r.name == "sqsmock"]
        assert "no queue 'orders' in region us-east-1" in record.getMessage()
        assert "exists in region eu-west-1" in record.getMessage()
        # a name that exists nowhere logs nothing
        caplog.clear()
        with (
            caplog.at_level("WARNING", logger="sqsmock"),
            pytest.raises(sqs.exceptions.QueueDoesNotExist),
        ):
            sqs.get_queue_url(QueueName="nowhere")
        assert not [r for r in caplog.records if r.name == "sqsmock"]


def test_a_queue_in_another_account_is_named_in_the_servers_log(caplog):
    from server_support import client

    import sqsmock

    with sqsmock.serve(port=0) as server:
        other = client(server.endpoint_url, key="111122223333")  # a 12-digit key: that account
        other.create_queue(QueueName="jobs")
        mine = client(server.endpoint_url)
        with (
            caplog.at_level("WARNING", logger="sqsmock"),
            pytest.raises(mine.exceptions.QueueDoesNotExist) as exc,
        ):
            mine.get_queue_url(QueueName="jobs")
        assert exc.value.response["Error"]["Message"] == "The specified queue does not exist."
        messages = [r.getMessage() for r in caplog.records if r.name == "sqsmock"]
        assert any("exists in account 111122223333 of region us-east-1" in m for m in messages)
