// A real OpenAI-compatible HTTP endpoint on 127.0.0.1 that replays scripted responses in order and
// records every request body as received, so tests check exactly what went over the wire.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ScriptedReply {
  /** HTTP status (default 200). */
  status?: number;
  /** A JSON body, or a raw string sent as is. */
  body: unknown;
  /** Milliseconds to wait before answering. */
  delayMs?: number;
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

  private constructor() {
    this.#server = createServer((req, res) => {
      let raw = "";
      req.setEncoding("utf8");
      req.on("data", (c: string) => (raw += c));
      req.on("end", () => {
        this.requests.push({ path: req.url ?? "", headers: req.headers, body: safeParse(raw), raw });
        const reply = this.#replies.shift() ?? {
          status: 500,
          body: { error: { message: "the script has no reply left for this request" } },
        };
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(reply.status ?? 200, { "content-type": "application/json" });
          res.end(typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body));
        };
        if (reply.delayMs) setTimeout(send, reply.delayMs);
        else send();
      });
    });
  }

  static async start(): Promise<ScriptedOpenAI> {
    const s = new ScriptedOpenAI();
    await new Promise<void>((resolve) => s.#server.listen(0, "127.0.0.1", resolve));
    s.#url = `http://127.0.0.1:${(s.#server.address() as AddressInfo).port}/v1`;
    return s;
  }

  get baseURL(): string {
    return this.#url;
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
