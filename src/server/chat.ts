// POST /v1/chat/completions: a checked request waits for a slot, then runs on the backend (a model
// here, or upstream engines) whole or as server-sent events. A client that disconnects, while waiting or while
// decoding, aborts its generation through the AbortSignal generate() takes.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { GenerateOptions } from "../engine/generate.js";
import type { StreamChunk } from "../engine/stream.js";
import type { ChatBackend } from "./backend.js";
import { ApiError, toApiError } from "./errors.js";
import type { Redact } from "./redact.js";
import {
  chunkBody,
  completionBody,
  toolmaskField,
  newMeta,
  usageChunkBody,
  usageOf,
  type ResponseMeta,
} from "./shapes.js";
import type { Slots } from "./slots.js";
import { SseWriter } from "./sse.js";
import { parseCompletionRequest, type CompletionRequest } from "./validate.js";

export interface ChatContext {
  backend: ChatBackend;
  modelId: string;
  slots: Slots;
  /** The tool-call dialect to use instead of the one detected from the chat template. */
  dialect: string | undefined;
  /** false: every token is sampled (GenerateOptions.fastForward). */
  fastForward: boolean;
  /** Generations in flight, so that closing the server can stop them. */
  active: Set<AbortController>;
  /** Sees errors answered with a 5xx (our faults), for logging. */
  onError: ((err: unknown) => void) | undefined;
  /** Rewrites what an error message sent to a client must not reveal (the model's path). */
  redact: Redact;
}

export async function chatCompletions(req: FastifyRequest, reply: FastifyReply, ctx: ChatContext): Promise<unknown> {
  const parsed = parseCompletionRequest(req.body, ctx.backend.bounds);
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
    const meta = newMeta(ctx.modelId);
    const options: GenerateOptions = {
      maxTokens: ctx.backend.defaultMaxTokens,
      ...parsed.options,
      ...(ctx.dialect ? { dialect: ctx.dialect } : {}),
      fastForward: ctx.fastForward,
      signal: ctl.signal,
    };
    if (parsed.stream) {
      await streamCompletion(reply, meta, parsed, options, ctx, () => clientGone);
      return reply;
    }
    return completionBody(meta, await ctx.backend.generate(options));
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

async function streamCompletion(
  reply: FastifyReply,
  meta: ResponseMeta,
  parsed: CompletionRequest,
  options: GenerateOptions,
  ctx: ChatContext,
  clientGone: () => boolean,
): Promise<void> {
  const chunks = ctx.backend.generateStream(options);
  // The role chunk is held until decoding has produced something: an error before that (a prompt
  // longer than the context) is still answered as a JSON error with its status.
  let held: StreamChunk | undefined;
  let sse: SseWriter | undefined;
  const usage = parsed.includeUsage;
  try {
    for await (const chunk of chunks) {
      if (!sse) {
        if (!held) {
          held = chunk;
          continue;
        }
        reply.hijack();
        sse = new SseWriter(reply.raw);
        sse.open();
        await sse.send(chunkBody(meta, { ...held.delta, content: "" }, null, usage));
      }
      await sse.send({ ...chunkBody(meta, chunk.delta, chunk.finish_reason, usage), ...toolmaskField(chunk.result) });
      if (chunk.result && usage) await sse.send(usageChunkBody(meta, usageOf(chunk.result)));
    }
    await sse?.done();
  } catch (err) {
    if (!sse || clientGone()) throw err;
    // Headers are out: the error goes as an event, which the openai client raises as an APIError.
    const e = options.signal?.aborted
      ? new ApiError(503, "the server is shutting down", { code: "server_closing" })
      : toApiError(err);
    if (e.status >= 500 && e.status !== 503) ctx.onError?.(err);
    await sse.send(e.body(ctx.redact));
    sse.end();
  }
}
