"""Take ``docs/ui.png`` and ``docs/ui-call.png``, the README's pictures of the web UI, from a
server with a few queues: a queue in view with one message received from the page, then one
call of the journal opened.

Needs selenium and Debian's chromium and chromium-driver (as tests/test_ui.py). Run from the
repository root::

    python tools/ui_screenshot.py [path]    # default docs/ui.png (and ui-call.png beside it)
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import boto3
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

import sqsmock


def populate(endpoint: str, server: sqsmock.SqsServer) -> None:
    sqs = boto3.client(
        "sqs",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="x",
        aws_secret_access_key="x",
    )
    dlq = sqs.create_queue(QueueName="orders-dlq")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]
    policy = json.dumps({"deadLetterTargetArn": dlq_arn["QueueArn"], "maxReceiveCount": 3})
    orders = sqs.create_queue(
        QueueName="orders", Attributes={"RedrivePolicy": policy, "VisibilityTimeout": "30"}
    )["QueueUrl"]
    for n, item in enumerate(["tea", "coffee", "scones", "jam"]):
        sqs.send_message(
            QueueUrl=orders,
            MessageBody=json.dumps({"order": 1041 + n, "item": item, "qty": n % 3 + 1}),
            MessageAttributes={"source": {"DataType": "String", "StringValue": "web"}},
        )
    sqs.send_message(
        QueueUrl=orders, MessageBody=json.dumps({"order": 1047, "item": "cake"}), DelaySeconds=120
    )
    sqs.receive_message(QueueUrl=orders, MaxNumberOfMessages=2)
    sqs.send_message(QueueUrl=dlq, MessageBody=json.dumps({"order": 1002, "item": "???"}))
    fifo = sqs.create_queue(
        QueueName="payments.fifo",
        Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"},
    )["QueueUrl"]
    for amount in (12, 30, 7):
        sqs.send_message(QueueUrl=fifo, MessageBody=f"charge {amount} EUR", MessageGroupId="c-17")
    sqs.create_queue(QueueName="emails")
    server.faults.add("ReceiveMessage", error="OverLimit", queue="emails", probability=0.1)
    sqs.list_queues()


def main() -> None:
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/ui.png")
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"):
        options.add_argument(argument)
    service = Service(executable_path=shutil.which("chromedriver") or "chromedriver")
    with sqsmock.serve(port=0, clock="frozen") as server:
        populate(server.endpoint_url, server)
        driver = webdriver.Chrome(options=options, service=service)
        try:
            driver.get(server.endpoint_url + "/_sqsmock/ui/#/queue/us-east-1/123456789012/orders")
            WebDriverWait(driver, 15).until(
                lambda d: (
                    len(d.find_elements(By.CSS_SELECTOR, '[data-testid="message"]')) == 5
                    and d.find_elements(By.CSS_SELECTOR, '[data-testid="call"]')
                    and d.find_element(By.ID, "attributes").get_attribute("textContent")
                )
            )
            driver.set_window_size(1360, 1040)
            driver.find_element(By.CSS_SELECTOR, '[data-testid="receive"]').click()
            WebDriverWait(driver, 15).until(
                lambda d: (
                    d.find_elements(By.CSS_SELECTOR, '[data-testid="received"]')
                    and len(d.find_elements(By.CSS_SELECTOR, '[data-testid="message"]')) == 5
                )
            )
            driver.execute_script("document.getElementById('status').textContent = ''")
            driver.save_screenshot(str(target))
            sends = [
                row
                for row in driver.find_elements(By.CSS_SELECTOR, '[data-testid="call"]')
                if "SendMessage" in row.text and "orders" in row.text
            ]
            sends[-1].click()
            driver.execute_script("window.scrollTo(0, 0)")
            WebDriverWait(driver, 15).until(
                lambda d: d.find_element(By.ID, "call-dialog").is_displayed()
            )
            driver.save_screenshot(str(target.with_name("ui-call.png")))
        finally:
            driver.quit()
    print(f"wrote {target} and {target.with_name('ui-call.png')}")


if __name__ == "__main__":
    main()
