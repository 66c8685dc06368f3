// A real OpenAI-compatible HTTP endpoint on 127.0.0.1 that replays scripted responses in order and
// records every request body as received, so tests check exactly what went over the wire. A reply
// may write the response itself (`write`: a stream, a body of hundreds of MB, one that never ends,
// written as fast as the reader takes it); with `health`, GETs (a gateway's health checks) are
// answered 200 without taking a reply.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ScriptedReply {
  /** HTTP status (default 200). */
  status?: number;
  /** A JSON body, or a raw string sent as is (unused with `write`). */
  body?: unknown;
  /** Milliseconds to wait before answering. */
  delayMs?: number;
  /** Writes the response itself (status, headers and body); `status` and `body` are then unused. */
  write?: (res: ServerResponse, request: RecordedRequest) => Promise<void> | void;
}

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage["headers"];
  /** The body as parsed JSON. */
  body: any;
  /** The body as received. */
  raw: string;
}

export class ScriptedOpenAI {
  readonly requests: RecordedRequest[] = [];
  readonly #replies: ScriptedReply[] = [];
  readonly #server: Server;
  #url = "";

  private constructor(health: boolean) {
    this.#server = createServer((req, res) => {
      if (health && req.method === "GET") {
        res.writeHead(200, { "content-type": "application/json" }).end('{"object":"list","data":[]}');
        return;
      }
      let raw = "";
      req.setEncoding("utf8");
      req.on("data", (c: string) => (raw += c));
      req.on("end", () => {
        const recorded = { path: req.url ?? "", headers: req.headers, body: safeParse(raw), raw };
        this.requests.push(recorded);
        const reply = this.#replies.shift() ?? {
          status: 500,
          body: { error: { message: "the script has no reply left for this request" } },
        };
        const send = () => {
          if (res.destroyed) return;
          if (reply.write) return void Promise.resolve(reply.write(res, recorded)).catch(() => res.destroy());
          res.writeHead(reply.status ?? 200, { "content-type": "application/json" });
          res.end(typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body));
        };
        if (reply.delayMs) setTimeout(send, reply.delayMs);
        else send();
      });
    });
  }

  /** `health`: GETs are answered 200 `{"data": []}` and take no reply (for a gateway's health checks). */
  static async start(options: { health?: boolean } = {}): Promise<ScriptedOpenAI> {
    const s = new ScriptedOpenAI(options.health ?? false);
    await new Promise<void>((resolve) => s.#server.listen(0, "127.0.0.1", resolve));
    s.#url = `http://127.0.0.1:${(s.#server.address() as AddressInfo).port}/v1`;
    return s;
  }

  get baseURL(): string {
    return this.#url;
  }

  /** The server's root, http://127.0.0.1:PORT (baseURL without /v1). */
  get origin(): string {
    return this.#url.replace(/\/v1$/, "");
  }

  reply(...replies: ScriptedReply[]): this {
    this.#replies.push(...replies);
    return this;
  }

  /** An answer with text (and optional calls, reasoning, finish reason, usage). */
  answer(a: Answer): this {
    return this.reply({ body: completion(a) });
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

export interface Answer {
  content?: string | null;
  calls?: Array<{ name: string; arguments?: string; id?: string }>;
  reasoning_details?: unknown[];
  /** Default: "tool_calls" when there are calls, else "stop"; null sends no reason. */
  finish_reason?: string | null;
  usage?: Record<string, unknown>;
}

/** A chat.completion body as OpenAI-compatible providers send it. */
export function completion(a: Answer): unknown {
  const calls = a.calls ?? [];
  const message: Record<string, unknown> = { role: "assistant", content: a.content ?? null };
  if (calls.length > 0)
    message.tool_calls = calls.map((c, i) => ({
      id: c.id ?? `call_${i + 1}`,
      type: "function",
      function: { name: c.name, arguments: c.arguments ?? "{}" },
    }));
  if (a.reasoning_details) message.reasoning_details = a.reasoning_details;
  const finish = a.finish_reason === undefined ? (calls.length > 0 ? "tool_calls" : "stop") : a.finish_reason;
  return {
    id: "chatcmpl-scripted",
    object: "chat.completion",
    created: 0,
    model: "scripted",
    choices: [{ index: 0, message, finish_reason: finish }],
    ...(a.usage ? { usage: a.usage } : {}),
  };
}

function safeParse(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/**
 * Writes `next(i)` for i = 0, 1, … as fast as the reader takes it (waiting on the socket's drain),
 * until it returns undefined (then ends the response) or the reader hangs up.
 */
export async function writeAll(res: ServerResponse, next: (i: number) => string | Buffer | undefined): Promise<void> {
  for (let i = 0; ; i++) {
    if (res.destroyed || res.writableEnded) return;
    const chunk = next(i);
    if (chunk === undefined) return void res.end();
    if (!res.write(chunk))
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off("drain", done).off("close", done);
          resolve();
        };
        res.once("drain", done).once("close", done);
      });
  }
}
