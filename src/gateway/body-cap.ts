// How much of an upstream's answer the gateway reads: a cap sized from the request's max_tokens,
// so a broken or hostile upstream (a body of gigabytes, a stream that never ends) costs bounded
// memory and time. A whole answer is read chunk by chunk and refused once past the cap (at once when
// its Content-Length says so); a stream is split into events as it arrives, and refused when the
// bytes since its last event pass the cap (one giant event, comments without end), when its events
// pass a count bound (empty events without end), or when the answer text they carry passes the cap.
// Past a bound the body is cancelled: the connection closes and nothing more is read or kept.
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { UpstreamError } from "./pool.js";
import { readUpTo } from "./read-up-to.js";

/** Bytes any answer may take beside its tokens: the JSON around them, usage, timings. */
export const BODY_BASE_BYTES = 1024 * 1024;
/**
 * Bytes one token may take in an answer: its text JSON-escaped (a control character takes 6
 * bytes, 7 in arguments that are themselves a JSON string) and its id in llama-server's `tokens`.
 */
export const BODY_BYTES_PER_TOKEN = 1024;
/**
 * The largest cap: a whole answer is decoded into one string, and V8's strings stop short of 512 MiB
 * (2^29 - 24 characters); parsing one of 256 MiB already takes seconds.
 */
export const MAX_BODY_BYTES = 256 * 1024 * 1024;
/** Stream events a token may take (engines send one per token or fewer; proxies that split text finer are allowed for). */
export const EVENTS_PER_TOKEN = 8;
/** Stream events beside the tokens': the role, each call's opening, the finish, the usage. */
export const EVENTS_BASE = 1024;

export interface BodyCap {
  /** Bytes of a whole answer, of a stream's bytes between two events, and of a stream's answer text. */
  bytes: number;
  /** Events a stream may send. */
  events: number;
  /** The cap in words, for the error that names it. */
  what: string;
}

const n = (v: number) => v.toLocaleString("en-US");

/**
 * The cap on one upstream answer of at most `tokens` tokens (the request's max_tokens, at most the
 * upstream's context size): `fixed` bytes when given (maxBodyBytes), else 1 MiB + twice the
 * request's bytes (llama-server's last answer echoes the prompt and the grammar sent: `prompt`,
 * `generation_settings` in tools/server/server-task.cpp) + 1 KiB per token, at most MAX_BODY_BYTES.
 */
export function upstreamBodyCap(tokens: number, requestBytes: number, fixed?: number): BodyCap {
  const events = EVENTS_PER_TOKEN * tokens + EVENTS_BASE;
  if (fixed !== undefined)
    return {
      bytes: fixed,
      events,
      what: `the gateway's cap of ${n(fixed)} bytes on an upstream answer (maxBodyBytes / --max-upstream-body-mb)`,
    };
  const bytes = Math.min(MAX_BODY_BYTES, BODY_BASE_BYTES + 2 * requestBytes + BODY_BYTES_PER_TOKEN * tokens);
  return {
    bytes,
    events,
    what: `the gateway's cap of ${n(bytes)} bytes on an upstream answer (1 MiB + twice the request's ${n(requestBytes)} bytes + 1 KiB for each of its ${n(tokens)} tokens at most: max_tokens, within the context size; at most 256 MiB; maxBodyBytes / --max-upstream-body-mb sets another)`,
  };
}

/** A whole answer's text, read under `cap`: an UpstreamError naming the cap past it. */
export async function readBodyText(response: Response, cap: BodyCap, url: string): Promise<string> {
  const { text, over } = await readUpTo(response, cap.bytes);
  if (over) throw new UpstreamError(`${url} sent an answer over ${cap.what}`);
  return text;
}

/**
 * A stream's server-sent events as they arrive, under `cap`. An event left unfinished when the
 * stream closes is dropped (as EventSourceParserStream drops it). Breaking off cancels the body.
 */
export async function* boundedEvents(
  body: ReadableStream<Uint8Array>,
  cap: BodyCap,
  url: string,
): AsyncGenerator<EventSourceMessage, void, undefined> {
  const arrived: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => arrived.push(e) });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let sinceEvent = 0;
  let events = 0;
  let done = false;
  try {
    while (!done) {
      const r = await reader.read();
      done = r.done;
      if (r.done) parser.feed(decoder.decode());
      else {
        sinceEvent += r.value.byteLength;
        parser.feed(decoder.decode(r.value, { stream: true }));
      }
      // An event ended in this chunk: what is left is less than the chunk.
      if (arrived.length > 0) sinceEvent = 0;
      else if (sinceEvent > cap.bytes)
        throw new UpstreamError(`${url} sent a stream event (or bytes without one) over ${cap.what}`);
      events += arrived.length;
      if (events > cap.events)
        throw new UpstreamError(
          `${url} sent more than ${n(cap.events)} stream events (${EVENTS_PER_TOKEN} for each of the answer's tokens, max_tokens within the context size, + ${n(EVENTS_BASE)}): a stream that does not end`,
        );
      yield* arrived.splice(0);
    }
  } finally {
    if (!done) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
