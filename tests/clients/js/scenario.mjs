// The AWS SDK for JavaScript v3 against a running SQS endpoint: node scenario.mjs ENDPOINT_URL
// Prints one JSON object with what the calls answered; the pytest test checks it. The SDK checks
// the MD5 of every body it sends and receives itself (on by default): a wrong digest throws.
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListQueuesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from "@aws-sdk/client-sqs";

const endpoint = process.argv[2];
const client = new SQSClient({
  endpoint,
  region: "us-east-1",
  credentials: { accessKeyId: "AKIDSQSMOCKTESTING", secretAccessKey: "sqsmock-secret" },
  maxAttempts: 1,
});

const binary = Uint8Array.from([0, 1, 2, 127, 128, 254, 255]);
const b64 = (bytes) => Buffer.from(bytes).toString("base64");

function plainAttributes(attributes) {
  const out = {};
  for (const [name, value] of Object.entries(attributes ?? {})) {
    out[name] = { DataType: value.DataType };
    if (value.StringValue !== undefined) out[name].StringValue = value.StringValue;
    if (value.BinaryValue !== undefined) out[name].BinaryValue = b64(value.BinaryValue);
  }
  return out;
}

async function errorOf(promise) {
  try {
    await promise;
  } catch (error) {
    return { name: error.name, code: error.Code, status: error.$metadata?.httpStatusCode };
  }
  return null;
}

const result = {};

const { QueueUrl: url } = await client.send(
  new CreateQueueCommand({ QueueName: "js-orders", Attributes: { VisibilityTimeout: "30" } }),
);
result.queueUrl = url;
result.gotUrl = (await client.send(new GetQueueUrlCommand({ QueueName: "js-orders" }))).QueueUrl;

const attributes = {
  text: { DataType: "String", StringValue: "grüße ✓ 🎉" },
  amount: { DataType: "Number.float", StringValue: "12.50" },
  raw: { DataType: "Binary", BinaryValue: binary },
};
const sent = await client.send(
  new SendMessageCommand({
    QueueUrl: url,
    MessageBody: "unicode body: ünïcödé 日本語 🎉 <&>",
    MessageAttributes: attributes,
  }),
);
result.sent = {
  MessageId: sent.MessageId,
  MD5OfMessageBody: sent.MD5OfMessageBody,
  MD5OfMessageAttributes: sent.MD5OfMessageAttributes,
};

const batch = await client.send(
  new SendMessageBatchCommand({
    QueueUrl: url,
    Entries: [
      { Id: "one", MessageBody: "batch one ✓" },
      {
        Id: "two",
        MessageBody: "batch two\r\nwith lines",
        MessageAttributes: { n: { DataType: "Number", StringValue: "-7" } },
      },
      { Id: "three", MessageBody: "x".repeat(2000) },
    ],
  }),
);
result.batch = {
  successful: batch.Successful.map((e) => ({
    Id: e.Id,
    MD5OfMessageBody: e.MD5OfMessageBody,
    MD5OfMessageAttributes: e.MD5OfMessageAttributes ?? null,
  })),
  failed: batch.Failed ?? [],
};

const received = [];
for (let attempt = 0; attempt < 5 && received.length < 4; attempt++) {
  const answer = await client.send(
    new ReceiveMessageCommand({
      QueueUrl: url,
      MaxNumberOfMessages: 10,
      MessageAttributeNames: ["All"],
      MessageSystemAttributeNames: ["All"],
      WaitTimeSeconds: 1,
    }),
  );
  received.push(...(answer.Messages ?? []));
}
result.received = received.map((m) => ({
  MessageId: m.MessageId,
  Body: m.Body,
  MD5OfBody: m.MD5OfBody,
  MD5OfMessageAttributes: m.MD5OfMessageAttributes ?? null,
  MessageAttributes: plainAttributes(m.MessageAttributes),
  ReceiveCount: m.Attributes?.ApproximateReceiveCount,
}));

// One message back to visible and received again; then everything deleted.
const first = received.find((m) => m.MessageId === sent.MessageId);
await client.send(
  new ChangeMessageVisibilityCommand({
    QueueUrl: url,
    ReceiptHandle: first.ReceiptHandle,
    VisibilityTimeout: 0,
  }),
);
const again = await client.send(
  new ReceiveMessageCommand({
    QueueUrl: url,
    MessageSystemAttributeNames: ["ApproximateReceiveCount"],
  }),
);
result.again = (again.Messages ?? []).map((m) => ({
  MessageId: m.MessageId,
  ReceiveCount: m.Attributes?.ApproximateReceiveCount,
}));
await client.send(
  new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: again.Messages[0].ReceiptHandle }),
);
const others = received.filter((m) => m.MessageId !== sent.MessageId);
const deleted = await client.send(
  new DeleteMessageBatchCommand({
    QueueUrl: url,
    Entries: others.map((m, i) => ({ Id: `d${i}`, ReceiptHandle: m.ReceiptHandle })),
  }),
);
result.deleted = (deleted.Successful ?? []).map((e) => e.Id).sort();

await client.send(
  new SetQueueAttributesCommand({ QueueUrl: url, Attributes: { DelaySeconds: "5" } }),
);
result.attributes = (
  await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }))
).Attributes;

result.badBatch = await errorOf(
  client.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: [] })),
);
result.listed = (await client.send(new ListQueuesCommand({}))).QueueUrls ?? [];
await client.send(new DeleteQueueCommand({ QueueUrl: url }));
result.afterDelete = (await client.send(new ListQueuesCommand({}))).QueueUrls ?? [];

result.missingQueue = await errorOf(
  client.send(new GetQueueUrlCommand({ QueueName: "no-such-queue" })),
);

// A FIFO queue: content-based deduplication, order within a group, sequence numbers.
const { QueueUrl: fifo } = await client.send(
  new CreateQueueCommand({
    QueueName: "js-events.fifo",
    Attributes: { FifoQueue: "true", ContentBasedDeduplication: "true" },
  }),
);
const fifoSent = [];
for (const body of ["first", "second", "first"]) {
  const answer = await client.send(
    new SendMessageCommand({ QueueUrl: fifo, MessageBody: body, MessageGroupId: "g1" }),
  );
  fifoSent.push({ MessageId: answer.MessageId, SequenceNumber: answer.SequenceNumber });
}
const fifoReceived = await client.send(
  new ReceiveMessageCommand({
    QueueUrl: fifo,
    MaxNumberOfMessages: 10,
    MessageSystemAttributeNames: ["MessageGroupId", "SequenceNumber", "MessageDeduplicationId"],
  }),
);
result.fifo = {
  url: fifo,
  sent: fifoSent,
  received: (fifoReceived.Messages ?? []).map((m) => ({
    MessageId: m.MessageId,
    Body: m.Body,
    Attributes: m.Attributes,
  })),
};

process.stdout.write(JSON.stringify(result) + "\n");
