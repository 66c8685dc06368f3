// The worker thread of render-thread.ts: renders chat templates with renderChat and posts back the
// prompt, or the error's message and whether it was the template's (ChatTemplateError).
import { parentPort } from "node:worker_threads";
import { ChatTemplateError, renderChat, type RenderChatOptions } from "./render.js";

export interface RenderJob {
  id: number;
  template: string;
  opts: RenderChatOptions;
}

export type RenderReply =
  | { id: number; prompt: string }
  | { id: number; error: { message: string; name: string; template: boolean } };

parentPort?.on("message", ({ id, template, opts }: RenderJob) => {
  let reply: RenderReply;
  try {
    reply = { id, prompt: renderChat(template, opts) };
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    reply = { id, error: { message: err.message, name: err.name, template: e instanceof ChatTemplateError } };
  }
  parentPort!.postMessage(reply);
});
