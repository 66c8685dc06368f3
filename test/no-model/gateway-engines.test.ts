// The gateway's engines describe themselves (src/gateway/engines/registry.ts): startServer's
// `upstreams` and `toolmask serve`'s flags are checked by the same rules, each setting named as
// its caller spells it, and nothing outside src/gateway/engines/ decides by an engine's name.
// The routes an engine is asked on are its own (requestPath, healthPath): an upstream URL that
// names any of them is refused, from that list.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { prepareChat } from "../../src/engine/prepare-chat.js";
import { ENGINE_ROUTES, ENGINES, engineSettingsProblem } from "../../src/gateway/engines/registry.js";
import { loadModelSource } from "../../src/gateway/model-source.js";
import { checkUpstreamUrl } from "../../src/gateway/upstream-url.js";
import { SERVE_HELP } from "../../src/server/cli.js";
import { startServer } from "../../src/server/index.js";
import { FILE_TOOLS } from "../support/tools.js";
import { timeoutForMeasured } from "../support/timeouts.js";
import { QWEN3_TOKENIZER } from "../support/vocabs.js";

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

  it(
    "each engine's requests go to its requestPath, whole and streamed, with tools and without",
    () => {
      const model = loadModelSource(dirname(QWEN3_TOKENIZER), () => {});
      for (const e of ENGINES) {
        const adapter = e.create({});
        for (const tools of [false, true])
          for (const stream of [false, true]) {
            const options = {
              messages: [{ role: "user" as const, content: "Read /etc/hosts" }],
              ...(tools ? { tools: FILE_TOOLS, toolChoice: "required" as const } : {}),
              maxTokens: 8,
            };
            const chat = prepareChat(model, options);
            const { request } = adapter.request({
              chat,
              options,
              vocabulary: model.vocabulary,
              stream,
              upstreamModel: "m",
            });
            expect(request.path, `${e.name} tools ${tools} stream ${stream}`).toBe(adapter.requestPath);
          }
      }
    },
    timeoutForMeasured(4_700),
  );

  it("an upstream URL naming any engine's route is refused, whichever engine serves", () => {
    const routes = ENGINES.flatMap((e) => [e.create({}).requestPath, e.create({}).healthPath]);
    expect(new Set(ENGINE_ROUTES)).toEqual(new Set(routes));
    expect(ENGINE_ROUTES).toEqual([...ENGINE_ROUTES].sort((a, b) => b.length - a.length));
    for (const route of routes) {
      expect(() => checkUpstreamUrl(`http://127.0.0.1:8081${route}`), route).toThrow(
        `names the route ${route}: give the server's root (http://127.0.0.1:8081)`,
      );
      // An OpenAI client's base URL (…/v1) is the root; a route under it is refused the same.
      const under = route.replace(/^\/v1/, "");
      expect(() => checkUpstreamUrl(`http://127.0.0.1:8081/v1${under}`), `/v1${under}`).toThrow(
        "give the server's root (http://127.0.0.1:8081)",
      );
    }
    expect(checkUpstreamUrl("http://127.0.0.1:8081/v1/")).toBe("http://127.0.0.1:8081");
  });

  it("toolmask serve --help names every engine, and each setting's engines", () => {
    const flag = (name: string) => SERVE_HELP.split("\n").find((l) => l.trimStart().startsWith(name)) ?? "";
    for (const e of ENGINES) expect(flag("--engine ENGINE"), e.name).toContain(e.name);
    for (const e of ENGINES.filter((x) => x.grammarSyntaxes.length))
      expect(flag("--grammar-syntax"), e.name).toContain(e.name);
    for (const e of ENGINES.filter((x) => x.lazyGrammar)) expect(flag("--no-lazy-grammar"), e.name).toContain(e.name);
  });
});
