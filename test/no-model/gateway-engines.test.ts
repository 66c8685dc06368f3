// The gateway's engines describe themselves (src/gateway/engines/registry.ts): startServer's
// `upstreams` and `toolmask serve`'s flags are checked by the same rules, each setting named as
// its caller spells it, and nothing outside src/gateway/engines/ decides by an engine's name.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ENGINES, engineSettingsProblem } from "../../src/gateway/engines/registry.js";
import { startServer } from "../../src/server/index.js";

const SRC = resolve(import.meta.dirname, "..", "..", "src");
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );

describe("gateway engines", () => {
  it("startServer refuses settings an engine does not take, naming the option", async () => {
    const url = "http://127.0.0.1:9";
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ engine: "tgi" }, /upstreams\.engine must be one of llama-server, vllm, sglang, openai, got "tgi"/],
      [{ engine: "vllm" }, /upstreams\.engine vllm needs upstreams\.tokenizer/],
      [
        { engine: "openai", grammarSyntax: "lark" },
        /upstreams\.grammarSyntax goes with upstreams\.engine vllm or sglang/,
      ],
      [{ engine: "vllm", tokenizer: "x.gguf", grammarSyntax: "gbnf" }, /upstreams\.grammarSyntax must be ebnf or lark/],
      [
        { engine: "vllm", tokenizer: "x.gguf", lazyGrammar: false },
        /upstreams\.lazyGrammar goes with upstreams\.engine llama-server/,
      ],
      [
        { engine: "llama-server", tokenizer: "x.gguf", lazyGrammar: "no" },
        /upstreams\.lazyGrammar must be true or false/,
      ],
    ];
    for (const [g, why] of cases)
      await expect(startServer({ port: 0, upstreams: { urls: [url], ...g } as never })).rejects.toThrow(why);
  });

  it("every engine's settings that fit pass, and the adapter built is the engine named", () => {
    for (const e of ENGINES) {
      const g = {
        engine: e.name,
        tokenizer: "model.gguf",
        ...(e.grammarSyntaxes.length ? { grammarSyntax: e.grammarSyntaxes.at(-1) } : {}),
        ...(e.lazyGrammar ? { lazyGrammar: false } : {}),
      };
      expect(
        engineSettingsProblem(g, (s) => s),
        e.name,
      ).toBeUndefined();
      expect(e.create(g).name).toBe(e.name);
    }
  });

  it("outside src/gateway/engines/, no code compares an engine's name", () => {
    const names = ENGINES.map((e) => e.name).join("|");
    const switching = new RegExp(`(engine|\\.name)\\s*[!=]==\\s*"(${names})"|case "(${names})":`);
    const found = files(SRC)
      .filter((f) => !f.startsWith(join(SRC, "gateway", "engines")))
      .flatMap((f) =>
        readFileSync(f, "utf8")
          .split("\n")
          .flatMap((line, i) => (switching.test(line) ? [`${relative(SRC, f)}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(found).toEqual([]);
    // The check can fail: the lines it was written against.
    expect(switching.test('if (this.o.engine.name === "openai") return "verify-only";')).toBe(true);
    expect(switching.test('    case "llama-server":')).toBe(true);
  });
});
