// Each model request and each tool call of a run has a deadline, whether or not the caller passed
// a signal: work past it is aborted (fetch stops reading, generate() stops decoding, a tool's
// ctx.signal fires) and the run goes on without it — a request ends the run with status error, a
// tool's result tells the model it did not finish. An abort of the run likewise returns at once:
// work that does not heed its signal is abandoned, never waited for.

/** 10 minutes: the openai Node client's default request timeout. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 600_000;
/** 10 minutes, as a request: a tool call that runs longer is abandoned. */
export const DEFAULT_TOOL_TIMEOUT_MS = 600_000;
/** setTimeout's largest delay; a longer one would fire at once. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export class RequestTimeoutError extends Error {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`no answer within requestTimeoutMs (${timeoutMs} ms)`);
    this.name = "RequestTimeoutError";
    this.timeoutMs = timeoutMs;
  }
}

/** The work was abandoned because the caller's signal fired (its reason is `cause`). */
export class AbandonedError extends Error {
  constructor(reason: unknown) {
    super("aborted", { cause: reason });
    this.name = "AbandonedError";
  }
}

const thenable = (v: unknown): v is PromiseLike<unknown> =>
  (typeof v === "object" || typeof v === "function") &&
  v !== null &&
  typeof (v as PromiseLike<unknown>).then === "function";

/**
 * Runs `work` with a signal that aborts when `outer` does or when `timeoutMs` pass. Past the
 * deadline it rejects with `expired()` (the signal's reason too), and once `outer` fires with
 * AbandonedError, even if `work` does not heed its signal; whatever the work does later is
 * ignored. A value returned at once (not a promise) is the result, whatever happened meanwhile.
 */
export async function withDeadline<T>(
  timeoutMs: number,
  outer: AbortSignal,
  work: (signal: AbortSignal) => T | PromiseLike<T>,
  expired: () => Error = () => new RequestTimeoutError(timeoutMs),
): Promise<T> {
  const ctl = new AbortController();
  let stop!: (e: unknown) => void;
  const stopped = new Promise<never>((_, reject) => (stop = reject));
  // Observed only when raced below; a stop while `work` runs synchronously must not go unhandled.
  stopped.catch(() => {});
  const forward = () => {
    ctl.abort(outer.reason);
    stop(new AbandonedError(outer.reason));
  };
  outer.addEventListener("abort", forward, { once: true });
  if (outer.aborted) forward();
  let timedOut: Error | undefined;
  const timer = setTimeout(() => {
    timedOut = expired();
    ctl.abort(timedOut);
    stop(timedOut);
  }, timeoutMs);
  try {
    const out = work(ctl.signal);
    if (!thenable(out)) return out;
    // Whatever the aborted work rejects with (an AbortError, a cut body), past the deadline the
    // reason is the deadline.
    const answered = Promise.resolve(out).catch((e: unknown) => {
      throw timedOut ?? e;
    });
    return await Promise.race([answered, stopped]);
  } finally {
    clearTimeout(timer);
    outer.removeEventListener("abort", forward);
  }
}
