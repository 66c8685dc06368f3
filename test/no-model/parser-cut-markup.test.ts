// An output cut anywhere inside a call's markup (after its trigger) never leaks that markup into
// content: the call is either complete or reported cut. Found by the llama.cpp parity test: a
// Hermes call cut before its name, and a DeepSeek/Kimi section cut inside a marker, came back as text.
import { describe, expect, it } from "vitest";
import { dialects, getDialect, parseToolCalls } from "../../src/index.js";
import { triggerOf } from "../../src/dialects/spec.js";
import { parityDialects } from "../support/parity-corpus.js";
import { renderAssistantToolCalls, toolsFor, type Call, type TemplateDialect } from "../support/template-fixtures.js";

const calls: Call[] = [{ name: "read", arguments: { path: "/etc/hosts" } }];

describe.each(parityDialects())("%s: a call cut inside its markup", (dialect) => {
  it("is complete or reported cut; no byte of it is content", () => {
    const turn = renderAssistantToolCalls(dialect as TemplateDialect, calls, { content: "Sure." });
    const text = turn.assistant;
    const trigger = triggerOf(getDialect(dialect));
    const at = text.indexOf(trigger);
    expect(at).toBeGreaterThanOrEqual(0);
    const options = { dialect, tools: toolsFor(calls), reasoning: turn.parseReasoning };
    // Some templates drop text beside calls: what matters is that a cut adds nothing to it.
    const whole = parseToolCalls(text, options).content?.trim() ?? "";
    for (let p = at + trigger.length; p < text.length; p++) {
      const r = parseToolCalls(text.slice(0, p), options);
      const where = JSON.stringify(text.slice(at, p));
      expect(r.content?.trim() ?? "", where).toBe(whole);
      expect(
        r.incomplete.every((c) => c.kind === "cut"),
        where,
      ).toBe(true);
      expect(r.toolCalls.length + r.incomplete.length, where).toBeGreaterThan(0);
    }
  });
});

it("covers every registered dialect compared with llama.cpp", () => {
  expect(parityDialects().length).toBeGreaterThan(0);
  expect(dialects).toEqual(expect.arrayContaining(parityDialects()));
});
