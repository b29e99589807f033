// The AWS SDK for JavaScript v3 SNSClient (SNS's query protocol) with SQSClient against a running
// server: node sns_scenario.mjs ENDPOINT_URL. Prints one JSON object with what the calls answered;
// the pytest test checks it.
import {
  CreateTopicCommand,
  DeleteTopicCommand,
  GetSubscriptionAttributesCommand,
  GetTopicAttributesCommand,
  ListSubscriptionsByTopicCommand,
  ListTopicsCommand,
  PublishBatchCommand,
  PublishCommand,
  SNSClient,
  SubscribeCommand,
  UnsubscribeCommand,
} from "@aws-sdk/client-sns";
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from "@aws-sdk/client-sqs";

const endpoint = process.argv[2];
const options = {
  endpoint,
  region: "us-east-1",
  credentials: { accessKeyId: "AKIDSQSMOCKTESTING", secretAccessKey: "sqsmock-secret" },
  maxAttempts: 1,
};
const sns = new SNSClient(options);
const sqs = new SQSClient(options);
const b64 = (bytes) => Buffer.from(bytes).toString("base64");

async function errorOf(promise) {
  try {
    await promise;
  } catch (error) {
    return { name: error.name, message: error.message, status: error.$metadata?.httpStatusCode };
  }
  return null;
}

async function queue(name, attributes) {
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({ QueueName: name, Attributes: attributes }),
  );
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["QueueArn"] }),
  );
  return { url: QueueUrl, arn: Attributes.QueueArn };
}

async function receive(url) {
  const answer = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: url,
      MaxNumberOfMessages: 10,
      MessageAttributeNames: ["All"],
      MessageSystemAttributeNames: ["All"],
    }),
  );
  return (answer.Messages ?? []).map((m) => {
    const attributes = {};
    for (const [name, value] of Object.entries(m.MessageAttributes ?? {})) {
      attributes[name] = { DataType: value.DataType };
      if (value.StringValue !== undefined) attributes[name].StringValue = value.StringValue;
      if (value.BinaryValue !== undefined) attributes[name].BinaryValue = b64(value.BinaryValue);
    }
    return {
      Body: m.Body,
      MD5OfMessageAttributes: m.MD5OfMessageAttributes ?? null,
      MessageAttributes: attributes,
      Attributes: m.Attributes,
    };
  });
}

const result = {};
const { TopicArn: topic } = await sns.send(
  new CreateTopicCommand({ Name: "js-orders", Tags: [{ Key: "team", Value: "js" }] }),
);
result.topic = topic;
const eu = await queue("js-eu");
const all = await queue("js-all");
const euSubscription = await sns.send(
  new SubscribeCommand({
    TopicArn: topic,
    Protocol: "sqs",
    Endpoint: eu.arn,
    Attributes: {
      FilterPolicyScope: "MessageBody",
      FilterPolicy: JSON.stringify({ order: { region: [{ prefix: "eu-" }] } }),
    },
    ReturnSubscriptionArn: true,
  }),
);
result.euSubscription = euSubscription.SubscriptionArn;
await sns.send(
  new SubscribeCommand({
    TopicArn: topic,
    Protocol: "sqs",
    Endpoint: all.arn,
    Attributes: { RawMessageDelivery: "true" },
  }),
);

const binary = Uint8Array.from([0, 1, 2, 254, 255]);
const published = await sns.send(
  new PublishCommand({
    TopicArn: topic,
    Message: JSON.stringify({ order: { region: "eu-west-1", id: 7 } }),
    Subject: "js subject",
    MessageAttributes: {
      text: { DataType: "String", StringValue: "grüße ✓" },
      n: { DataType: "Number", StringValue: "12.5" },
      raw: { DataType: "Binary", BinaryValue: binary },
      list: { DataType: "String.Array", StringValue: '["a", 1, true]' },
    },
  }),
);
result.published = published.MessageId;
const batch = await sns.send(
  new PublishBatchCommand({
    TopicArn: topic,
    PublishBatchRequestEntries: [
      { Id: "us", Message: JSON.stringify({ order: { region: "us-east-1" } }) },
      { Id: "eu", Message: JSON.stringify({ order: { region: "eu-central-1" } }) },
    ],
  }),
);
result.batch = {
  successful: (batch.Successful ?? []).map((e) => e.Id).sort(),
  failed: batch.Failed ?? [],
};
result.eu = await receive(eu.url);
result.all = await receive(all.url);

result.subscriptionAttributes = (
  await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn: euSubscription.SubscriptionArn }))
).Attributes;
result.topicAttributes = (await sns.send(new GetTopicAttributesCommand({ TopicArn: topic }))).Attributes;
result.listed = (
  await sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topic }))
).Subscriptions.map((s) => s.Endpoint).sort();
await sns.send(new UnsubscribeCommand({ SubscriptionArn: euSubscription.SubscriptionArn }));
result.afterUnsubscribe = (
  await sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topic }))
).Subscriptions.map((s) => s.Endpoint);

result.missingTopic = await errorOf(
  sns.send(new PublishCommand({ TopicArn: topic + "-missing", Message: "m" })),
);
result.badPolicy = await errorOf(
  sns.send(
    new SubscribeCommand({
      TopicArn: topic,
      Protocol: "sqs",
      Endpoint: eu.arn,
      Attributes: { FilterPolicy: "[1" },
    }),
  ),
);
result.badAttribute = await errorOf(
  sns.send(
    new PublishCommand({
      TopicArn: topic,
      Message: "m",
      MessageAttributes: { n: { DataType: "Number", StringValue: "not a number" } },
    }),
  ),
);

// A FIFO topic into a FIFO queue.
const { TopicArn: fifoTopic } = await sns.send(
  new CreateTopicCommand({ Name: "js-events.fifo", Attributes: { FifoTopic: "true" } }),
);
const fifo = await queue("js-events.fifo", { FifoQueue: "true" });
await sns.send(new SubscribeCommand({ TopicArn: fifoTopic, Protocol: "sqs", Endpoint: fifo.arn }));
const fifoSent = [];
for (const [body, dedup] of [["a", "1"], ["b", "2"], ["a again", "1"]]) {
  const answer = await sns.send(
    new PublishCommand({
      TopicArn: fifoTopic,
      Message: body,
      MessageGroupId: "g",
      MessageDeduplicationId: dedup,
    }),
  );
  fifoSent.push({ MessageId: answer.MessageId, SequenceNumber: answer.SequenceNumber });
}
result.fifo = { sent: fifoSent, received: await receive(fifo.url) };

await sns.send(new DeleteTopicCommand({ TopicArn: fifoTopic }));
result.topics = ((await sns.send(new ListTopicsCommand({}))).Topics ?? []).map((t) => t.TopicArn);

process.stdout.write(JSON.stringify(result) + "\n");
