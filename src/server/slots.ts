// N generation slots and a bounded line in front of them: a request beyond both is refused at
// once (429) instead of waiting without bound, and one whose client leaves while waiting gives up
// its place in line.
import { ApiError } from "./errors.js";

interface Waiter {
  grant: (release: () => void) => void;
  fail: (err: unknown) => void;
}

export class Slots {
  readonly size: number;
  readonly maxQueue: number;
  #busy = 0;
  readonly #line: Waiter[] = [];

  constructor(size: number, maxQueue: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`parallel must be a positive integer, got ${size}`);
    if (!Number.isInteger(maxQueue) || maxQueue < 0)
      throw new RangeError(`maxQueue must be a non-negative integer, got ${maxQueue}`);
    this.size = size;
    this.maxQueue = maxQueue;
  }

  get busy(): number {
    return this.#busy;
  }
  get queued(): number {
    return this.#line.length;
  }

  /** Resolves with a release function once a slot is free; rejects with 429 when the line is full. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.#busy < this.size) {
      this.#busy++;
      return Promise.resolve(this.#releaser());
    }
    if (this.#line.length >= this.maxQueue)
      return Promise.reject(
        new ApiError(
          429,
          `all ${this.size} generation slots are busy and ${this.#line.length} requests are waiting; retry shortly`,
          {
            type: "rate_limit_error",
            code: "rate_limit_exceeded",
            headers: { "retry-after": "1" },
          },
        ),
      );
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(release);
        },
        fail: reject,
      };
      const onAbort = () => {
        const at = this.#line.indexOf(waiter);
        if (at >= 0) this.#line.splice(at, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#line.push(waiter);
    });
  }

  /** Turns away everyone still waiting (the server is closing). */
  rejectWaiting(err: unknown): void {
    for (const w of this.#line.splice(0)) w.fail(err);
  }

  #releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.#line.shift();
      // The slot passes straight to the next in line, so `busy` stays as it is.
      if (next) next.grant(this.#releaser());
      else this.#busy--;
    };
  }
}
