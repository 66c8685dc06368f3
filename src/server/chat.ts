// POST /v1/chat/completions: a checked request runs on the backend (a model here, or upstream
// engines) in a slot (run-request.ts), answered whole or as server-sent events in OpenAI's
// chat-completion chunk shape.
import type { FastifyReply, FastifyRequest } from "fastify";
import { CallIds } from "./call-ids.js";
import type { ChatContext } from "./chat-context.js";
import { pipeStream, runInSlot, type StreamWriter } from "./run-request.js";
import { servedName } from "./model-names.js";
import { chunkBody, completionBody, toolmaskField, newMeta, usageChunkBody, usageOf } from "./shapes.js";
import { parseCompletionRequest } from "./validate.js";

export type { ChatContext } from "./chat-context.js";

export async function chatCompletions(req: FastifyRequest, reply: FastifyReply, ctx: ChatContext): Promise<unknown> {
  const parsed = parseCompletionRequest(req.body, ctx.backend.bounds);
  const name = servedName(ctx, (req.body as { model?: unknown }).model);
  return runInSlot(reply, ctx, parsed.options, async (run) => {
    const meta = newMeta(name);
    const ids = new CallIds("call_");
    if (!parsed.stream) return completionBody(meta, ids.result(await ctx.backend.generate(run.options)));
    const usage = parsed.includeUsage;
    const writer: StreamWriter = {
      open: (sse, role) => sse.send(chunkBody(meta, { ...role.delta, content: "" }, null, usage)),
      async chunk(sse, chunk) {
        // Events with no OpenAI delta (a call's end, an error, a drop) are settled by the last chunk.
        if (chunk.event && Object.keys(chunk.delta).length === 0) return;
        await sse.send({ ...chunkBody(meta, chunk.delta, chunk.finish_reason, usage), ...toolmaskField(chunk.result) });
        if (chunk.result && usage) await sse.send(usageChunkBody(meta, usageOf(chunk.result)));
      },
      close: (sse) => sse.done(),
      // Headers are out: the error goes as an event, which the openai client raises as an APIError.
      fail: (sse, e) => sse.send(e.body(ctx.redact)),
    };
    await pipeStream(reply, ids.stream(ctx.backend.generateStream(run.options)), writer, run, ctx);
    return reply;
  });
}
