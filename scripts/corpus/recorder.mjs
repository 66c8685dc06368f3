// A loopback HTTP server that records each request (method, path, headers, JSON body) and answers
// the smallest valid response of the API the path names: Anthropic Messages, OpenAI Responses,
// OpenAI chat completions (streamed as SSE when the body asks for it, a JSON body otherwise), so an
// agent client finishes its turn offline. Anything else: 404 in OpenAI's error shape.
import { createServer } from "node:http";

const sse = (events) => events.map(([event, data]) => `${event ? `event: ${event}\n` : ""}data: ${data}\n\n`).join("");
const json = (v) => JSON.stringify(v);

function messages(body) {
  const model = body.model ?? "model";
  const message = {
    id: "msg_capture",
    type: "message",
    role: "assistant",
    model,
    content: [{ type: "text", text: "ok" }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
  if (!body.stream) return { type: "application/json", text: json(message) };
  const start = { ...message, content: [], stop_reason: null, usage: { input_tokens: 1, output_tokens: 0 } };
  return {
    type: "text/event-stream",
    text: sse([
      ["message_start", json({ type: "message_start", message: start })],
      [
        "content_block_start",
        json({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
      ],
      [
        "content_block_delta",
        json({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } }),
      ],
      ["content_block_stop", json({ type: "content_block_stop", index: 0 })],
      [
        "message_delta",
        json({
          type: "message_delta",
          delta: { stop_reason: "end_turn", stop_sequence: null },
          usage: { output_tokens: 1 },
        }),
      ],
      ["message_stop", json({ type: "message_stop" })],
    ]),
  };
}

function responses(body) {
  const item = {
    type: "message",
    id: "msg_capture",
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text: "ok", annotations: [] }],
  };
  const usage = {
    input_tokens: 1,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 1,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 2,
  };
  const base = { id: "resp_capture", object: "response", created_at: 0, model: body.model ?? "model" };
  const done = { ...base, status: "completed", output: [item], usage };
  if (!body.stream) return { type: "application/json", text: json(done) };
  const running = { ...base, status: "in_progress", output: [] };
  return {
    type: "text/event-stream",
    text: sse([
      ["response.created", json({ type: "response.created", sequence_number: 0, response: running })],
      ["response.in_progress", json({ type: "response.in_progress", sequence_number: 1, response: running })],
      [
        "response.output_item.added",
        json({
          type: "response.output_item.added",
          sequence_number: 2,
          output_index: 0,
          item: { ...item, content: [] },
        }),
      ],
      [
        "response.output_text.delta",
        json({
          type: "response.output_text.delta",
          sequence_number: 3,
          item_id: item.id,
          output_index: 0,
          content_index: 0,
          delta: "ok",
        }),
      ],
      [
        "response.output_item.done",
        json({ type: "response.output_item.done", sequence_number: 4, output_index: 0, item }),
      ],
      ["response.completed", json({ type: "response.completed", sequence_number: 5, response: done })],
    ]),
  };
}

function chat(body) {
  const base = { id: "chatcmpl-capture", created: 0, model: body.model ?? "model" };
  const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
  if (!body.stream)
    return {
      type: "application/json",
      text: json({
        ...base,
        object: "chat.completion",
        choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
        usage,
      }),
    };
  const chunk = (choices, extra = {}) => json({ ...base, object: "chat.completion.chunk", choices, ...extra });
  return {
    type: "text/event-stream",
    text: sse([
      [null, chunk([{ index: 0, delta: { role: "assistant", content: "ok" }, finish_reason: null }])],
      [null, chunk([{ index: 0, delta: {}, finish_reason: "stop" }], { usage })],
      [null, "[DONE]"],
    ]),
  };
}

/** The answer for `path` (query stripped), or undefined where this server speaks no API there. */
function answer(path, body) {
  if (/\/messages\/count_tokens$/.test(path)) return { type: "application/json", text: json({ input_tokens: 1 }) };
  if (/\/messages$/.test(path)) return messages(body);
  if (/\/responses$/.test(path)) return responses(body);
  if (/\/chat\/completions$/.test(path)) return chat(body);
  return undefined;
}

/** Starts the recorder on 127.0.0.1 (a free port); `requests` fills as requests come. */
export async function startRecorder() {
  const requests = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = null;
      }
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      requests.push({
        method: req.method,
        path: url.pathname,
        query: url.search,
        headers: req.headers,
        body,
        raw: body ? undefined : raw,
      });
      const a = req.method === "POST" && body && typeof body === "object" ? answer(url.pathname, body) : undefined;
      if (!a) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(json({ error: { message: `no such route: ${req.method} ${url.pathname}`, type: "not_found" } }));
        return;
      }
      res.writeHead(200, {
        "content-type": a.type,
        ...(a.type === "text/event-stream" ? { "cache-control": "no-cache" } : {}),
      });
      res.end(a.text);
    });
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}
