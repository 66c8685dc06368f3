// OpenAI-compatible upstreams (plain HTTP servers) that answer every chat request with one scripted
// answer — its thought, text and structured calls — JSON whole, or as SSE chunks (the text in
// small pieces, so a call written in it spans several), and our server as a gateway in front of
// one. reasoningUpstream() reasons, says a line and makes two calls, the second outside pick_3's
// enum (so a gateway verifying them drops it): behind a gateway it shows each route's finished
// answer (thought, text, a valid call, finish "tool_calls").
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startServer } from "../../src/server/index.js";

export interface ScriptedUpstream {
  url: string;
  server: Server;
}

export interface UpstreamAnswer {
  reasoning?: string;
  content?: string;
  calls?: Array<{ id: string; name: string; arguments: string }>;
  /** Default "tool_calls" with calls, else "stop". */
  finish?: "stop" | "length" | "tool_calls";
}

/** Characters of text per streamed chunk. */
const PIECE = 9;
const pieces = (text: string) =>
  Array.from({ length: Math.ceil(text.length / PIECE) }, (_, i) => text.slice(i * PIECE, (i + 1) * PIECE));

/** A chat completions request body as the upstream reads it. */
export interface UpstreamRequest {
  stream?: boolean;
  messages?: Array<{ role: string; content?: unknown; tool_calls?: unknown[]; tool_call_id?: string }>;
  tools?: Array<{ function?: { name?: string } }>;
  [key: string]: unknown;
}

/**
 * An OpenAI-compatible upstream that gives `answer` (or `answer(body)`, the answer for that
 * request) to every chat request: JSON whole, or as SSE chunks.
 */
export function answeringUpstream(
  answerFor: UpstreamAnswer | ((body: UpstreamRequest) => UpstreamAnswer),
): Promise<ScriptedUpstream> {
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: [{ id: "up" }] }));
        return;
      }
      const body = JSON.parse(raw) as UpstreamRequest;
      const answer = typeof answerFor === "function" ? answerFor(body) : answerFor;
      const calls = answer.calls ?? [];
      const finish = answer.finish ?? (calls.length > 0 ? "tool_calls" : "stop");
      const usage = { prompt_tokens: 11, completion_tokens: 22, total_tokens: 33 };
      const tool_calls = calls.map((c, index) => ({
        index,
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: c.arguments },
      }));
      if (!body.stream) {
        const message = {
          role: "assistant",
          ...(answer.reasoning !== undefined ? { reasoning_content: answer.reasoning } : {}),
          content: answer.content ?? null,
          ...(calls.length > 0 ? { tool_calls } : {}),
        };
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ choices: [{ index: 0, message, finish_reason: finish }], usage }));
        return;
      }
      const chunk = (delta: object, reason: string | null = null) =>
        `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: reason }] })}\n\n`;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(chunk({ role: "assistant" }));
      for (const p of pieces(answer.reasoning ?? "")) res.write(chunk({ reasoning_content: p }));
      for (const p of pieces(answer.content ?? "")) res.write(chunk({ content: p }));
      if (calls.length > 0) res.write(chunk({ tool_calls }));
      res.write(chunk({}, finish));
      res.write(`data: ${JSON.stringify({ choices: [], usage })}\n\n`);
      res.end("data: [DONE]\n\n");
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }),
    ),
  );
}

const REASONING: UpstreamAnswer = {
  reasoning: "I should pick.",
  content: "Picking.",
  calls: [
    { id: "up_1", name: "pick_3", arguments: '{"n": 2003}' },
    { id: "up_2", name: "pick_3", arguments: '{"n": 7}' }, // not in the enum: verified away
  ],
};

/** An OpenAI-compatible upstream that reasons, says a line and calls: JSON whole, or as SSE chunks. */
export const reasoningUpstream = (): Promise<ScriptedUpstream> => answeringUpstream(REASONING);

export interface ReasoningGateway {
  url: string;
  close(): Promise<void>;
}

/**
 * Our server as a gateway (engine "openai": answers verified) in front of answeringUpstream(answer);
 * with `dialect`, the upstream's text is read with that dialect's parser (calls written as text).
 */
export async function answeringGateway(
  answer: UpstreamAnswer | ((body: UpstreamRequest) => UpstreamAnswer),
  dialect?: string,
): Promise<ReasoningGateway> {
  const upstream = await answeringUpstream(answer);
  const gateway = await startServer({
    port: 0,
    ...(dialect ? { dialect } : {}),
    upstreams: { urls: [upstream.url], engine: "openai", healthInterval: 100 },
  });
  return {
    url: gateway.url,
    close: async () => {
      await gateway.close();
      await new Promise((r) => upstream.server.close(r));
    },
  };
}

/** Our server as a gateway (engine "openai": answers verified) in front of reasoningUpstream(). */
export const reasoningGateway = (): Promise<ReasoningGateway> => answeringGateway(REASONING);
