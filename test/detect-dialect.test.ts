// The dialect generate() assumes when none is given: read from the model's own chat template.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { detectDialect } from "../src/engine/detect-dialect.js";
import { DIALECT_TEMPLATES, TEMPLATE_DIALECTS, templatesDir } from "./support/template-fixtures.js";

describe("detectDialect", () => {
  for (const dialect of TEMPLATE_DIALECTS) {
    for (const t of DIALECT_TEMPLATES[dialect]) {
      it(`${t.file} → ${dialect}`, () => {
        expect(detectDialect(readFileSync(join(templatesDir(), t.file), "utf8"))).toBe(dialect);
      });
    }
  }

  it("says nothing for a template without tool calls", () => {
    expect(detectDialect("{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}")).toBeUndefined();
  });
});
