// POST /v1/responses, OpenAI's Responses API: a checked request (request.ts, input.ts) runs on the
// backend in a slot (run-request.ts), answered as one Response (response.ts) or as the API's named
// events (stream.ts). Errors keep OpenAI's shape; the engine's messages and params name the fields
// as this API spells them (errors.ts).
import type { FastifyReply, FastifyRequest } from "fastify";
import { CallIds } from "../call-ids.js";
import type { ChatContext } from "../chat-context.js";
import { servedName } from "../model-names.js";
import { pipeStream, type RequestRun, runInSlot } from "../run-request.js";
import { parseResponsesRequest } from "./request.js";
import { newHead, responseBody } from "./response.js";
import { responsesStreamWriter } from "./stream.js";

import { responsesError } from "./errors.js";

export async function responses(req: FastifyRequest, reply: FastifyReply, ctx: ChatContext): Promise<unknown> {
  const parsed = parseResponsesRequest(req.body, ctx.backend.bounds);
  const name = servedName(ctx, (req.body as { model?: unknown }).model);
  const head = newHead(name, parsed.echo);
  const writer = parsed.stream ? responsesStreamWriter(head, ctx.redact, parsed.routes, parsed.toolPaths) : undefined;
  const work = async (run: RequestRun) => {
    try {
      const ids = new CallIds("call_");
      if (!writer) return responseBody(head, ids.result(await ctx.backend.generate(run.options)), parsed.routes);
      await pipeStream(reply, ids.stream(ctx.backend.generateStream(run.options)), writer, run, ctx);
      return reply;
    } catch (err) {
      throw run.clientGone() ? err : responsesError(err, parsed.toolPaths);
    }
  };
  return runInSlot(reply, ctx, parsed.options, work, writer);
}
