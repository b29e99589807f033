"""A producer and a consumer talking through a mocked SQS queue.

Run it with:  python examples/producer_consumer.py

Everything happens in memory: no AWS account, credentials or network. The mock's virtual clock
lets the example show a visibility timeout lapsing without waiting 30 seconds.
"""

from __future__ import annotations

import json
import threading

import boto3

from sqsmock import mock_sqs


def produce(queue_url: str, orders: list[dict[str, object]]) -> None:
    sqs = boto3.client("sqs", region_name="us-east-1")
    entries = [
        {
            "Id": str(i),
            "MessageBody": json.dumps(order),
            "MessageAttributes": {
                "kind": {"DataType": "String", "StringValue": "order"},
            },
        }
        for i, order in enumerate(orders)
    ]
    result = sqs.send_message_batch(QueueUrl=queue_url, Entries=entries)
    print(f"producer: sent {len(result['Successful'])} orders")


def consume(queue_url: str, expected: int, processed: list[dict[str, object]]) -> None:
    sqs = boto3.client("sqs", region_name="us-east-1")
    while len(processed) < expected:
        # A long poll: returns as soon as a message is available.
        response = sqs.receive_message(
            QueueUrl=queue_url,
            MaxNumberOfMessages=10,
            WaitTimeSeconds=5,
            MessageAttributeNames=["All"],
        )
        for message in response.get("Messages", []):
            order = json.loads(message["Body"])
            processed.append(order)
            print(f"consumer: processed order {order['id']} ({order['item']})")
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])


def main() -> None:
    with mock_sqs() as mock:
        sqs = boto3.client("sqs", region_name="us-east-1")
        queue_url = sqs.create_queue(QueueName="orders")["QueueUrl"]
        print(f"created {queue_url}")

        orders = [{"id": i, "item": item} for i, item in enumerate(["tea", "milk", "bread"])]
        processed: list[dict[str, object]] = []
        consumer = threading.Thread(target=consume, args=(queue_url, len(orders), processed))
        consumer.start()  # waits on a long poll until the producer sends
        produce(queue_url, orders)
        consumer.join()
        print(f"all {len(processed)} orders processed")

        # A message that is received but not deleted comes back after its visibility timeout.
        sqs.send_message(QueueUrl=queue_url, MessageBody="forgotten")
        first = sqs.receive_message(QueueUrl=queue_url, AttributeNames=["All"])["Messages"][0]
        count = first["Attributes"]["ApproximateReceiveCount"]
        print(f"received {first['Body']!r}, receive count {count}")
        print("  ...not deleted; advancing the virtual clock by 30 seconds")
        mock.clock.advance(30)
        again = sqs.receive_message(QueueUrl=queue_url, AttributeNames=["All"])["Messages"][0]
        print(
            f"received {again['Body']!r} again, receive count "
            f"{again['Attributes']['ApproximateReceiveCount']}"
        )

        for view in mock.peek("orders"):
            print(f"peek: {view.body!r} is {view.state}, received {view.receive_count} times")


if __name__ == "__main__":
    main()
