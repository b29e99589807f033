"""The web UI at /_sqsmock/ui/, driven in a real headless Chromium.

The browser is Debian's ``chromium`` with its ``chromium-driver`` (``.ci/run`` installs both);
without them these tests fail rather than skip. The server runs on a frozen clock, so a test
moves time only by the UI's own "Advance" button or the handle's clock. Waits are bounded polls
of the page (``WebDriverWait``), never fixed sleeps.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait
from server_support import client, request

import sqsmock

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
UI = "/_sqsmock/ui/"
WAIT = 15  # seconds a page may take to show what a test waits for (the UI polls each second)


@pytest.fixture(scope="module")
def server() -> Iterator[Any]:
    with sqsmock.serve(port=0, clock="frozen") as server:
        yield server


def _browser_paths() -> tuple[str, str]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    assert browser and driver, (
        "the web UI tests need Debian's chromium and chromium-driver: "
        "apt-get install -y chromium chromium-driver"
    )
    return browser, driver


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    binary, driver_path = _browser_paths()
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for argument in (
        "--headless=new",
        "--no-sandbox",  # root in a container
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1440,1000",
        # nothing of Chromium's own reaching out (updates, safe browsing, suggestions)
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
    try:
        yield driver
    finally:
        driver.quit()


class Page:
    """The UI in the browser, with the network requests it made since it was opened."""

    def __init__(self, driver: WebDriver, server: Any) -> None:
        self.driver = driver
        self.origin = server.endpoint_url.rstrip("/")
        self.requests: list[str] = []
        driver.get("about:blank")
        self.network()  # drop what earlier tests left in the log
        driver.get(self.origin + UI)
        self.wait(lambda: self.find("clock-now").get_attribute("data-now"))

    def network(self) -> list[str]:
        """URLs of every request the page made so far (DevTools ``Network`` events)."""
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                self.requests.append(message["params"]["request"]["url"])
        return self.requests

    def wait(self, condition: Callable[[], Any], timeout: float = WAIT) -> Any:
        return WebDriverWait(self.driver, timeout, poll_frequency=0.05).until(lambda _: condition())

    def find(self, testid: str, within: Any = None) -> WebElement:
        return (within or self.driver).find_element(By.CSS_SELECTOR, f'[data-testid="{testid}"]')

    def all(self, testid: str, within: Any = None) -> list[WebElement]:
        return (within or self.driver).find_elements(By.CSS_SELECTOR, f'[data-testid="{testid}"]')

    def row(self, name: str) -> WebElement:
        return self.driver.find_element(
            By.CSS_SELECTOR, f'[data-testid="queue-row"][data-queue="{name}"]'
        )

    def counts(self, name: str) -> tuple[str, str, str] | None:
        """The row's (visible, in flight, delayed), or None while the row is not there."""
        rows = self.driver.find_elements(
            By.CSS_SELECTOR, f'[data-testid="queue-row"][data-queue="{name}"]'
        )
        if not rows:
            return None
        row = rows[0]
        return (
            self.find("count-visible", row).text,
            self.find("count-inflight", row).text,
            self.find("count-delayed", row).text,
        )

    def wait_counts(self, name: str, expected: tuple[int, int, int]) -> None:
        wanted = tuple(str(n) for n in expected)
        try:
            self.wait(lambda: self.counts(name) == wanted)
        except Exception:
            raise AssertionError(f"{name}: {self.counts(name)} != {wanted}") from None

    def open_queue(self, name: str) -> None:
        self.row(name).find_element(By.TAG_NAME, "a").click()
        self.wait(lambda: self.driver.find_element(By.ID, "queue-name").text == name)

    def messages(self) -> list[str]:
        return [self.find("message-body", m).text for m in self.all("message")]


@pytest.fixture
def page(server: Any, browser: WebDriver) -> Page:
    server.reset()
    server.calls.clear()
    server.faults.clear()
    return Page(browser, server)


@pytest.fixture
def sqs(server: Any) -> Any:
    return client(server.endpoint_url)


def test_counts_of_visible_in_flight_and_delayed(page: Page, sqs: Any) -> None:
    orders = sqs.create_queue(QueueName="orders")["QueueUrl"]
    for body in ("a", "b", "c"):
        sqs.send_message(QueueUrl=orders, MessageBody=body)
    sqs.send_message(QueueUrl=orders, MessageBody="later", DelaySeconds=60)
    sqs.receive_message(QueueUrl=orders, MaxNumberOfMessages=2)
    sqs.create_queue(QueueName="empty")
    fifo = sqs.create_queue(QueueName="jobs.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    sqs.send_message(QueueUrl=fifo, MessageBody="j", MessageGroupId="g", MessageDeduplicationId="1")

    page.wait_counts("orders", (1, 2, 1))
    page.wait_counts("empty", (0, 0, 0))
    page.wait_counts("jobs.fifo", (1, 0, 0))
    names = [r.get_attribute("data-queue") for r in page.all("queue-row")]
    assert sorted(names) == ["empty", "jobs.fifo", "orders"]


def test_peek_shows_bodies_and_changes_nothing(page: Page, sqs: Any, server: Any) -> None:
    url = sqs.create_queue(QueueName="peeked", Attributes={"VisibilityTimeout": "30"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="first")
    [taken] = sqs.receive_message(QueueUrl=url)["Messages"]  # in flight, received once
    markup = (
        '<img src="https://example.com/x.png" onerror="window.injected = 1">'
        "<b>bold</b> & <script>window.injected = 2</script>"
    )
    sqs.send_message(
        QueueUrl=url,
        MessageBody=markup,
        MessageAttributes={"kind": {"DataType": "String", "StringValue": "tea"}},
    )
    page.wait_counts("peeked", (1, 1, 0))
    page.open_queue("peeked")
    page.wait(lambda: sorted(page.messages()) == sorted(["first", markup]))

    # Shown as text: the markup made no element, and the peek shows receive counts and state.
    items = page.all("message")
    assert not page.driver.find_elements(
        By.CSS_SELECTOR, '[data-testid="message"] b, img[src*="example"]'
    )
    assert page.driver.execute_script("return window.injected") is None
    by_body = {page.find("message-body", m).text: m for m in items}
    assert page.find("receive-count", by_body["first"]).get_attribute("data-count") == "1"
    assert page.find("receive-count", by_body[markup]).get_attribute("data-count") == "0"
    assert "in flight" in by_body["first"].text
    by_body[markup].find_element(By.TAG_NAME, "summary").click()
    assert "kind" in by_body[markup].text and "tea" in by_body[markup].text

    # Let the page peek a few more times, then look with boto3: nothing moved.
    peeks = len([u for u in page.network() if u.endswith("/messages")])
    page.wait(lambda: len([u for u in page.network() if u.endswith("/messages")]) >= peeks + 3)
    assert {c.operation for c in server.calls} <= {
        "CreateQueue",
        "SendMessage",
        "ReceiveMessage",
        "GetQueueAttributes",
        "ListDeadLetterSourceQueues",
    }
    assert len(server.calls.of("ReceiveMessage")) == 1  # only the test's own
    [visible] = sqs.receive_message(
        QueueUrl=url,
        MaxNumberOfMessages=10,
        VisibilityTimeout=300,
        AttributeNames=["ApproximateReceiveCount"],
    )["Messages"]
    assert visible["Body"] == markup
    assert visible["Attributes"]["ApproximateReceiveCount"] == "1"  # its first receive
    server.clock.advance(30)  # the visibility timeout the test's receive set, unchanged
    back = sqs.receive_message(
        QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["ApproximateReceiveCount"]
    )["Messages"]
    assert [(m["MessageId"], m["Attributes"]["ApproximateReceiveCount"]) for m in back] == [
        (taken["MessageId"], "2")
    ]


def test_a_deep_queue_is_shown_a_page_at_a_time(page: Page, sqs: Any) -> None:
    url = sqs.create_queue(QueueName="deep")["QueueUrl"]
    for start in range(0, 250, 10):
        entries = [{"Id": str(i), "MessageBody": str(start + i)} for i in range(10)]
        sqs.send_message_batch(QueueUrl=url, Entries=entries)

    def shown() -> list[str] | None:  # None while the list is being redrawn
        try:
            return page.messages()
        except StaleElementReferenceException:
            return None

    page.wait_counts("deep", (250, 0, 0))
    page.open_queue("deep")
    page.wait(lambda: shown() == [str(i) for i in range(100)])  # the first page only
    page.wait(lambda: page.find("message-count").text == "1\N{EN DASH}100 of 250")
    assert page.find("messages-previous").get_attribute("disabled") is not None
    page.find("messages-next").click()
    page.wait(lambda: shown() == [str(i) for i in range(100, 200)])
    page.wait(lambda: page.find("message-count").text == "101\N{EN DASH}200 of 250")
    page.find("messages-next").click()
    page.wait(lambda: shown() == [str(i) for i in range(200, 250)])
    page.wait(lambda: page.find("messages-next").get_attribute("disabled") is not None)
    page.find("messages-previous").click()
    page.wait(lambda: (shown() or [""])[0] == "100")
    peeks = [u for u in page.network() if "/deep/messages" in u]
    assert peeks and all("limit=" not in u for u in peeks)  # the server's page of 100


def test_send_from_the_ui_reaches_a_consumer(page: Page, server: Any) -> None:
    # A queue of another region and account: the UI calls SQS as the queue's owner.
    owner = client(server.endpoint_url, region="eu-west-1", key="210987654321")
    url = owner.create_queue(QueueName="inbox")["QueueUrl"]
    page.wait_counts("inbox", (0, 0, 0))
    page.open_queue("inbox")
    body = 'héllo <i>not italic</i> & "quoted"\nsecond line'
    page.find("send-body").send_keys(body)
    page.find("send").click()
    page.wait_counts("inbox", (1, 0, 0))
    [message] = owner.receive_message(QueueUrl=url)["Messages"]
    assert message["Body"] == body
    [sent] = server.calls.of("SendMessage")
    assert (sent.region, sent.account) == ("eu-west-1", "210987654321")


def test_purge_asks_first_then_empties_the_queue(page: Page, sqs: Any, server: Any) -> None:
    url = sqs.create_queue(QueueName="doomed")["QueueUrl"]
    for n in range(3):
        sqs.send_message(QueueUrl=url, MessageBody=f"m{n}")
    sqs.send_message(QueueUrl=url, MessageBody="late", DelaySeconds=120)
    sqs.receive_message(QueueUrl=url)
    page.wait_counts("doomed", (2, 1, 1))
    page.open_queue("doomed")
    page.wait(lambda: len(page.all("message")) == 4)
    page.find("purge").click()  # asks first: Cancel leaves every message
    page.wait(lambda: page.find("confirm-dialog").is_displayed())
    assert (
        "doomed" in page.find("confirm-dialog").text
        and "4 messages" in page.find("confirm-dialog").text
    )
    page.find("confirm-no").click()
    page.wait(lambda: not page.find("confirm-dialog").is_displayed())
    assert not server.calls.of("PurgeQueue")
    assert len(page.all("message")) == 4
    page.find("purge").click()
    page.wait(lambda: page.find("confirm-dialog").is_displayed())
    page.find("confirm-yes").click()
    page.wait_counts("doomed", (0, 0, 0))
    page.wait(lambda: not page.all("message"))
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert [
        attributes[f"ApproximateNumberOfMessages{s}"] for s in ("", "NotVisible", "Delayed")
    ] == ["0"] * 3
    assert "Messages" not in sqs.receive_message(QueueUrl=url)


def test_clock_advance_makes_a_delayed_message_visible(page: Page, sqs: Any, server: Any) -> None:
    url = sqs.create_queue(QueueName="later")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="soon", DelaySeconds=45)
    page.wait_counts("later", (0, 0, 1))
    before = server.clock.now()
    assert float(page.find("clock-now").get_attribute("data-now")) == pytest.approx(before)
    shown = page.find("clock-now").text

    seconds = page.find("clock-advance-seconds")
    seconds.clear()
    seconds.send_keys("46")
    page.find("clock-advance").click()
    page.wait_counts("later", (1, 0, 0))
    assert server.clock.now() == pytest.approx(before + 46)
    page.wait(lambda: page.find("clock-now").text != shown)
    assert float(page.find("clock-now").get_attribute("data-now")) == pytest.approx(before + 46)
    [message] = sqs.receive_message(QueueUrl=url)["Messages"]
    assert message["Body"] == "soon"


def test_counts_follow_other_clients_without_a_reload(page: Page, sqs: Any) -> None:
    url = sqs.create_queue(QueueName="live")["QueueUrl"]
    page.wait_counts("live", (0, 0, 0))
    page.open_queue("live")
    page.driver.execute_script("window.sqsmockTestMark = 42")  # gone if the page reloads
    sqs.send_message(QueueUrl=url, MessageBody="from boto3")
    page.wait_counts("live", (1, 0, 0))
    page.wait(lambda: page.messages() == ["from boto3"])
    sqs.create_queue(QueueName="newcomer")
    page.wait_counts("newcomer", (0, 0, 0))
    sqs.receive_message(QueueUrl=url)
    page.wait_counts("live", (0, 1, 0))
    assert page.driver.execute_script("return window.sqsmockTestMark") == 42


def test_redrive_from_a_dead_letter_queue(page: Page, sqs: Any, server: Any) -> None:
    dlq = sqs.create_queue(QueueName="orders-dlq")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]
    policy = json.dumps({"deadLetterTargetArn": arn["QueueArn"], "maxReceiveCount": 1})
    source = sqs.create_queue(
        QueueName="orders", Attributes={"RedrivePolicy": policy, "VisibilityTimeout": "5"}
    )["QueueUrl"]
    sqs.send_message(QueueUrl=source, MessageBody="poison")
    sqs.receive_message(QueueUrl=source)
    server.clock.advance(5)
    assert "Messages" not in sqs.receive_message(QueueUrl=source)  # moved to the DLQ
    page.wait_counts("orders-dlq", (1, 0, 0))

    page.open_queue("orders")  # not a dead-letter queue: nothing to redrive
    page.wait(lambda: page.driver.find_element(By.ID, "attributes").get_attribute("textContent"))
    assert not page.find("redrive").is_displayed()
    page.open_queue("orders-dlq")
    page.wait(lambda: page.find("redrive").is_displayed())
    page.find("redrive").click()
    page.wait_counts("orders", (1, 0, 0))
    page.wait_counts("orders-dlq", (0, 0, 0))
    [task] = sqs.list_message_move_tasks(SourceArn=arn["QueueArn"])["Results"]
    assert task["Status"] == "COMPLETED"


def test_journal_and_faults_are_shown(page: Page, sqs: Any, server: Any) -> None:
    url = sqs.create_queue(QueueName="watched")["QueueUrl"]
    server.faults.add("SendMessage", error="QueueDoesNotExist", times=1, queue="watched")
    with pytest.raises(sqs.exceptions.QueueDoesNotExist):
        sqs.send_message(QueueUrl=url, MessageBody="x")
    page.wait(lambda: len(page.all("call")) == 2)
    newest, oldest = (c.text for c in page.all("call"))
    assert "SendMessage" in newest and "watched" in newest and "injected" in newest
    assert "NonExistentQueue" in newest
    assert "CreateQueue" in oldest
    assert not page.all("fault")  # the rule for one call is gone once it fired
    server.faults.add("ReceiveMessage", error="OverLimit", queue="watched")
    server.faults.add("DeleteMessage", latency=2)
    page.wait(lambda: len(page.all("fault")) == 2)
    first, second = (f.text for f in page.all("fault"))
    assert "ReceiveMessage" in first and "watched" in first and "InFlightLimitReached" in first
    assert "DeleteMessage" in second and "+2 s latency" in second
    page.all("fault")[1].find_element(By.TAG_NAME, "button").click()
    page.wait(lambda: len(page.all("fault")) == 1)
    assert [f.operations for f in server.faults] == [frozenset({"ReceiveMessage"})]


def test_no_request_leaves_the_server(page: Page, sqs: Any) -> None:
    url = sqs.create_queue(QueueName="local")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody='<img src="https://example.com/t.gif">')
    page.wait_counts("local", (1, 0, 0))
    page.open_queue("local")
    page.wait(lambda: len(page.all("message")) == 1)
    page.find("send-body").send_keys("one more")
    page.find("send").click()
    page.wait_counts("local", (2, 0, 0))

    urls = page.network()
    assert {page.origin + UI + name for name in ("app.js", "app.css")} <= set(urls)
    outside = [u for u in urls if not u.startswith(page.origin + "/")]
    assert outside == []
    resources = page.driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
    )
    assert resources and all(u.startswith(page.origin + "/") for u in resources)
    # and the page's CSP was never violated (no inline script or style was refused)
    refused = [
        e for e in page.driver.get_log("browser") if "Content Security Policy" in e["message"]
    ]
    assert refused == []


def test_pages_are_served_with_a_strict_policy(server: Any) -> None:
    for path, media_type in (
        (UI, "text/html"),
        (UI + "app.js", "text/javascript"),
        (UI + "actions.js", "text/javascript"),
        (UI + "api.js", "text/javascript"),
        (UI + "calls.js", "text/javascript"),
        (UI + "dom.js", "text/javascript"),
        (UI + "app.css", "text/css"),
        (UI + "icon.svg", "image/svg+xml"),
    ):
        answer = request(server.endpoint_url, "GET", path)
        assert answer.status == 200, path
        assert answer.headers["content-type"].startswith(media_type)
        policy = answer.headers["content-security-policy"]
        assert policy.split(";")[0] == "default-src 'self'"
        assert answer.headers["x-content-type-options"] == "nosniff"
    html = request(server.endpoint_url, "GET", UI).body.decode()
    assert (
        "<script>" not in html
        and " style=" not in html
        and "http" not in html.replace("http-equiv", "")
    )
    assert request(server.endpoint_url, "GET", UI + "missing.js").status == 404
    assert request(server.endpoint_url, "POST", UI).status == 405


def test_the_wheel_ships_the_ui(tmp_path: Path) -> None:
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    [wheel] = tmp_path.glob("sqsmock-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    folder = "sqsmock/_adapters/http/ui/"
    assert {
        folder + n
        for n in (
            "__init__.py",
            "index.html",
            "app.js",
            "actions.js",
            "api.js",
            "calls.js",
            "dom.js",
            "app.css",
            "icon.svg",
        )
    } <= names
