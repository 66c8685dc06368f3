// Each model request of a run has a deadline, whether or not the caller passed a signal: a request
// past it is aborted (fetch stops reading, generate() stops decoding) and the run ends with status
// error instead of waiting on an endpoint or a model that does not finish.

/** 10 minutes: the openai Node client's default request timeout. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 600_000;
/** setTimeout's largest delay; a longer one would fire at once. */
export const MAX_REQUEST_TIMEOUT_MS = 2 ** 31 - 1;

export class RequestTimeoutError extends Error {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`no answer within requestTimeoutMs (${timeoutMs} ms)`);
    this.name = "RequestTimeoutError";
    this.timeoutMs = timeoutMs;
  }
}

/**
 * Runs `request` with a signal that aborts when `outer` does or when `timeoutMs` pass; past the
 * deadline it rejects with RequestTimeoutError even if `request` does not heed its signal.
 */
export async function withDeadline<T>(
  timeoutMs: number,
  outer: AbortSignal,
  request: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const ctl = new AbortController();
  const forward = () => ctl.abort(outer.reason);
  outer.addEventListener("abort", forward, { once: true });
  if (outer.aborted) forward();
  let timedOut: RequestTimeoutError | undefined;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = new RequestTimeoutError(timeoutMs);
      ctl.abort(timedOut);
      reject(timedOut);
    }, timeoutMs);
  });
  // Whatever the aborted request rejects with (an AbortError, a cut body), past the deadline the
  // reason is the deadline.
  const answered = request(ctl.signal).catch((e: unknown) => {
    throw timedOut ?? e;
  });
  try {
    return await Promise.race([answered, expired]);
  } finally {
    clearTimeout(timer);
    outer.removeEventListener("abort", forward);
  }
}
