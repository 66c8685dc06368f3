// Timeouts sized by the work a test asks for, never a client's default (the openai client's 60 s
// failed clients-real and gateway-real on a machine at load average 9, where their answers took
// longer): the tokens decoded and read, at a slow machine's speed, five times over, plus a constant
// for what is not per token (a request's setup, a grammar compile, the HTTP round trip).
//
// The speeds were measured with generate() on a machine of 2 cores at load average 9.4–10.5 (the
// slow machine: 6 test runs sharing it), 2026-12-05:
//   node -e '…generate(model, {messages, maxTokens, temperature: 0}) … r.timings' (promptMillis /
//   prompt_tokens, decodeMillis / completion_tokens), plain and with a required tool:
//   - the random-weight test model (threads 1): prompt 0.10–0.12 ms/token, decode 4.3–6.5 ms/token,
//     prepare 59–132 ms;
//   - smollm2-135m-instruct (Q8): prompt 2.1–2.7 ms/token, decode 15.8–16.4 ms/token;
//   - qwen2.5-coder-0.5b-instruct (Q4): prompt 17.3–21.5 ms/token, decode 99–121 ms/token.
// The figures below are the slowest of each.

import { Agent, fetch as undiciFetch } from "undici";

/** Milliseconds per token on the slow machine, by model (the largest figure measured). */
export const MS_PER_TOKEN = {
  "test-model": { prompt: 0.12, decode: 6.5 },
  "smollm2-135m": { prompt: 2.7, decode: 16.4 },
  "qwen2.5-coder-0.5b": { prompt: 21.5, decode: 121 },
} as const;

export type TimedModel = keyof typeof MS_PER_TOKEN;

/** How many times the slow machine's time a timeout allows. */
export const MARGIN = 5;
/** Per request, what is not per token: setup, a grammar compile, the round trip (prepare took 59–132 ms). */
export const PER_REQUEST_MS = 300;
/** Once per timeout: what a test does around its requests (a server started, a model already loaded). */
export const CONSTANT_MS = 10_000;

export interface Work {
  /** Tokens decoded, all requests together (a request's max_tokens when it may run to it). */
  decode: number;
  /** Prompt tokens read, all requests together. Default: 1,000 per request (the test prompts are shorter). */
  prompt?: number;
  /** Requests sent. Default 1. */
  requests?: number;
  model?: TimedModel;
}

/** Milliseconds a client or a test may wait for `work`: MARGIN × the slow machine's time, plus the constants. */
export function timeoutFor(work: Work): number {
  const rate = MS_PER_TOKEN[work.model ?? "test-model"];
  const requests = work.requests ?? 1;
  const prompt = work.prompt ?? 1_000 * requests;
  return Math.ceil(
    MARGIN * (work.decode * rate.decode + prompt * rate.prompt + requests * PER_REQUEST_MS) + CONSTANT_MS,
  );
}

/** A request that decodes nothing (/health, /v1/models, a refusal, a preflight). */
export const NO_TOKENS: Work = { decode: 0 };
/** The test model's default context: a request without max_tokens (or one closed mid-way) decodes at most this. */
export const TEST_MODEL_CONTEXT = 4096;

/** timeoutFor one request decoding `decode` tokens. */
export const timeoutForTokens = (decode: number, model: TimedModel = "test-model"): number =>
  timeoutFor({ decode, model });

/** fetch with a timeout sized by `work`. */
export function fetchWithin(work: Work, url: string | URL, init: RequestInit = {}): Promise<Response> {
  return timedFetch(work)(url, init);
}

/**
 * A fetch whose every request times out after timeoutFor(work), for the clients that take a fetch
 * (openai, @anthropic-ai/sdk, the AI SDK's providers). Node's own fetch also stops waiting for a
 * response's headers, or between two of its body's chunks, after undici's 300 s (a whole answer
 * of Qwen2.5-Coder took 327 s at load average 12), whatever the client's timeout: requests go
 * through an undici Agent whose headers and body timeouts are the same limit.
 */
export function timedFetch(work: Work): typeof fetch {
  const ms = timeoutFor(work);
  const dispatcher = new Agent({ headersTimeout: ms, bodyTimeout: ms });
  return ((url: string | URL | Request, init: RequestInit = {}) => {
    const limit = AbortSignal.timeout(ms);
    const signal = init.signal ? AbortSignal.any([init.signal, limit]) : limit;
    return undiciFetch(url as Parameters<typeof undiciFetch>[0], {
      ...(init as Parameters<typeof undiciFetch>[1]),
      signal,
      dispatcher,
    }) as unknown as Promise<Response>;
  }) as typeof fetch;
}

/**
 * MARGIN × `slowMs`, a run's time measured on the slow machine, plus CONSTANT_MS: for work that is
 * not model tokens (a bench's mask walks over the Qwen3 vocabulary, a parse, Python peers starting).
 */
export const timeoutForMeasured = (slowMs: number): number => MARGIN * slowMs + CONSTANT_MS;
