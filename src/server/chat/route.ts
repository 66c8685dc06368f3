// POST /v1/chat/completions: a checked request runs on the backend (a model here, or upstream
// engines) in a slot (run-request.ts), answered whole or as server-sent events in OpenAI's
// chat-completion chunk shape: text as it decodes, each call in one chunk once it has ended
// complete and valid (released-calls.ts), so the chunks add up to the whole answer.
import type { FastifyReply, FastifyRequest } from "fastify";
import { CallIds } from "../call-ids.js";
import type { ChatContext } from "../chat-context.js";
import { ReleasedCalls } from "../released-calls.js";
import { pipeStream, type RequestRun, runInSlot, type StreamWriter } from "../run-request.js";
import { servedName } from "../model-names.js";
import { chunkBody, completionBody, newMeta, usageChunkBody, usageOf } from "./response.js";
import { toolmaskField } from "../toolmask-field.js";
import { parseCompletionRequest } from "./request.js";

export type { ChatContext } from "../chat-context.js";

export async function chatCompletions(req: FastifyRequest, reply: FastifyReply, ctx: ChatContext): Promise<unknown> {
  const parsed = parseCompletionRequest(req.body, ctx.backend.bounds);
  const name = servedName(ctx, (req.body as { model?: unknown }).model);
  const meta = newMeta(name);
  const usage = parsed.includeUsage;
  const released = new ReleasedCalls();
  const writer: StreamWriter | undefined = !parsed.stream
    ? undefined
    : {
        open: (sse, role) => sse.send(chunkBody(meta, { ...role.delta, content: "" }, null, usage)),
        async chunk(sse, chunk) {
          // Text and thought as they come; calls only as released (released-calls.ts), each whole.
          const { tool_calls: _calls, ...text } = chunk.delta;
          if (Object.keys(text).length > 0) await sse.send(chunkBody(meta, text, null, usage));
          for (const { index, call } of released.of(chunk)) {
            const delta = { tool_calls: [{ index, id: call.id, type: call.type, function: { ...call.function } }] };
            await sse.send(chunkBody(meta, delta, null, usage));
          }
          const r = chunk.result;
          if (!r) return;
          await sse.send({ ...chunkBody(meta, {}, r.finishReason, usage), ...toolmaskField(r) });
          if (usage) await sse.send(usageChunkBody(meta, usageOf(r)));
        },
        close: (sse) => sse.done(),
        // Headers are out: the error goes as an event, which the openai client raises as an APIError.
        fail: (sse, e) => sse.send(e.body(ctx.redact)),
      };
  const work = async (run: RequestRun) => {
    const ids = new CallIds("call_");
    if (!writer) return completionBody(meta, ids.result(await ctx.backend.generate(run.options)));
    await pipeStream(reply, ids.stream(ctx.backend.generateStream(run.options)), writer, run, ctx);
    return reply;
  };
  return runInSlot(reply, ctx, parsed.options, work, writer);
}
