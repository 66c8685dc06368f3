// What every generation route (and count_tokens) shares: the request waits for a slot, a client that disconnects
// (while waiting, while its prompt is tokenized or while decoding) aborts its work through the AbortSignal generate()
// takes, and closing the server answers 503. A stream opens (headers and the API's opening event)
// as soon as the request is prepared — its prompt tokenized and checked against the context, its
// grammar compiled — before prefill begins, so an error found while preparing is still answered
// as a JSON error with its status; after the opening, an error goes as the API's error event.
// While the stream waits for its next event (prefill, a slow step) it sends a keepalive every
// `keepaliveMs` (Messages: a `ping` event; the others: an SSE comment), so a client or proxy
// that times out an idle read keeps the stream. A streamed request that has waited `keepaliveMs`
// for a slot (all busy) opens its stream then, before it is prepared, and keeps it talking while
// it waits: an error found when it is prepared then goes as the API's error event.
import type { FastifyReply } from "fastify";
import type { GenerateOptions } from "../engine/generate.js";
import type { StreamChunk } from "../engine/stream.js";
import type { ChatContext } from "./chat-context.js";
import { ApiError, toApiError } from "./errors.js";
import { SseWriter } from "./sse.js";

export interface RequestRun {
  /** generate()'s options for this request: the server's defaults, then the request's own. */
  options: GenerateOptions;
  /** Whether the client has gone (nothing more may be written). */
  clientGone: () => boolean;
  /** The stream, when it was opened while the request waited for its slot (pipeStream goes on with it). */
  opened?: SseWriter;
}

/** The role chunk every generateStream() yields first, once the request is prepared. */
const ROLE_CHUNK: StreamChunk = { delta: { role: "assistant" }, finish_reason: null };

/** A stream on `reply`: the reply is taken over when its first bytes go out. */
const sseOn = (reply: FastifyReply) =>
  new SseWriter(reply.raw, () => {
    reply.hijack();
    return reply.getHeaders();
  });

/**
 * Runs `work` for one request once a slot is free; what it returns is the reply. With `stream`
 * (the request is streamed), a wait for the slot longer than keepaliveMs opens the stream with
 * `stream.open` and sends its keepalive every keepaliveMs until the slot comes.
 */
export async function runInSlot(
  reply: FastifyReply,
  ctx: ChatContext,
  requested: Omit<GenerateOptions, "signal">,
  work: (run: RequestRun) => Promise<unknown>,
  stream?: StreamWriter,
): Promise<unknown> {
  const ctl = new AbortController();
  const res = reply.raw;
  let clientGone = false;
  const onClose = () => {
    if (res.writableFinished) return;
    clientGone = true;
    ctl.abort(new Error("the client disconnected"));
  };
  res.on("close", onClose);
  ctx.active.add(ctl);
  let release: (() => void) | undefined;
  let opened: SseWriter | undefined;
  try {
    const slot = ctx.slots.acquire(ctl.signal);
    release = !stream
      ? await slot
      : await withKeepalive(slot, ctx.keepaliveMs, async () => {
          if (opened) return stream.keepalive ? stream.keepalive(opened) : opened.comment("keepalive");
          opened = sseOn(reply);
          await stream.open(opened, ROLE_CHUNK);
        });
    const options: GenerateOptions = {
      maxTokens: ctx.backend.defaultMaxTokens,
      ...(ctx.temperature !== undefined ? { temperature: ctx.temperature } : {}),
      ...requested,
      ...(ctx.dialect ? { dialect: ctx.dialect } : {}),
      fastForward: ctx.fastForward,
      ...(ctx.strictFormats ? { strictFormats: true } : {}),
      ...(ctx.cachePrompt ? {} : { cachePrompt: false }),
      signal: ctl.signal,
    };
    return await work({ options, clientGone: () => clientGone, ...(opened ? { opened } : {}) });
  } catch (err) {
    // Nobody is listening any more: nothing to answer.
    if (clientGone) {
      reply.hijack();
      if (!res.destroyed) res.destroy();
      return reply;
    }
    const e = ctl.signal.aborted ? new ApiError(503, "the server is shutting down", { code: "server_closing" }) : err;
    // Opened while waiting for the slot (the server closed meanwhile): the error goes as an event.
    if (stream && opened?.started && !res.writableEnded) {
      await stream.fail(opened, toApiError(e));
      opened.end();
      return reply;
    }
    throw e;
  } finally {
    release?.();
    ctx.active.delete(ctl);
    res.off("close", onClose);
  }
}

/** How one API writes a stream: its opening, each chunk, its end, and an error once events are out. */
export interface StreamWriter {
  /** The events that open the stream (the role chunk, message_start …), sent before prefill. */
  open(sse: SseWriter, role: StreamChunk): Promise<void>;
  /** What is sent while the stream waits (default: an SSE comment). */
  keepalive?(sse: SseWriter): Promise<void>;
  chunk(sse: SseWriter, chunk: StreamChunk): Promise<void>;
  /** After the last chunk (the one with the result). */
  close(sse: SseWriter): Promise<void>;
  /** An error after events went out, as the API streams errors. */
  fail(sse: SseWriter, error: ApiError): Promise<void>;
}

/** `next`, with `ping()` awaited each `every` ms until it settles (every 0: no pings). */
async function withKeepalive<T>(next: Promise<T>, every: number, ping: () => Promise<void>): Promise<T> {
  if (!(every > 0)) return next;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const tick = new Promise<typeof TICK>((resolve) => {
      timer = setTimeout(() => resolve(TICK), every);
    });
    const r = await Promise.race([next, tick]).finally(() => clearTimeout(timer));
    if (r !== TICK) return r as T;
    await ping();
  }
}
const TICK = Symbol("keepalive");

/** A chunk that only says who speaks: no text, no call, not the last. */
const isRoleChunk = (c: StreamChunk) =>
  c.delta.role !== undefined && Object.keys(c.delta).length === 1 && c.result === undefined && !c.event;

/** Streams `chunks` through `writer`: opened with the first chunk (the role chunk, yielded once the request is prepared). */
export async function pipeStream(
  reply: FastifyReply,
  chunks: AsyncIterable<StreamChunk>,
  writer: StreamWriter,
  run: RequestRun,
  ctx: ChatContext,
): Promise<void> {
  // Opened while the request waited for its slot: the role chunk it opens with is not sent again.
  let sse: SseWriter | undefined = run.opened;
  let first = true;
  const it = chunks[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      const open = sse;
      const next = open
        ? await withKeepalive(it.next(), ctx.keepaliveMs, () =>
            writer.keepalive ? writer.keepalive(open) : open.comment("keepalive"),
          )
        : await it.next();
      if (next.done) {
        finished = true;
        break;
      }
      const opening = first;
      first = false;
      if (!sse) {
        sse = sseOn(reply);
        await writer.open(sse, next.value);
        continue;
      }
      if (opening && isRoleChunk(next.value)) continue;
      await writer.chunk(sse, next.value);
    }
    if (sse) await writer.close(sse);
  } catch (err) {
    // Nothing sent yet (not even the opening event, which may be what failed): the route's error.
    if (!sse?.started || run.clientGone()) throw err;
    const e = run.options.signal?.aborted
      ? new ApiError(503, "the server is shutting down", { code: "server_closing" })
      : toApiError(err);
    if (e.status >= 500 && e.status !== 503) ctx.onError?.(err);
    await writer.fail(sse, e);
    sse.end();
  } finally {
    // As for await … of does on a throw: the generation's own cleanup (its abort, its slot) runs.
    if (!finished) await it.return?.(undefined);
  }
}
