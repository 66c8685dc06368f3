// POST /v1/messages, Anthropic's Messages API: a checked request (request.ts) runs on the backend in
// a slot (run-request.ts), answered as one Message (response.ts) or as Anthropic's named events
// (stream.ts); errors in Anthropic's shape (errors.ts, the route's errorBody).
import type { FastifyReply, FastifyRequest } from "fastify";
import { CallIds } from "../call-ids.js";
import type { ChatContext } from "../chat-context.js";
import { servedName } from "../model-names.js";
import { pipeStream, runInSlot } from "../run-request.js";
import { parseMessagesRequest } from "./request.js";
import { messageBody, newMessageId } from "./response.js";
import { messagesStreamWriter } from "./stream.js";

export { anthropicErrorBody } from "./errors.js";

export async function anthropicMessages(req: FastifyRequest, reply: FastifyReply, ctx: ChatContext): Promise<unknown> {
  const parsed = parseMessagesRequest(req.body, ctx.backend.bounds);
  const name = servedName(ctx, (req.body as { model?: unknown }).model);
  return runInSlot(reply, ctx, parsed.options, async (run) => {
    const id = newMessageId();
    const ids = new CallIds("toolu_");
    if (!parsed.stream) return messageBody(id, name, ids.result(await ctx.backend.generate(run.options)));
    const writer = messagesStreamWriter(id, name, ctx.redact);
    await pipeStream(reply, ids.stream(ctx.backend.generateStream(run.options)), writer, run, ctx);
    return reply;
  });
}
