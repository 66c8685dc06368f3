// `toolmask` as a user runs it: the built CLI (dist/cli/main.js) in a child process, every command,
// and bad input answered with one clear line and a non-zero exit, never a stack trace.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../support/cli-run.js";
import { ROOT } from "../support/vocabs.js";
import { testModelPath } from "../support/test-model.js";

const COMMANDS = ["demo", "generate", "parse", "grammar", "make-test-model", "bench"];
const weather = [
  {
    type: "function",
    function: {
      name: "get_weather",
      parameters: {
        type: "object",
        properties: {
          city: { type: "string", enum: ["Paris", "Rome"] },
          days: { type: "integer", minimum: 1, maximum: 9 },
        },
        required: ["city"],
      },
    },
  },
];
const CALL =
  "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n2\n</parameter>\n</function>\n</tool_call>";

let dir: string, tools: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "toolmask-cli-"));
  tools = join(dir, "tools.json");
  writeFileSync(tools, JSON.stringify(weather));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A failure as a user sees it: the exit code, and a first stderr line naming the command. */
function expectFailure(
  r: { code: number; stdout: string; stderr: string },
  code: number,
  command: string,
  message: RegExp,
): void {
  expect(r.code, r.stderr).toBe(code);
  expect(r.stdout).toBe("");
  const first = r.stderr.split("\n")[0]!;
  expect(first.startsWith(`toolmask${command ? ` ${command}` : ""}: `), r.stderr).toBe(true);
  expect(first).toMatch(message);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe("toolmask help", () => {
  it("lists every command, and each command's help is the same from `help X` and `X --help`", async () => {
    const all = await cli(["help"]);
    expect(all.code).toBe(0);
    for (const c of [...COMMANDS, "serve"]) expect(all.stdout).toMatch(new RegExp(`^  ${c} `, "m"));
    for (const c of COMMANDS) {
      const a = await cli(["help", c]),
        b = await cli([c, "--help"]);
      expect(a.code, a.stderr).toBe(0);
      expect(a.stdout.startsWith(`usage: toolmask ${c}`)).toBe(true);
      expect(b.stdout).toBe(a.stdout);
      expect(b.code).toBe(0);
    }
  });

  it("with no command prints the overview to stderr and exits 2", async () => {
    const r = await cli([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^usage: toolmask <command>/);
  });
});

describe("toolmask parse", () => {
  it("reads a complete call from stdin and prints it with its arguments typed by the schema", async () => {
    const r = await cli(["parse", "--dialect", "qwen3-coder", "--tools", tools], { input: CALL });
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.finishReason).toBe("tool_calls");
    expect(j.toolCalls).toHaveLength(1);
    expect(JSON.parse(j.toolCalls[0].function.arguments)).toEqual({ city: "Paris", days: 2 });
  });

  it("reports an output cut by maxTokens as a cut call, not a call", async () => {
    const r = await cli(["parse", "--dialect", "qwen3-coder", "--tools", tools, "--finish", "length", "--compact"], {
      input: CALL.slice(0, 50),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
    const j = JSON.parse(r.stdout);
    expect(j.toolCalls).toEqual([]);
    expect(j.finishReason).toBe("length");
    expect(j.incomplete[0]).toMatchObject({ kind: "cut", name: "get_weather", missing: ["city"] });
  });

  it("does not pass a call to an undeclared tool as a call", async () => {
    const r = await cli(["parse", "--dialect", "hermes", "--tools", tools, "--compact"], {
      input: '<tool_call>\n{"name": "rm_rf", "arguments": {}}\n</tool_call>',
    });
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.toolCalls).toEqual([]);
    expect(j.finishReason).not.toBe("tool_calls");
  });
});

describe("toolmask grammar", () => {
  it("prints GBNF, Lark and the IR for the same tools", async () => {
    const base = ["grammar", "--dialect", "qwen3-coder", "--tools", tools, "--tool-choice", "required"];
    const gbnf = await cli([...base, "--format", "gbnf"]);
    expect(gbnf.code, gbnf.stderr).toBe(0);
    expect(gbnf.stdout).toMatch(/^root ::= /);
    expect(gbnf.stdout).toMatch(/"[^"\n]*get_weather[^"\n]*"/); // the name, in a string of its own or joined to its neighbours
    const lark = await cli([...base, "--format", "lark"]);
    expect(lark.code, lark.stderr).toBe(0);
    expect(lark.stdout).toMatch(/^start: /);
    const ir = await cli([...base, "--format", "ir"]);
    expect(ir.code, ir.stderr).toBe(0);
    expect(JSON.parse(ir.stdout)).toHaveProperty("root");
    // tool_choice none: no call in the language at all.
    const none = await cli([
      "grammar",
      "--dialect",
      "qwen3-coder",
      "--tools",
      tools,
      "--tool-choice",
      "none",
      "--format",
      "gbnf",
    ]);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).not.toContain("get_weather");
  });

  it("with --vocab resolves to that vocabulary (the test model's GGUF)", async () => {
    const r = await cli([
      "grammar",
      "--dialect",
      "hermes",
      "--tools",
      tools,
      "--format",
      "gbnf",
      "--vocab",
      testModelPath(),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^root ::= /);
  });
});

describe("toolmask make-test-model and generate", () => {
  it("writes a test model where asked", async () => {
    const out = join(dir, "m", "tiny.gguf");
    const r = await cli(["make-test-model", "--out", out, "--seed", "3"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^wrote .*tiny\.gguf \(\d+\.\d MB, 151669 tokens, seed 3\)/);
    expect(existsSync(out)).toBe(true);
    expect(statSync(out).size).toBeGreaterThan(10_000_000);
  });

  it("generates a masked answer as JSON: a complete call with a required argument", async () => {
    const r = await cli([
      "generate",
      "--model",
      testModelPath(),
      "--prompt",
      "Weather in Paris?",
      "--tools",
      tools,
      "--tool-choice",
      "required",
      "--dialect",
      "qwen3-coder",
      "--no-parallel",
      "--max-tokens",
      "80",
      "--seed",
      "1",
      "--logit-bias",
      '{"<tool_call>": 100, "<|im_end|>": 110}',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("loading model ["); // stderr is not a terminal and --progress was not given
    const j = JSON.parse(r.stdout);
    expect(j.finishReason).toBe("tool_calls");
    expect(j.maskPath).toBe("cpu");
    expect(j.message.tool_calls).toHaveLength(1);
    expect(j.message.tool_calls[0].function.name).toBe("get_weather");
    expect(JSON.parse(j.message.tool_calls[0].function.arguments)).toHaveProperty("city");
    expect(j.decode.forcedTokens).toBeGreaterThan(0); // fast-forward is on by default
    const off = await cli([
      "generate",
      "--model",
      testModelPath(),
      "--prompt",
      "Weather in Paris?",
      "--tools",
      tools,
      "--tool-choice",
      "required",
      "--dialect",
      "qwen3-coder",
      "--no-parallel",
      "--max-tokens",
      "80",
      "--seed",
      "1",
      "--logit-bias",
      '{"<tool_call>": 100, "<|im_end|>": 110}',
      "--no-fast-forward",
    ]);
    expect(off.code, off.stderr).toBe(0);
    expect(JSON.parse(off.stdout).decode).toMatchObject({ forcedTokens: 0 });
  });

  it("streams deltas as JSON lines, the last one holding the whole result", async () => {
    const r = await cli([
      "generate",
      "--model",
      testModelPath(),
      "--prompt",
      "Weather in Paris?",
      "--tools",
      tools,
      "--tool-choice",
      "required",
      "--dialect",
      "qwen3-coder",
      "--max-tokens",
      "80",
      "--seed",
      "1",
      "--logit-bias",
      '{"<tool_call>": 100, "<|im_end|>": 110}',
      "--stream",
      "--progress",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^loading model \[#{24}\] 100%$/m); // asked for: progress on stderr, stdout stays JSON
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.length).toBeGreaterThan(2);
    const last = lines[lines.length - 1];
    expect(last.finish_reason).toBe("tool_calls");
    const args = lines
      .flatMap((l) => l.delta?.tool_calls ?? [])
      .map((d: { function: { arguments: string } }) => d.function.arguments)
      .join("");
    expect(args).toBe(last.result.message.tool_calls[0].function.arguments);
  });
});

describe("toolmask demo", () => {
  it("is the same demo as npm run demo: masked answers all complete calls, unmasked none", async () => {
    const r = await cli(["demo", "--seeds", "1", "--max-tokens", "64"], { timeout: 110_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/valid calls: masked 2\/2, unmasked 0\/2/);
  });
});

describe("toolmask serve", () => {
  it("is registered: it runs the server module when built, or says it is missing", async () => {
    const r = await cli(["serve", "--help"]);
    if (existsSync(join(ROOT, "dist", "server", "cli.js"))) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/serve/);
    } else expectFailure(r, 1, "serve", /no server \(dist\/server\/cli\.js is missing\)/);
  });
});

describe("a model file that cannot load: one or two lines saying what is wrong and what to do", () => {
  const model = (name: string, bytes: Buffer | string) => {
    const f = join(dir, name);
    writeFileSync(f, bytes);
    return f;
  };
  const whole = () => readFileSync(testModelPath());
  const cases: Array<[string, () => string, RegExp]> = [
    [
      "not a GGUF",
      () => model("notes.gguf", "hello, I am a text file\n"),
      /notes\.gguf is not a GGUF model file \(it starts with "hell", a GGUF file with "GGUF"\); pass --model a \.gguf file/,
    ],
    ["empty", () => model("empty.gguf", ""), /empty\.gguf is not a GGUF model file \(it is empty\)/],
    [
      "cut inside its header",
      () => model("cut-header.gguf", whole().subarray(0, 3_000_000)),
      /cut-header\.gguf is truncated or damaged \(3\.0 MB\): its GGUF header ends early .*; download or copy the model again/,
    ],
    [
      "cut inside its tensors",
      () => model("cut-tensors.gguf", whole().subarray(0, 40_000_000)),
      /llama\.cpp could not load .*cut-tensors\.gguf \(a qwen3 GGUF of 40\.0 MB\): tensor 'token_embd\.weight' data is not within the file bounds.*download or copy the model again/,
    ],
    [
      "a folder",
      () => {
        const d = join(dir, "model-folder.gguf");
        mkdirSync(d, { recursive: true });
        return d;
      },
      /model-folder\.gguf is a folder, not a model file; pass --model the \.gguf file inside it/,
    ],
    [
      "missing",
      () => join(dir, "nowhere.gguf"),
      /no model file at .*nowhere\.gguf; pass --model the path of a \.gguf file/,
    ],
  ];
  it.each(cases)("%s", async (_what, file, message) => {
    for (const argv of [
      ["generate", "--model", file(), "--prompt", "hi"],
      ["serve", "--model", file(), "--port", "0"],
    ]) {
      const r = await cli(argv);
      // serve loads llama.cpp with gpu "auto", which may say first that no GPU is in use.
      const lines = r.stderr
        .trimEnd()
        .split("\n")
        .filter((l) => !l.startsWith("toolmask: no GPU in use"));
      expectFailure({ ...r, stderr: lines.join("\n") }, 1, argv[0]!, message);
      expect(lines, r.stderr).toHaveLength(1);
      expect(r.stderr).not.toMatch(/npm install|build:native/);
    }
  });
});

describe("bad input: one clear line, non-zero exit", () => {
  const cases: Array<[string, string[], number, string, RegExp, string?]> = [
    ["unknown command", ["frobnicate"], 2, "", /unknown command "frobnicate"; commands: demo, generate/],
    ["unknown flag", ["parse", "--dialect", "hermes", "--bogus"], 2, "parse", /Unknown option '--bogus'/],
    [
      "missing required flag",
      ["grammar", "--tools", "TOOLS", "--format", "gbnf"],
      2,
      "grammar",
      /--dialect is required/,
    ],
    [
      "unknown dialect",
      ["parse", "--dialect", "qwen3", "--tools", "TOOLS"],
      1,
      "parse",
      /unknown dialect "qwen3"; known dialects: qwen3-coder/,
    ],
    [
      "missing tools file",
      ["grammar", "--dialect", "hermes", "--tools", "/nonexistent/tools.json", "--format", "gbnf"],
      1,
      "grammar",
      /tools file \/nonexistent\/tools\.json: no such file/,
    ],
    [
      "tools file with bad JSON",
      ["parse", "--dialect", "hermes", "--tools", "BADJSON"],
      1,
      "parse",
      /is not valid JSON: /,
    ],
    [
      "tools that are not an array",
      ["parse", "--dialect", "hermes", "--tools", "OBJECT"],
      1,
      "parse",
      /must hold a JSON array of OpenAI tools/,
    ],
    [
      "a tool without a name",
      ["parse", "--dialect", "hermes", "--tools", "NONAME"],
      1,
      "parse",
      /tools\[0\]\.function\.name/,
    ],
    [
      "bad --format",
      ["grammar", "--dialect", "hermes", "--tools", "TOOLS", "--format", "yaml"],
      2,
      "grammar",
      /--format must be one of gbnf, lark, ir, got "yaml"/,
    ],
    [
      "bad --finish",
      ["parse", "--dialect", "hermes", "--finish", "maybe"],
      2,
      "parse",
      /--finish must be one of stop, length/,
    ],
    [
      "missing model file",
      ["generate", "--model", "/nonexistent/m.gguf", "--prompt", "hi"],
      1,
      "generate",
      /no model file at \/nonexistent\/m\.gguf/,
    ],
    [
      "--prompt and --messages",
      ["generate", "--model", "x.gguf", "--prompt", "hi", "--messages", "m.json"],
      2,
      "generate",
      /give --prompt or --messages, not both/,
    ],
    [
      "bad --logit-bias",
      ["generate", "--model", "x.gguf", "--prompt", "hi", "--logit-bias", "{oops"],
      2,
      "generate",
      /--logit-bias must be a JSON object/,
    ],
    ["bad --variants", ["bench", "--variants", "masked,turbo"], 2, "bench", /--variants: unknown "masked"/],
    ["a suite without cases", ["bench", "--suite", "OBJECT"], 1, "bench", /suite .*needs a non-empty "cases" array/],
    [
      "a tools path that is a directory",
      ["parse", "--dialect", "hermes", "--tools", "DIR"],
      1,
      "parse",
      /tools file .* is a directory/,
    ],
    [
      "a grammar GBNF cannot spell",
      ["grammar", "--dialect", "qwen3-coder", "--tools", "LONG", "--format", "gbnf"],
      1,
      "grammar",
      /not exportable \(--format ir has the whole grammar/,
    ],
    [
      "bad seed",
      ["make-test-model", "--seed=-1"],
      2,
      "make-test-model",
      /--seed must be an integer in 0\.\.4294967295, got "-1"/,
    ],
    [
      "a flag without its value",
      ["make-test-model", "--seed"],
      2,
      "make-test-model",
      /Option '--seed <value>' argument missing/,
    ],
  ];
  const files = (): Record<string, string> => {
    const f = {
      TOOLS: tools,
      BADJSON: join(dir, "bad.json"),
      OBJECT: join(dir, "object.json"),
      NONAME: join(dir, "noname.json"),
      DIR: dir,
      LONG: join(dir, "long.json"),
    };
    writeFileSync(
      f.LONG,
      JSON.stringify([
        {
          type: "function",
          function: {
            name: "note",
            parameters: { type: "object", properties: { text: { type: "string", maxLength: 400 } } },
          },
        },
      ]),
    );
    writeFileSync(f.BADJSON, "[{");
    writeFileSync(f.OBJECT, '{"a": 1}');
    writeFileSync(f.NONAME, '[{"type": "function", "function": {}}]');
    return f;
  };
  it.each(cases)("%s", async (_what, argv, code, command, message) => {
    const f = files();
    const r = await cli(argv.map((a) => f[a] ?? a));
    expectFailure(r, code, command, message);
    if (code === 2 && command) expect(r.stderr.split("\n")[1]).toMatch(new RegExp(`^usage: toolmask ${command}`));
  });
});
