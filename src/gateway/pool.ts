// The upstream engines of a gateway: each request goes to the healthy upstream with the fewest
// requests outstanding (ties to the one used least recently); health is checked every
// `healthInterval` ms and after any failure. A request whose upstream fails before the response
// begins (connection refused or reset, a 5xx, a timeout before headers) goes to the next
// upstream, each tried once; after the response began nothing is retried, so no answer part is
// ever delivered twice.
import type { EngineAdapter, UpstreamRequest } from "./engines/types.js";
import { readUpTo } from "./read-up-to.js";
import { checkUpstreamUrl } from "./upstream-url.js";

/** Bytes of an upstream's error body read (its first 2,000 characters are quoted). */
const ERROR_BODY_BYTES = 64 * 1024;

export interface UpstreamState {
  url: string;
  healthy: boolean;
  outstanding: number;
  /** Requests sent; failures before their response began. */
  sent: number;
  failed: number;
  lastError: string | undefined;
}

export class UpstreamError extends Error {
  /** The upstream's HTTP status, when it answered. */
  readonly status: number | undefined;
  readonly body: string | undefined;
  constructor(message: string, status?: number, body?: string) {
    super(message);
    this.name = "UpstreamError";
    this.status = status;
    this.body = body;
  }
}

export interface PoolOptions {
  /** Milliseconds between health checks. Default 2,000. */
  healthInterval?: number;
  /** Milliseconds an upstream may take to send response headers. Default 600,000. */
  headersTimeout?: number;
  /** Sent as `Authorization: Bearer …` to every upstream. */
  apiKey?: string;
}

export class UpstreamPool {
  readonly upstreams: UpstreamState[];
  private readonly timer: NodeJS.Timeout | undefined;
  private order = 0;
  private readonly lastUsed = new Map<UpstreamState, number>();
  private closed = false;

  constructor(
    urls: string[],
    private readonly engine: EngineAdapter,
    private readonly options: PoolOptions = {},
  ) {
    if (!Array.isArray(urls) || urls.length === 0) throw new TypeError("a gateway needs at least one upstream URL");
    const seen = new Set<string>();
    this.upstreams = urls.map((u) => {
      const url = checkUpstreamUrl(u);
      if (seen.has(url)) throw new TypeError(`upstream ${url} is given twice`);
      seen.add(url);
      return { url, healthy: true, outstanding: 0, sent: 0, failed: 0, lastError: undefined };
    });
    const every = options.healthInterval ?? 2000;
    if (!(Number.isInteger(every) && every > 0))
      throw new RangeError(`healthInterval must be a positive integer (ms), got ${every}`);
    this.timer = setInterval(() => void this.checkAll(), every);
    this.timer.unref();
  }

  private headers(json: boolean): Record<string, string> {
    return {
      ...(json ? { "content-type": "application/json" } : {}),
      ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
    };
  }

  /** GETs every upstream's health route; resolves when all answered (or failed). */
  async checkAll(): Promise<void> {
    await Promise.all(this.upstreams.map((u) => this.check(u)));
  }

  private async check(u: UpstreamState): Promise<void> {
    try {
      const res = await fetch(`${u.url}${this.engine.healthPath}`, {
        headers: this.headers(false),
        signal: AbortSignal.timeout(5000),
      });
      await res.body?.cancel();
      u.healthy = res.ok;
      if (!res.ok) u.lastError = `health check: HTTP ${res.status}`;
    } catch (err) {
      u.healthy = false;
      u.lastError = `health check: ${(err as Error).message}`;
    }
  }

  /** Upstreams in the order a request tries them: healthy first, fewest outstanding, least recently used. */
  private ranked(): UpstreamState[] {
    return [...this.upstreams].sort(
      (a, b) =>
        Number(b.healthy) - Number(a.healthy) ||
        a.outstanding - b.outstanding ||
        (this.lastUsed.get(a) ?? -1) - (this.lastUsed.get(b) ?? -1),
    );
  }

  /**
   * Sends `req` and resolves with the first upstream response that began well (2xx), with a
   * `release` to call when its body is consumed. A 4xx from an upstream is not retried: it is this
   * request's own fault, and another upstream would refuse it too.
   */
  async send(
    req: UpstreamRequest,
    signal: AbortSignal | undefined,
  ): Promise<{ response: Response; upstream: UpstreamState; release: () => void; requestBytes: number }> {
    if (this.closed) throw new UpstreamError("the gateway is closing");
    const errors: string[] = [];
    const payload = JSON.stringify(req.body);
    const requestBytes = Buffer.byteLength(payload);
    for (const u of this.ranked()) {
      signal?.throwIfAborted();
      u.outstanding++;
      u.sent++;
      this.lastUsed.set(u, this.order++);
      let released = false;
      const release = () => {
        if (!released) u.outstanding--;
        released = true;
      };
      const timeout = AbortSignal.timeout(this.options.headersTimeout ?? 600_000);
      try {
        const response = await fetch(`${u.url}${req.path}`, {
          method: "POST",
          headers: this.headers(true),
          body: payload,
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
        if (response.ok) return { response, upstream: u, release, requestBytes };
        // Only the start of an error body is read: it is quoted, and it may be of any size.
        const body = (await readUpTo(response, ERROR_BODY_BYTES).catch(() => ({ text: "" }))).text.slice(0, 2000);
        release();
        if (response.status < 500) {
          throw new UpstreamError(
            `${u.url}${req.path} refused the request: HTTP ${response.status} ${body}`,
            response.status,
            body,
          );
        }
        u.failed++;
        u.lastError = `HTTP ${response.status}`;
        errors.push(`${u.url}: HTTP ${response.status} ${body.slice(0, 200)}`);
        void this.check(u);
      } catch (err) {
        release();
        if (err instanceof UpstreamError) throw err;
        if (signal?.aborted) throw signal.reason ?? err;
        u.failed++;
        u.healthy = false;
        u.lastError = (err as Error).message;
        errors.push(
          `${u.url}: ${(err as Error).message}${(err as { cause?: Error }).cause ? ` (${(err as { cause: Error }).cause.message})` : ""}`,
        );
      }
    }
    throw new UpstreamError(`no upstream could take the request: ${errors.join("; ")}`);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
  }
}
