// `toolmask demo` (and `npm run demo`): the README's main job, no download. The random-weight
// Qwen3 test model decodes the same prompt with tools unmasked and masked, side by side, and the
// dialect's parser gives its verdict on each.
import { relative, resolve } from "node:path";
import { generate, type GenerateResult } from "../engine/generate.js";
import { intFlag, parseFlags } from "./args.js";
import type { Command } from "./command.js";
import { CliError } from "./errors.js";
import { defaultTestModelPath, ensureTestModel, openModel } from "./model.js";

const usage =
  "usage: toolmask demo [--model PATH] [--seeds N] [--max-tokens N] [--progress]\n" +
  "  --model       the test model (written there when missing; default .cache/test-model/qwen3-tiny-seed1.gguf)\n" +
  "  --seeds       seeds per scenario (default 3)\n  --max-tokens  tokens per answer at most (default 80)\n" +
  "  --progress    show model loading progress on stderr even when it is not a terminal";

const tools = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Current weather in a city",
      parameters: {
        type: "object",
        properties: {
          city: { type: "string", enum: ["Paris", "Rome", "Oslo"] },
          days: { type: "integer", enum: [1, 2, 3] },
        },
        required: ["city"],
      },
    },
  },
];
const messages = [{ role: "user" as const, content: "What is the weather in Paris?" }];

const snippet = (s: string) => JSON.stringify(s.length > 48 ? `${s.slice(0, 48)}…` : s);

/** The parser's verdict on one answer: [word, detail]. */
function verdict(r: GenerateResult): [string, string] {
  const bad = r.incomplete.find((c) => c.kind === "invalid") ?? r.incomplete.find((c) => c.kind === "cut");
  if (bad) return [bad.kind, `${bad.reason}; output ${snippet(r.text)}`];
  const calls = r.message.tool_calls ?? [];
  if (calls.length === 0) return ["no call", `output ${snippet(r.text)}`];
  // Text around a call is allowed (the parser keeps it as content); say so when there is some.
  const after = r.message.content ? `, with content ${snippet(r.message.content)}` : "";
  return ["complete call", calls.map((c) => `${c.function.name} ${c.function.arguments}`).join("; ") + after];
}

interface Tally {
  valid: number;
  runs: number;
  ms: number;
  tokens: number;
  maskMicros: number[];
}

async function run(argv: string[]): Promise<number> {
  const args = parseFlags(argv, {
    model: { type: "string" },
    seeds: { type: "string" },
    "max-tokens": { type: "string" },
  });
  const seeds = intFlag(args.seeds, "--seeds", 1, 50, 3);
  const maxTokens = intFlag(args["max-tokens"], "--max-tokens", 1, 4096, 80);
  const log = (s: string) => process.stdout.write(`${s}\n`);

  const modelPath = resolve((args.model as string | undefined) ?? defaultTestModelPath());
  const wrote = ensureTestModel(modelPath);
  if (wrote !== undefined) log(`wrote the test model to ${modelPath} in ${wrote.toFixed(1)} s`);

  const tLoad = performance.now();
  // The CPU build: the demo's numbers are the same on every machine, GPU or not.
  const model = await openModel(modelPath, { gpu: false, showProgress: args.progress === true });
  const loadMillis = performance.now() - tLoad;
  try {
    const v = model.vocabulary;
    const TOOL_CALL = v.idOfPiece("<tool_call>"),
      IM_END = v.idOfPiece("<|im_end|>");
    if (TOOL_CALL === undefined || IM_END === undefined)
      throw new CliError(`${modelPath} is not the Qwen3 test model (no <tool_call> / <|im_end|> token)`);
    // Random weights repeat one token forever and never call a tool on their own; a logit bias stands
    // in for a real model's wish to call and to stop. The mask decides where those wishes may act.
    const scenarios = [
      { title: "a model that wants to call a tool, and to stop", call: 100, stop: 110 },
      { title: "a model that wants to call a tool, and hardly to stop", call: 100, stop: 20 },
    ];

    log(
      `toolmask demo — random-weight Qwen3 test model (${modelPath.startsWith(process.cwd()) ? relative(process.cwd(), modelPath) : modelPath}, ` +
        `${v.size.toLocaleString("en-US")} tokens, loaded in ${(loadMillis / 1000).toFixed(1)} s, ${model.threads} thread${model.threads > 1 ? "s" : ""})`,
    );
    log(
      `prompt ${JSON.stringify(messages[0]!.content)}; tool get_weather(city*: Paris|Rome|Oslo, days: 1|2|3); ` +
        `dialect qwen3-coder, toolChoice "required", maxTokens ${maxTokens}`,
    );
    log(
      "Random weights never call a tool themselves: a logit bias on <tool_call> and <|im_end|> stands in for that wish.",
    );

    const tally: Record<"unmasked" | "masked", Tally> = {
      unmasked: { valid: 0, runs: 0, ms: 0, tokens: 0, maskMicros: [] },
      masked: { valid: 0, runs: 0, ms: 0, tokens: 0, maskMicros: [] },
    };
    const maskedFailures: string[] = [];
    for (const s of scenarios) {
      log(`\n${s.title} (<tool_call> +${s.call}, <|im_end|> +${s.stop})`);
      for (let seed = 1; seed <= seeds; seed++) {
        for (const side of ["unmasked", "masked"] as const) {
          const r = await generate(model, {
            messages,
            tools,
            dialect: "qwen3-coder",
            toolChoice: "required",
            parallelToolCalls: false,
            maxTokens,
            seed,
            logitBias: { [TOOL_CALL]: s.call, [IM_END]: s.stop },
            mask: side === "masked",
          });
          const [word, detail] = verdict(r);
          const t = tally[side];
          t.runs++;
          t.ms += r.timings.decodeMillis;
          t.tokens += r.usage.completion_tokens;
          if (word === "complete call") t.valid++;
          else if (side === "masked")
            maskedFailures.push(
              `${s.title}, seed ${seed}: ${word} (${detail})${word === "cut" ? " — raise --max-tokens" : ""}`,
            );
          if (side === "masked") t.maskMicros.push(r.timings.maskMicrosPerToken);
          const head = side === "unmasked" ? `  seed ${String(seed).padEnd(3)}` : " ".repeat(10);
          log(
            `${head}${side.padEnd(9)} ${word.padEnd(14)} finish ${r.finishReason.padEnd(10)} ${String(r.usage.completion_tokens).padStart(3)} tok  ${detail}`,
          );
        }
      }
    }
    const msPerToken = (t: Tally) => (t.tokens > 0 ? t.ms / t.tokens : 0).toFixed(2);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0;
    const { unmasked: u, masked: m } = tally;
    log(
      `\nvalid calls: masked ${m.valid}/${m.runs}, unmasked ${u.valid}/${u.runs}; ` +
        `decoding ${msPerToken(m)} ms/token masked, ${msPerToken(u)} ms/token unmasked (the mask ${median(m.maskMicros).toFixed(0)} µs/token)`,
    );
    if (maskedFailures.length > 0)
      throw new CliError(
        `${maskedFailures.length} masked answer(s) without a valid call (one not cut by maxTokens is a toolmask bug; please report it):\n  ${maskedFailures.join("\n  ")}`,
      );
    return 0;
  } finally {
    model.dispose();
  }
}

export const demoCommand: Command = {
  name: "demo",
  usage,
  run,
};
