// POST /v1/messages, Anthropic's Messages API: a checked request (request.ts) runs on the backend in
// a slot (run-request.ts), answered as one Message (response.ts: JSON text written there, so a
// tool_use input is the arguments as written) or as Anthropic's named events
// (stream.ts); errors in Anthropic's shape (errors.ts, the route's errorBody).
import type { FastifyReply, FastifyRequest } from "fastify";
import { CallIds } from "../call-ids.js";
import { ApiError } from "../errors.js";
import type { ChatContext } from "../chat-context.js";
import { servedName } from "../model-names.js";
import { pipeStream, type RequestRun, runInSlot } from "../run-request.js";
import { parseMessagesRequest } from "./request.js";
import { messageBody, newMessageId } from "./response.js";
import { messagesStreamWriter } from "./stream.js";

export { anthropicErrorBody } from "./errors.js";

export async function anthropicMessages(req: FastifyRequest, reply: FastifyReply, ctx: ChatContext): Promise<unknown> {
  const parsed = parseMessagesRequest(req.body, ctx.backend.bounds);
  const name = servedName(ctx, (req.body as { model?: unknown }).model);
  const id = newMessageId();
  const writer = parsed.stream ? messagesStreamWriter(id, name, ctx.redact, parsed.thoughtOmitted) : undefined;
  const work = async (run: RequestRun) => {
    const ids = new CallIds("toolu_");
    if (!writer) {
      const body = messageBody(id, name, ids.result(await ctx.backend.generate(run.options)), parsed.thoughtOmitted);
      return reply.type("application/json; charset=utf-8").send(body);
    }
    await pipeStream(reply, ids.stream(ctx.backend.generateStream(run.options)), writer, run, ctx);
    return reply;
  };
  return runInSlot(reply, ctx, parsed.options, work, writer);
}

/**
 * POST /v1/messages/count_tokens: the request's prompt tokens as the model's template renders them
 * (what input_tokens would say), nothing decoded; refused as /v1/messages would refuse it (a prompt
 * that cannot fit the context included, tool schemas the lowering refuses; not the native
 * compiler's limits, which take a compile to find: countPromptTokens). It runs in a generation slot like /v1/messages (429 when
 * the line is full), and a client that leaves stops its tokenizing. A gateway does not tokenize: 404 there.
 */
export async function countTokens(req: FastifyRequest, reply: FastifyReply, ctx: ChatContext): Promise<unknown> {
  const count = ctx.backend.countPromptTokens;
  if (!count)
    throw new ApiError(
      404,
      "count_tokens is served where the model is loaded (toolmask serve --model); this server is a gateway, which does not tokenize",
      { code: "unknown_url" },
    );
  const { options } = parseMessagesRequest(req.body, ctx.backend.bounds, true);
  servedName(ctx, (req.body as { model?: unknown }).model);
  return runInSlot(reply, ctx, options, async (run) => ({ input_tokens: await count.call(ctx.backend, run.options) }));
}
