// Server-sent events on a raw response: `data: <json>\n\n` per event (with an `event:` line when
// named), `data: [DONE]` at the end of a chat-completions stream. The status line and headers go
// out with the first event, once it is serialized: until then nothing is sent, and an error can
// still be answered with its own status. Writes wait for the socket to drain, so a slow reader
// holds back the writer, not memory.
import { once } from "node:events";
import type { ServerResponse } from "node:http";

type Headers = Record<string, string | number | string[] | undefined>;

export class SseWriter {
  readonly #res: ServerResponse;
  readonly #start: () => Headers;
  #started = false;

  /**
   * `start` is called once, just before the first bytes are written: it takes the response over
   * (the route answers nothing itself from then on) and gives the headers set on the reply before
   * (CORS), which go out with the stream's own.
   */
  constructor(res: ServerResponse, start: () => Headers) {
    this.#res = res;
    this.#start = start;
  }

  /** Whether anything was sent (after that, an error can only go as an event). */
  get started(): boolean {
    return this.#started;
  }

  #open(): void {
    if (this.#started) return;
    this.#started = true;
    const headers = this.#start();
    const given = Object.entries(headers).filter(([, v]) => v !== undefined) as Array<
      [string, string | number | string[]]
    >;
    this.#res.writeHead(200, {
      ...Object.fromEntries(given),
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
      // Proxies (nginx) must pass each event on as it comes.
      "x-accel-buffering": "no",
    });
    this.#res.flushHeaders();
  }

  async send(event: unknown): Promise<void> {
    await this.#write(`data: ${JSON.stringify(event)}\n\n`);
  }

  /** A named event (`event: <name>`), as Anthropic's and the Responses API's streams send them. */
  async named(name: string, data: unknown): Promise<void> {
    await this.#write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** An SSE comment line (`: text`): clients skip it; it keeps idle-read timeouts and proxies from closing the stream. */
  async comment(text: string): Promise<void> {
    await this.#write(`: ${text.replace(/[\r\n]/g, " ")}\n\n`);
  }

  async done(): Promise<void> {
    await this.#write("data: [DONE]\n\n");
    this.#res.end();
  }

  end(): void {
    this.#open();
    this.#res.end();
  }

  async #write(text: string): Promise<void> {
    this.#open();
    const res = this.#res;
    if (res.destroyed || res.writableEnded) return;
    if (res.write(text)) return;
    const stop = new AbortController();
    try {
      await Promise.race([once(res, "drain", { signal: stop.signal }), once(res, "close", { signal: stop.signal })]);
    } finally {
      stop.abort(); // drop the listener that did not fire
    }
  }
}
