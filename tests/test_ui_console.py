"""The web UI as a console, driven in a real headless Chromium: creating, editing and deleting
queues, receiving and deleting or hiding one message, the queue filter, JSON bodies, paging the
call journal and opening one call, and the view of a queue deleted while it is open.

Every destructive action asks first; each test checks both answers. The browser, the server
(on a frozen clock) and the ``Page`` helper are ``test_ui``'s.
"""

# ruff: noqa: F811  (test_ui's fixtures, imported, are parameters here)

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select
from server_support import client
from test_ui import Page, browser, page, server, sqs  # noqa: F401

pytestmark = pytest.mark.slow


def _attributes(sqs: Any, url: str) -> dict[str, str]:
    return dict(sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"])


def _steady(read: Callable[[], Any]) -> Callable[[], Any]:
    """``read`` as a wait's condition: None while the list it reads is being redrawn."""

    def condition() -> Any:
        try:
            return read()
        except StaleElementReferenceException:
            return None

    return condition


def _texts(page: Page, testid: str) -> list[str]:
    return [e.text for e in page.all(testid)]


def _fill(page: Page, testid: str, value: str) -> None:
    field = page.find(testid)
    field.clear()
    field.send_keys(value)


def test_create_a_standard_queue_with_attributes_and_a_dead_letter_queue(
    page: Page, sqs: Any
) -> None:
    dlq = sqs.create_queue(QueueName="orders-dlq")["QueueUrl"]
    sqs.create_queue(QueueName="other.fifo", Attributes={"FifoQueue": "true"})
    dlq_arn = _attributes(sqs, dlq)["QueueArn"]
    page.wait_counts("orders-dlq", (0, 0, 0))
    page.wait_counts("other.fifo", (0, 0, 0))

    page.find("create-open").click()
    page.wait(lambda: page.find("create-dialog").is_displayed())
    choices = [o.text for o in Select(page.find("create-dlq")).options]
    assert choices == ["none", "orders-dlq"]  # a standard queue's DLQ is a standard queue
    _fill(page, "create-name", "bad name!")  # AWS's refusal is shown, the form stays open
    page.find("create-submit").click()
    page.wait(lambda: "InvalidParameterValue" in page.find("create-error").text)
    assert page.find("create-dialog").is_displayed()

    _fill(page, "create-name", "orders")
    _fill(page, "create-visibility", "45")
    _fill(page, "create-delay", "5")
    Select(page.find("create-dlq")).select_by_visible_text("orders-dlq")
    _fill(page, "create-max-receives", "3")
    page.find("create-submit").click()
    page.wait(lambda: not page.find("create-dialog").is_displayed())
    page.wait_counts("orders", (0, 0, 0))
    page.wait(lambda: page.driver.find_element(By.ID, "queue-name").text == "orders")  # opened

    url = sqs.get_queue_url(QueueName="orders")["QueueUrl"]
    attributes = _attributes(sqs, url)
    assert attributes["VisibilityTimeout"] == "45" and attributes["DelaySeconds"] == "5"
    assert json.loads(attributes["RedrivePolicy"]) == {
        "deadLetterTargetArn": dlq_arn,
        "maxReceiveCount": 3,
    }
    assert "FifoQueue" not in attributes


def test_create_a_fifo_queue(page: Page, sqs: Any, server: Any) -> None:
    sqs.create_queue(QueueName="plain")
    sqs.create_queue(QueueName="jobs-dlq.fifo", Attributes={"FifoQueue": "true"})
    page.wait_counts("jobs-dlq.fifo", (0, 0, 0))
    page.find("create-open").click()
    page.wait(lambda: page.find("create-dialog").is_displayed())
    assert not page.find("create-content-dedup").is_displayed()  # a FIFO-only setting
    page.find("create-fifo").click()
    page.wait(lambda: page.find("create-content-dedup").is_displayed())
    assert [o.text for o in Select(page.find("create-dlq")).options] == ["none", "jobs-dlq.fifo"]
    page.find("create-content-dedup").click()
    _fill(page, "create-name", "jobs")  # the page adds .fifo
    Select(page.find("create-dlq")).select_by_visible_text("jobs-dlq.fifo")
    page.find("create-submit").click()
    page.wait_counts("jobs.fifo", (0, 0, 0))
    attributes = _attributes(sqs, sqs.get_queue_url(QueueName="jobs.fifo")["QueueUrl"])
    assert attributes["FifoQueue"] == "true"
    assert attributes["ContentBasedDeduplication"] == "true"
    assert json.loads(attributes["RedrivePolicy"])["maxReceiveCount"] == 5  # the default shown
    [created] = server.calls.of("CreateQueue")[-1:]
    assert created.params["QueueName"] == "jobs.fifo"


def test_delete_a_queue_asks_first_then_clears_its_view(page: Page, sqs: Any, server: Any) -> None:
    url = sqs.create_queue(QueueName="short-lived")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="left behind")
    page.wait_counts("short-lived", (1, 0, 0))
    page.open_queue("short-lived")
    page.wait(_steady(lambda: page.messages() == ["left behind"]))

    page.find("delete-queue").click()
    page.wait(lambda: page.find("confirm-dialog").is_displayed())
    assert "short-lived" in page.find("confirm-dialog").text
    page.find("confirm-no").click()
    page.wait(lambda: not page.find("confirm-dialog").is_displayed())
    assert not server.calls.of("DeleteQueue")
    assert sqs.get_queue_url(QueueName="short-lived")["QueueUrl"] == url

    page.find("delete-queue").click()
    page.wait(lambda: page.find("confirm-dialog").is_displayed())
    page.find("confirm-yes").click()
    page.wait(lambda: page.counts("short-lived") is None)
    with pytest.raises(sqs.exceptions.QueueDoesNotExist):
        sqs.get_queue_url(QueueName="short-lived")
    _assert_gone(page)


def _assert_gone(page: Page) -> None:
    """The view of a queue that no longer exists: no stale message, every action disabled."""
    page.wait(lambda: page.find("gone-note").is_displayed())
    assert page.all("message") == []
    assert page.find("queue-actions").get_attribute("disabled") is not None
    for testid in ("send", "receive", "purge", "delete-queue", "send-body", "edit-attributes"):
        assert not page.find(testid).is_enabled(), testid
    assert "does not exist" in page.driver.find_element(By.ID, "queue-url").text


def test_a_queue_deleted_by_another_client_while_open(page: Page, sqs: Any, server: Any) -> None:
    url = sqs.create_queue(QueueName="vanishing")["QueueUrl"]
    for n in range(3):
        sqs.send_message(QueueUrl=url, MessageBody=f"stale {n}")
    page.wait_counts("vanishing", (3, 0, 0))
    page.open_queue("vanishing")
    page.wait(lambda: len(page.all("message")) == 3)
    sqs.delete_queue(QueueUrl=url)
    _assert_gone(page)
    # made again: the view comes back, with actions, and shows the new queue's messages only
    server.clock.advance(60)  # AWS's wait before a name is used again
    url = sqs.create_queue(QueueName="vanishing")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="fresh")
    page.wait(_steady(lambda: page.messages() == ["fresh"]))
    assert not page.find("gone-note").is_displayed()
    assert page.find("send").is_enabled()


def test_edit_attributes(page: Page, sqs: Any) -> None:
    url = sqs.create_queue(QueueName="tuned", Attributes={"VisibilityTimeout": "30"})["QueueUrl"]
    page.wait_counts("tuned", (0, 0, 0))
    page.open_queue("tuned")
    page.driver.find_element(By.CSS_SELECTOR, "#attributes-box summary").click()
    page.wait(lambda: "30" in page.driver.find_element(By.ID, "attributes").text)
    page.find("edit-attributes").click()
    page.wait(lambda: page.find("edit-form").is_displayed())
    assert page.find("edit-VisibilityTimeout").get_attribute("value") == "30"
    _fill(page, "edit-VisibilityTimeout", "75")
    _fill(page, "edit-DelaySeconds", "not a number")  # AWS's refusal, nothing set
    page.find("edit-save").click()
    page.wait(lambda: "InvalidAttributeValue" in page.driver.find_element(By.ID, "status").text)
    assert _attributes(sqs, url)["VisibilityTimeout"] == "30"
    _fill(page, "edit-DelaySeconds", "7")
    page.find("edit-save").click()
    page.wait(lambda: not page.find("edit-form").is_displayed())
    attributes = _attributes(sqs, url)
    assert (attributes["VisibilityTimeout"], attributes["DelaySeconds"]) == ("75", "7")
    page.wait(
        lambda: (
            page.driver.find_element(
                By.CSS_SELECTOR, '#attributes dd[data-attribute="VisibilityTimeout"]'
            ).text
            == "75"
        )
    )


def test_receive_then_delete_one_and_change_the_visibility_of_another(
    page: Page, sqs: Any, server: Any
) -> None:
    url = sqs.create_queue(QueueName="work")["QueueUrl"]
    for body in ("one", "two", "three"):
        sqs.send_message(QueueUrl=url, MessageBody=body)
    page.wait_counts("work", (3, 0, 0))
    page.open_queue("work")
    _fill(page, "receive-count", "2")
    _fill(page, "receive-visibility", "600")
    page.find("receive").click()
    page.wait(lambda: len(page.all("received")) == 2)
    page.wait_counts("work", (1, 2, 0))
    [call] = server.calls.of("ReceiveMessage")
    assert call.params["MaxNumberOfMessages"] == 2 and call.params["VisibilityTimeout"] == 600
    first, second = page.all("received")
    first_body = page.find("received-body", first).text
    second_body = page.find("received-body", second).text
    assert {first_body, second_body} <= {"one", "two", "three"}

    page.find("delete-message", first).click()
    page.wait(lambda: len(page.all("received")) == 1)
    page.wait_counts("work", (1, 1, 0))
    [left] = page.all("received")
    seconds = page.find("visibility-seconds", left)
    seconds.clear()
    seconds.send_keys("0")
    page.find("change-visibility", left).click()
    page.wait_counts("work", (2, 0, 0))  # visible again at once
    server.clock.advance(1000)
    bodies = sorted(
        m["Body"] for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    )
    assert first_body not in bodies and second_body in bodies and len(bodies) == 2


def test_filter_the_queue_list_by_name_region_and_account(
    page: Page, sqs: Any, server: Any
) -> None:
    for name in ("orders", "orders-dlq", "emails"):
        sqs.create_queue(QueueName=name)
    elsewhere = client(server.endpoint_url, region="eu-west-1", key="210987654321")
    elsewhere.create_queue(QueueName="orders-eu")
    page.wait_counts("orders-eu", (0, 0, 0))

    def shown() -> list[str]:
        return [
            r.get_attribute("data-queue") or "" for r in page.all("queue-row") if r.is_displayed()
        ]

    assert sorted(shown()) == ["emails", "orders", "orders-dlq", "orders-eu"]
    page.find("queue-filter").send_keys("ORDERS")
    page.wait(lambda: sorted(shown()) == ["orders", "orders-dlq", "orders-eu"])
    page.wait(lambda: page.find("queue-count").text == "3 of 4")
    Select(page.find("queue-region")).select_by_visible_text("eu-west-1")
    page.wait(lambda: shown() == ["orders-eu"])
    Select(page.find("queue-region")).select_by_visible_text("every region")
    Select(page.find("queue-account")).select_by_visible_text("123456789012")
    page.wait(lambda: sorted(shown()) == ["orders", "orders-dlq"])
    page.find("queue-filter").send_keys("-nothing")
    page.wait(lambda: shown() == [] and page.find("no-match").is_displayed())
    # the filter holds while the list is polled and queues come and go
    sqs.create_queue(QueueName="orders-nothing")
    page.wait(lambda: shown() == ["orders-nothing"])


def test_a_json_body_is_a_collapsible_tree_with_raw_text_and_copy(
    page: Page, sqs: Any, server: Any
) -> None:
    body = json.dumps({"order": 7, "lines": [{"item": "<b>tea</b>", "qty": 2}], "paid": True})
    url = sqs.create_queue(QueueName="shop")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody=body)
    page.wait_counts("shop", (1, 0, 0))
    page.open_queue("shop")
    page.wait(lambda: page.all("json"))
    [message] = page.all("message")
    tree = page.find("json", message)
    assert '"order": 7' in tree.text and '"item": "<b>tea</b>"' in tree.text
    assert not message.find_elements(By.TAG_NAME, "b")  # markup stays text
    assert not page.find("message-body", message).is_displayed()
    # collapse the "lines" array: its members go, its size is said
    lines = next(n for n in page.all("json-node", message) if n.text.startswith('"lines"'))
    lines.find_element(By.TAG_NAME, "summary").click()
    page.wait(lambda: "1 item ]" in lines.text and "qty" not in lines.text)
    assert '"order": 7' in tree.text
    page.find("raw", message).click()
    page.wait(lambda: page.find("message-body", message).text == body)
    assert not tree.is_displayed()
    # another message redraws the list: the first keeps Raw, and its fold
    sqs.send_message(QueueUrl=url, MessageBody=json.dumps([1, 2]))
    page.wait(lambda: len(page.all("message")) == 2)
    message = page.all("message")[0]
    assert page.find("message-body", message).text == body
    page.find("raw", message).click()  # back to the tree
    page.wait(lambda: page.find("json", message).is_displayed())
    lines = next(n for n in page.all("json-node", message) if n.text.startswith('"lines"'))
    assert "1 item ]" in lines.text and "qty" not in lines.text
    # a long body starts as text; its tree is built when asked for
    big = json.dumps({"rows": ["x" * 60 for _ in range(1200)]})
    sqs.send_message(QueueUrl=url, MessageBody=big)
    page.wait(lambda: len(page.all("message")) == 3)
    third = page.all("message")[2]
    assert page.find("message-body", third).text == big
    assert not third.find_elements(By.CSS_SELECTOR, '[data-testid="json-node"]')
    page.find("raw", third).click()
    page.wait(lambda: page.find("json", third).is_displayed())
    assert '"rows": [' in page.find("json", third).text

    # Copy puts the body as sent on the clipboard
    page.driver.execute_cdp_cmd(
        "Browser.grantPermissions",
        {"origin": page.origin, "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"]},
    )
    page.find("copy", page.all("message")[0]).click()
    page.wait(lambda: "Copied" in page.driver.find_element(By.ID, "status").text)
    copied = page.driver.execute_async_script(
        "navigator.clipboard.readText().then(arguments[0], e => arguments[0]('failed: ' + e))"
    )
    assert copied == body


def test_calls_are_paged_and_one_opens_with_its_request_and_answer(
    page: Page, sqs: Any, server: Any
) -> None:
    url = sqs.create_queue(QueueName="busy")["QueueUrl"]
    for n in range(59):
        sqs.send_message(QueueUrl=url, MessageBody=f"m{n}")
    page.wait(lambda: page.find("call-count").text == "last 50")
    newest = _steady(lambda: _texts(page, "call"))
    page.wait(lambda: (newest() or [""])[-1].split()[1:2] == ["SendMessage"])  # 10 older gone
    assert "SendMessage" in newest()[0]  # newest first
    page.find("calls-browse").click()
    page.wait(lambda: page.find("call-count").text.startswith("1\N{EN DASH}50"))
    calls = page.wait(_steady(lambda: _texts(page, "call")))
    assert len(calls) == 50 and "CreateQueue" in calls[0]  # oldest first
    assert page.find("calls-previous").get_attribute("disabled") is not None
    page.find("calls-next").click()
    page.wait(lambda: page.find("call-count").text.startswith("51\N{EN DASH}60"))
    assert len(page.all("call")) == 10
    page.wait(lambda: page.find("calls-next").get_attribute("disabled") is not None)
    page.find("calls-previous").click()
    page.wait(lambda: page.find("call-count").text.startswith("1\N{EN DASH}50"))

    page.all("call")[1].click()  # the first SendMessage
    page.wait(lambda: page.find("call-dialog").is_displayed())
    dialog = page.find("call-dialog")
    assert "SendMessage" in dialog.text and "200" in dialog.text
    request = page.find("call-request", dialog).text
    assert '"MessageBody": "m0"' in request and url in request
    first = server.calls.of("SendMessage")[0]
    assert first.response["MessageId"] in page.find("call-answer", dialog).text
    page.find("call-close").click()
    page.wait(lambda: not page.find("call-dialog").is_displayed())
    page.find("calls-latest").click()
    page.wait(lambda: page.find("call-count").text == "last 50")
