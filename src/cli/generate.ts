// `toolmask generate`: one answer from a GGUF model, masked by the dialect's grammar, read by its
// parser; the result as JSON (or, with --stream, one JSON line per delta as decoding runs). With
// --schema FILE the answer is JSON that fits the schema, and the parsed object alone is printed.
import { dialects } from "../dialects/index.js";
import { generate, type GenerateOptions } from "../engine/generate.js";
import { generateStream } from "../engine/stream.js";
import type { ChatMessage } from "../templates/render.js";
import {
  choiceFlag,
  intFlag,
  numberFlag,
  parseFlags,
  readJson,
  readTools,
  requireFlag,
  toolChoiceFlag,
} from "./args.js";
import type { Command } from "./command.js";
import { CliError, UsageError } from "./errors.js";
import { openModel } from "./model.js";
import { readSchema, structuredOutput } from "./schema.js";

const usage =
  "usage: toolmask generate --model PATH (--prompt TEXT | --messages FILE) [--tools FILE] [options]\n" +
  "Decodes one answer and prints { message, finishReason, usage, timings, maskPath, incomplete, decode, text } as JSON.\n" +
  "  --model PATH          a .gguf with a chat template (`toolmask make-test-model` writes a tiny one)\n" +
  "  --prompt TEXT         one user message\n" +
  '  --messages FILE       OpenAI chat messages: a JSON array, or { "messages": [...], "tools": [...] }\n' +
  '  --tools FILE          OpenAI tools: a JSON array, or { "tools": [...] }\n' +
  `  --dialect D           default: detected from the chat template (${dialects.join(", ")})\n` +
  "  --tool-choice C       auto (default), required, none, or a tool's name\n" +
  "  --no-parallel         at most one call\n" +
  "  --schema FILE         a JSON Schema the answer's JSON must fit (or a response_format holding one):\n" +
  "                        prints the parsed object; exit 1 when the answer holds none (cut by --max-tokens)\n" +
  "  --max-tokens N        default 512\n" +
  "  --temperature T       default 0.8 (0: greedy)\n" +
  "  --seed N              default 0\n" +
  "  --no-mask             decode without the grammar (the output is still parsed)\n" +
  "  --mask-path P         cpu (default) or backend (llama.cpp's backend sampling)\n" +
  "  --no-fast-forward     sample every token, also the text the grammar forces (to compare)\n" +
  "  --reasoning           let the model think first\n" +
  "  --logit-bias JSON     bias by token piece or id, e.g. '{\"<tool_call>\": 100}'\n" +
  "  --threads N           CPU threads (default: half the CPUs)\n" +
  "  --gpu G               cpu (default), auto, cuda or vulkan\n" +
  "  --stream              one JSON line per delta, then the result\n" +
  "  --progress            model loading progress on stderr even when it is not a terminal";

function messagesFrom(args: Record<string, unknown>): { messages: ChatMessage[]; tools?: unknown[] } {
  if (args.prompt !== undefined && args.messages !== undefined)
    throw new UsageError("give --prompt or --messages, not both");
  if (args.prompt !== undefined) return { messages: [{ role: "user", content: requireFlag(args.prompt, "--prompt") }] };
  if (args.messages === undefined) throw new UsageError("--prompt or --messages is required");
  const path = requireFlag(args.messages, "--messages");
  const j = readJson(path, "messages file");
  const obj =
    j !== null && typeof j === "object" && !Array.isArray(j)
      ? (j as { messages?: unknown; tools?: unknown })
      : undefined;
  const messages = Array.isArray(j) ? j : obj?.messages;
  if (!Array.isArray(messages) || messages.length === 0)
    throw new CliError(
      `messages file ${path} must hold a non-empty JSON array of chat messages, or { "messages": [...] }`,
    );
  return {
    messages: messages as ChatMessage[],
    ...(Array.isArray(obj?.tools) ? { tools: obj.tools as unknown[] } : {}),
  };
}

function biasFlag(v: unknown): Record<string, number> {
  let j: unknown;
  try {
    j = JSON.parse(String(v));
  } catch {
    throw new UsageError(`--logit-bias must be a JSON object of token piece or id to number, got ${JSON.stringify(v)}`);
  }
  if (j === null || typeof j !== "object" || Array.isArray(j) || Object.values(j).some((x) => typeof x !== "number"))
    throw new UsageError(`--logit-bias must be a JSON object of token piece or id to number, got ${JSON.stringify(v)}`);
  return j as Record<string, number>;
}

/** Keys are token pieces, or ids when no piece is spelled so. */
function biasIds(spec: Record<string, number>, idOf: (piece: string) => number | undefined): Record<number, number> {
  const out: Record<number, number> = {};
  for (const [k, v] of Object.entries(spec)) {
    const id = idOf(k) ?? (/^\d+$/.test(k) ? Number(k) : undefined);
    if (id === undefined) throw new CliError(`--logit-bias: the model's vocabulary has no token ${JSON.stringify(k)}`);
    out[id] = v;
  }
  return out;
}

async function run(argv: string[]): Promise<number> {
  const args = parseFlags(argv, {
    model: { type: "string" },
    prompt: { type: "string" },
    messages: { type: "string" },
    tools: { type: "string" },
    dialect: { type: "string" },
    "tool-choice": { type: "string" },
    "no-parallel": { type: "boolean" },
    schema: { type: "string" },
    "max-tokens": { type: "string" },
    temperature: { type: "string" },
    seed: { type: "string" },
    "no-mask": { type: "boolean" },
    "mask-path": { type: "string" },
    reasoning: { type: "boolean" },
    threads: { type: "string" },
    gpu: { type: "string" },
    stream: { type: "boolean" },
    "logit-bias": { type: "string" },
    "no-fast-forward": { type: "boolean" },
  });
  const modelPath = requireFlag(args.model, "--model");
  const { messages, tools: inlineTools } = messagesFrom(args);
  const tools = args.tools !== undefined ? readTools(requireFlag(args.tools, "--tools")) : inlineTools;
  if (args.dialect !== undefined && !dialects.includes(args.dialect as string))
    throw new CliError(`unknown dialect ${JSON.stringify(args.dialect)}; known dialects: ${dialects.join(", ")}`);
  const options: GenerateOptions = {
    messages,
    maxTokens: intFlag(args["max-tokens"], "--max-tokens", 1, 1 << 20, 512),
  };
  // Read and lowered before the model loads: a bad schema costs nothing.
  if (args.schema !== undefined) options.responseFormat = readSchema(requireFlag(args.schema, "--schema"));
  if (tools) options.tools = tools;
  if (args.dialect !== undefined) options.dialect = args.dialect as string;
  const choice = toolChoiceFlag(args["tool-choice"]);
  if (choice !== undefined) options.toolChoice = choice;
  if (args["no-parallel"]) options.parallelToolCalls = false;
  const temperature = numberFlag(args.temperature, "--temperature", 0, 100);
  if (temperature !== undefined) options.temperature = temperature;
  if (args.seed !== undefined) options.seed = intFlag(args.seed, "--seed", 0, 0xffffffff);
  if (args["no-mask"]) options.mask = false;
  if (args["no-fast-forward"]) options.fastForward = false;
  if (args["mask-path"] !== undefined)
    options.maskPath = choiceFlag(args["mask-path"], "--mask-path", ["cpu", "backend"] as const);
  if (args.reasoning) options.reasoning = true;
  const biasSpec = args["logit-bias"] !== undefined ? biasFlag(args["logit-bias"]) : undefined;
  const gpuWord = choiceFlag(args.gpu, "--gpu", ["cpu", "auto", "cuda", "vulkan"] as const, "cpu");
  const threads = args.threads !== undefined ? intFlag(args.threads, "--threads", 1, 1024) : undefined;

  const model = await openModel(modelPath, {
    gpu: gpuWord === "cpu" ? false : gpuWord,
    ...(threads ? { threads } : {}),
    showProgress: args.progress === true,
  });
  try {
    if (biasSpec) options.logitBias = biasIds(biasSpec, (p) => model.vocabulary.idOfPiece(p));
    if (!args.stream) {
      const { tokens: _tokens, ...r } = await generate(model, options);
      process.stdout.write(
        (options.responseFormat ? structuredOutput(r, options.maxTokens!) : JSON.stringify(r, null, 2)) + "\n",
      );
      return 0;
    }
    for await (const chunk of generateStream(model, options)) {
      if (chunk.result) {
        const { tokens: _tokens, ...r } = chunk.result;
        process.stdout.write(
          JSON.stringify({ delta: chunk.delta, finish_reason: chunk.finish_reason, result: r }) + "\n",
        );
      } else process.stdout.write(JSON.stringify(chunk) + "\n");
    }
    return 0;
  } finally {
    model.dispose();
  }
}

export const generateCommand: Command = { name: "generate", usage, run };
