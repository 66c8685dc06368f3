// A system message after the conversation's start (Claude Code sends its environment that way:
// messages [user, system]) reaches the prompt with every chat template llama.cpp ships
// (models/templates of the bundled llama.cpp): rendered where it stands when the template renders
// it there, else moved after the leading system message's text, else (no system role) opening the
// first user turn — or a ChatTemplateError; never a prompt without its text.
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ChatTemplateError, renderChat, type ChatMessage } from "../../src/templates/render.js";
import { renderWithSystemFallback } from "../../src/templates/system-fallback.js";
import { loadTemplate, templatesDir } from "../support/template-fixtures.js";

const LATE = "Environment: the working directory is /tmp/w7.";
const FIRST = "You are a careful assistant.";
const conversations: Record<string, ChatMessage[]> = {
  "after the first user message, with a leading system message": [
    { role: "system", content: FIRST },
    { role: "user", content: "Please list the files." },
    { role: "system", content: LATE },
  ],
  "after the first user message, no leading system message": [
    { role: "user", content: "Please list the files." },
    { role: "system", content: LATE },
  ],
  "between turns": [
    { role: "system", content: FIRST },
    { role: "user", content: "Hello." },
    { role: "assistant", content: "Hi." },
    { role: "system", content: LATE },
    { role: "user", content: "Please list the files." },
  ],
};

describe("a system message after the first message", () => {
  const files = readdirSync(templatesDir()).filter((f) => f.endsWith(".jinja"));
  it.each(Object.entries(conversations))("%s: in the prompt with every template, or an error", (_name, messages) => {
    expect(files.length).toBeGreaterThan(30);
    const lost: string[] = [];
    let rendered = 0;
    for (const file of files) {
      const template = loadTemplate(file);
      let out: string;
      try {
        out = renderWithSystemFallback(
          (m) => renderChat(template, { messages: m, addGenerationPrompt: true, name: file }),
          messages,
          false,
        );
      } catch (e) {
        expect(e, file).toBeInstanceOf(ChatTemplateError);
        continue;
      }
      rendered++;
      if (!out.includes(LATE) || !out.includes("Please list the files.")) lost.push(file);
    }
    expect(lost).toEqual([]);
    // most templates render it one way or another (measured: see the test's output)
    console.log(`${rendered} of ${files.length} templates rendered the conversation`);
    expect(rendered).toBeGreaterThan(files.length / 2);
  });
});
