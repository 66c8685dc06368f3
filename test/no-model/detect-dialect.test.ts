// The dialect generate() assumes when none is given: read from the model's own chat template.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { detectDialect } from "../../src/engine/detect-dialect.js";
import { DIALECT_TEMPLATES, TEMPLATE_DIALECTS, templatesDir } from "../support/template-fixtures.js";

describe("detectDialect", () => {
  for (const dialect of TEMPLATE_DIALECTS) {
    for (const t of DIALECT_TEMPLATES[dialect]) {
      it(`${t.file} → ${dialect}`, () => {
        expect(detectDialect(readFileSync(join(templatesDir(), t.file), "utf8"))).toBe(dialect);
      });
    }
  }

  it("falls back to the generic dialect, with a notice, for a template without tool calls", () => {
    const notices: string[] = [];
    const plain = "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}";
    expect(detectDialect(plain, { onNotice: (n) => notices.push(n), name: "plain.jinja" })).toBe("generic");
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      /plain\.jinja shows no tool-call format; using the generic dialect.*pass \{ dialect \}.*TOOLMASK_QUIET=1/,
    );
  });

  it("gives no notice where the template shows its format, and no dialect without a template", () => {
    const notices: string[] = [];
    expect(
      detectDialect(readFileSync(join(templatesDir(), "Qwen3-Coder.jinja"), "utf8"), {
        onNotice: (n) => notices.push(n),
      }),
    ).toBe("qwen3-coder");
    expect(detectDialect("", { onNotice: (n) => notices.push(n) })).toBeUndefined();
    expect(notices).toEqual([]);
  });
});
