// What every generation route (and count_tokens) shares: the request waits for a slot, a client that disconnects
// (while waiting, while its prompt is tokenized or while decoding) aborts its work through the AbortSignal generate()
// takes, and closing the server answers 503. A stream's first event is held until decoding has
// produced something, and the headers go out with its bytes (sse.ts), so an error before that (a
// prompt longer than the context, an opening event that cannot be serialized) is still answered
// as a JSON error with its status; after it, an error goes as the API's error event.
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
}

/** Runs `work` for one request once a slot is free; what it returns is the reply. */
export async function runInSlot(
  reply: FastifyReply,
  ctx: ChatContext,
  requested: Omit<GenerateOptions, "signal">,
  work: (run: RequestRun) => Promise<unknown>,
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
  try {
    release = await ctx.slots.acquire(ctl.signal);
    const options: GenerateOptions = {
      maxTokens: ctx.backend.defaultMaxTokens,
      ...requested,
      ...(ctx.dialect ? { dialect: ctx.dialect } : {}),
      fastForward: ctx.fastForward,
      ...(ctx.strictFormats ? { strictFormats: true } : {}),
      signal: ctl.signal,
    };
    return await work({ options, clientGone: () => clientGone });
  } catch (err) {
    // Nobody is listening any more: nothing to answer.
    if (clientGone) {
      reply.hijack();
      if (!res.destroyed) res.destroy();
      return reply;
    }
    if (ctl.signal.aborted) throw new ApiError(503, "the server is shutting down", { code: "server_closing" });
    throw err;
  } finally {
    release?.();
    ctx.active.delete(ctl);
    res.off("close", onClose);
  }
}

/** How one API writes a stream: its opening, each chunk, its end, and an error once events are out. */
export interface StreamWriter {
  /** The events that open the stream (the role chunk, message_start …), sent with the first output. */
  open(sse: SseWriter, role: StreamChunk): Promise<void>;
  chunk(sse: SseWriter, chunk: StreamChunk): Promise<void>;
  /** After the last chunk (the one with the result). */
  close(sse: SseWriter): Promise<void>;
  /** An error after events went out, as the API streams errors. */
  fail(sse: SseWriter, error: ApiError): Promise<void>;
}

/** Streams `chunks` through `writer`; the role chunk is held until a second chunk arrives. */
export async function pipeStream(
  reply: FastifyReply,
  chunks: AsyncIterable<StreamChunk>,
  writer: StreamWriter,
  run: RequestRun,
  ctx: ChatContext,
): Promise<void> {
  let held: StreamChunk | undefined;
  let sse: SseWriter | undefined;
  try {
    for await (const chunk of chunks) {
      if (!sse) {
        if (!held) {
          held = chunk;
          continue;
        }
        sse = new SseWriter(reply.raw, () => {
          reply.hijack();
          return reply.getHeaders();
        });
        await writer.open(sse, held);
      }
      await writer.chunk(sse, chunk);
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
  }
}
