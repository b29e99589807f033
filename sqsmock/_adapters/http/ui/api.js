// sqsmock's web UI: the two ways it talks to the server.
//
// The admin API (/_sqsmock/...) is read with GET; what changes its state is a POST or DELETE
// with a JSON body. SQS is spoken as any client speaks it: POST with the AWS JSON 1.0
// protocol, made as the queue's owner (region and account in the credential scope).

const ADMIN = "/_sqsmock/";
const NEXT_TOKEN = "X-Sqsmock-Next-Token"; // a peek's answer: where its next page starts

async function failure(response, data) {
  return new Error((data && data.error) || `${response.status} ${response.statusText}`);
}

export async function admin(path, method = "GET", body = undefined) {
  const init = { method, headers: { Accept: "application/json" }, cache: "no-store" };
  if (method !== "GET") {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body === undefined ? {} : body);
  }
  const response = await fetch(ADMIN + path, init);
  if (response.status === 204) return null;
  const data = await response.json().catch(() => null);
  if (!response.ok) throw await failure(response, data);
  return data;
}

// The server takes the caller's region and account from the SigV4 credential scope
// (signatures are not checked), so the call is made as the owner ({region, account}).
export async function sqs(operation, params, owner) {
  const stamp = new Date().toISOString().replace(/[-:]|\.\d+/g, "");
  const scope = `${owner.account}/${stamp.slice(0, 8)}/${owner.region}/sqs/aws4_request`;
  const response = await fetch("/", {
    method: "POST",
    cache: "no-store",
    headers: {
      "Content-Type": "application/x-amz-json-1.0",
      "X-Amz-Target": `AmazonSQS.${operation}`,
      "X-Amz-Date": stamp,
      Authorization:
        `AWS4-HMAC-SHA256 Credential=${scope}, ` +
        "SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=sqsmock-ui",
    },
    body: JSON.stringify(params),
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const header = response.headers.get("x-amzn-query-error") || "";
    const code = (header.split(";")[0] || String(data.__type || response.status).split("#").pop())
      .replace(/^AWS\.SimpleQueueService\./, "");
    const error = new Error(`${code}: ${data.message || data.Message || response.statusText}`);
    error.code = code;
    throw error;
  }
  return data;
}

// One page of a queue's messages (a peek: changes nothing) and the token of the next.
export async function peekPage(q, token, limit) {
  const route = ["queues", q.region, q.account, q.name].map(encodeURIComponent).join("/");
  const query = new URLSearchParams();
  if (limit) query.set("limit", String(limit));
  if (token !== null) query.set("next_token", token);
  const search = query.toString() ? `?${query}` : "";
  const response = await fetch(`${ADMIN}${route}/messages${search}`, {
    headers: { Accept: "application/json" },
    cache: "no-store",
  });
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const error = await failure(response, data);
    error.status = response.status;
    throw error;
  }
  return { messages: data, next: response.headers.get(NEXT_TOKEN) };
}
