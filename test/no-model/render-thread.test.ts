// Chat templates rendered on worker threads (src/templates/render-thread.ts) give the prompt and the
// errors renderChat gives on the event loop's thread. The workers run the built module, so the
// check runs the build (dist/, which npm test makes first) in a child process: real templates from
// the llama.cpp source, conversations with tools, calls, a system message a template refuses (the
// system fallback), a template's own exception, and messages a thread cannot receive.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/vocabs.js";
import { timeoutFor, NO_TOKENS } from "../support/timeouts.js";

const DIST = join(ROOT, "dist");
const TEMPLATES = join(ROOT, ".cache", "llama.cpp", "models", "templates");

const script = `
import { readFileSync } from "node:fs";
import { join } from "node:path";
const { renderChat } = await import(${JSON.stringify(join(DIST, "templates", "render.js"))});
const { renderChatOffThread } = await import(${JSON.stringify(join(DIST, "templates", "render-thread.js"))});
const { renderWithSystemFallback, renderWithSystemFallbackAsync } = await import(${JSON.stringify(join(DIST, "templates", "system-fallback.js"))});
const tools = [{ type: "function", function: { name: "read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } } }];
const turns = (n) => Array.from({ length: n }, (_, i) => i % 2
  ? { role: "assistant", content: "", tool_calls: [{ id: "c" + i, type: "function", function: { name: "read", arguments: JSON.stringify({ path: "/f" + i }) } }] }
  : (i === 0 ? { role: "user", content: "read them" } : { role: "tool", tool_call_id: "c" + (i - 1), content: "text " + i }));
const now = new Date("2026-01-02T03:04:05Z");
const out = [];
const outcome = async (f) => { try { return { prompt: await f() }; } catch (e) { return { error: e.name + ": " + e.message }; } };
for (const file of ["Qwen3-Coder.jinja", "Qwen-Qwen3-0.6B.jinja", "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja", "google-gemma-2-2b-it.jinja", "Mistral-Small-3.2-24B-Instruct-2506.jinja"]) {
  const template = readFileSync(join(${JSON.stringify(TEMPLATES)}, file), "utf8");
  for (const [name, messages] of [["a user turn", [{ role: "user", content: "hi" }]], ["40 turns of calls", [...turns(40), { role: "user", content: "and?" }]], ["a system message", [{ role: "system", content: "be brief" }, { role: "user", content: "hi" }]]]) {
    const opts = { tools, addGenerationPrompt: true, bosToken: "<s>", eosToken: "</s>", extra: { enable_thinking: false }, name: file, now };
    const here = await outcome(() => renderWithSystemFallback((m) => renderChat(template, { ...opts, messages: m }), messages, true));
    const there = await outcome(() => renderWithSystemFallbackAsync((m) => renderChatOffThread(template, { ...opts, messages: m }), messages, true));
    out.push({ case: file + ": " + name, here, there });
  }
}
const raising = "{{ raise_exception('no tools here') }}";
out.push({ case: "a template's exception", here: await outcome(() => renderChat(raising, { messages: [], name: "t" })), there: await outcome(() => renderChatOffThread(raising, { messages: [], name: "t" })) });
const fn = { role: "user", content: "hi", extra: () => 1 };
out.push({ case: "a message holding a function (not sent to a thread)", here: await outcome(() => renderChat("{{ messages[0].content }}", { messages: [fn] })), there: await outcome(() => renderChatOffThread("{{ messages[0].content }}", { messages: [fn] })) });
console.log(JSON.stringify(out));
`;

describe("renderChatOffThread", () => {
  it.skipIf(!existsSync(join(DIST, "templates", "render-thread.js")))(
    "renders in a process started with V8 flags a worker refuses (--max-old-space-size, --expose-gc, --stack-size)",
    () => {
      const one = `
const { renderChatOffThread } = await import(${JSON.stringify(join(DIST, "templates", "render-thread.js"))});
console.log(await renderChatOffThread("{{ messages[0].content }}!", { messages: [{ role: "user", content: "hi" }] }));`;
      const flags = ["--max-old-space-size=512", "--expose-gc", "--stack-size=900"];
      const r = spawnSync(process.execPath, [...flags, "--input-type=module", "-e", one], {
        encoding: "utf8",
        timeout: timeoutFor(NO_TOKENS),
      });
      expect(r.stderr).toBe("");
      expect(r.stdout).toBe("hi!\n");
      expect(r.status).toBe(0);
    },
  );

  it.skipIf(!existsSync(join(DIST, "templates", "render-thread.js")))(
    "gives the prompt and the errors renderChat gives, for real templates (the built module, in a child process)",
    () => {
      const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
        encoding: "utf8",
        timeout: timeoutFor(NO_TOKENS),
        maxBuffer: 64 << 20,
      });
      expect(r.status, r.stderr).toBe(0);
      const cases = JSON.parse(r.stdout) as Array<{ case: string; here: object; there: object }>;
      expect(cases.length).toBe(17);
      for (const c of cases) expect(c.there, c.case).toEqual(c.here);
      const errors = cases.filter((c) => "error" in c.here).map((c) => c.case);
      // Templates that refuse a conversation refuse it on both sides with the same ChatTemplateError
      // (Gemma 2 and Mistral Small take no tool messages); Gemma 2's refusal of the system role is
      // met by the fallback, which folds it into the first user turn, on both sides.
      expect(errors).toEqual([
        "google-gemma-2-2b-it.jinja: 40 turns of calls",
        "Mistral-Small-3.2-24B-Instruct-2506.jinja: 40 turns of calls",
        "a template's exception",
      ]);
      for (const c of cases.filter((x) => "error" in x.here))
        expect((c.here as { error: string }).error).toMatch(/^ChatTemplateError: /);
      expect(cases.find((c) => c.case === "a template's exception")!.there).toEqual({
        error: "ChatTemplateError: t: no tools here",
      });
    },
  );
});
