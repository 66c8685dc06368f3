// What a benchmark runs: tool sets and prompts (the built-in suite, or a JSON file of the same
// shape), each decoded for several seeds by every variant.
import { dialects } from "../dialects/index.js";
import type { ToolChoice } from "../dialects/tools.js";

export interface BenchCase {
  name: string;
  dialect: string;
  tools: unknown[];
  /** A user prompt, or whole chat messages. */
  prompt?: string;
  messages?: Array<{ role: string; content: string }>;
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  maxTokens?: number;
  temperature?: number;
  /**
   * Logit bias by token piece (e.g. "<tool_call>": 100). Random weights never call a tool or stop
   * on their own; a bias stands in for a trained model's wish, and the mask decides where it acts.
   */
  biasPieces?: Record<string, number>;
  /** Logit bias for every token that is only whitespace (random weights repeat it forever). */
  biasWhitespace?: number;
}

export interface BenchSuite {
  name: string;
  /** Seeds per case (1..n). */
  seeds: number;
  /** "test-model": apply biasPieces only on toolmask's random-weight test model (they would skew a real one). */
  biasFor?: "test-model" | "any";
  cases: BenchCase[];
}

const weather = [
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

// Free values bounded by the schema (maxLength, ranges): what lets a random model's masked call close.
const files = [
  {
    type: "function",
    function: {
      name: "read_file",
      description: "Read a file",
      parameters: { type: "object", properties: { path: { type: "string", maxLength: 8 } }, required: ["path"] },
    },
  },
  {
    type: "function",
    function: {
      name: "write_file",
      description: "Write a file",
      parameters: {
        type: "object",
        properties: { path: { type: "string", maxLength: 8 }, content: { type: "string", maxLength: 12 } },
        required: ["path", "content"],
      },
    },
  },
];

const config = [
  {
    type: "function",
    function: {
      name: "configure",
      description: "Set the run mode",
      parameters: {
        type: "object",
        properties: {
          mode: { type: "string", enum: ["fast", "safe"] },
          workers: { type: "integer", minimum: 1, maximum: 8 },
          verbose: { type: "boolean" },
        },
        required: ["mode", "workers"],
      },
    },
  },
];

/** About a minute on the test model with two threads free; every variant, three seeds. */
export const BUILTIN_SUITE: BenchSuite = {
  name: "builtin",
  seeds: 3,
  biasFor: "test-model",
  cases: [
    {
      name: "weather/required/stops",
      dialect: "qwen3-coder",
      tools: weather,
      prompt: "What is the weather in Paris?",
      toolChoice: "required",
      parallelToolCalls: false,
      maxTokens: 80,
      biasPieces: { "<tool_call>": 100, "<|im_end|>": 110 },
    },
    {
      name: "weather/required/hardly-stops",
      dialect: "qwen3-coder",
      tools: weather,
      prompt: "What is the weather in Paris?",
      toolChoice: "required",
      parallelToolCalls: false,
      maxTokens: 80,
      biasPieces: { "<tool_call>": 100, "<|im_end|>": 20 },
    },
    {
      name: "files/required/parallel",
      dialect: "qwen3-coder",
      tools: files,
      prompt: "Read notes.txt, then write a fixed copy.",
      toolChoice: "required",
      parallelToolCalls: true,
      maxTokens: 96,
      biasPieces: { "<tool_call>": 100, "<|im_end|>": 110 },
    },
    {
      name: "config/named/hermes",
      dialect: "hermes",
      tools: config,
      prompt: "Configure the fast mode with three workers.",
      toolChoice: { type: "function", function: { name: "configure" } },
      parallelToolCalls: false,
      maxTokens: 96,
      biasPieces: { "<tool_call>": 100, "<|im_end|>": 110 },
      biasWhitespace: -100,
    },
  ],
};

/** Checks a suite read from a file; every problem names the case and the field. */
export function checkSuite(s: unknown, source: string): BenchSuite {
  const fail = (what: string): never => {
    throw new Error(`suite ${source}: ${what}`);
  };
  if (s === null || typeof s !== "object" || Array.isArray(s))
    fail("must be a JSON object { name, seeds, cases: [...] }");
  const o = s as Record<string, unknown>;
  if (!Array.isArray(o.cases) || o.cases.length === 0) fail('needs a non-empty "cases" array');
  const seeds = o.seeds ?? 1;
  if (!Number.isInteger(seeds) || (seeds as number) < 1 || (seeds as number) > 1000)
    fail('"seeds" must be an integer in 1..1000');
  if (o.biasFor !== undefined && o.biasFor !== "test-model" && o.biasFor !== "any")
    fail('"biasFor" must be "test-model" or "any"');
  (o.cases as unknown[]).forEach((c, i) => {
    const at = `cases[${i}]`;
    if (c === null || typeof c !== "object") fail(`${at} must be an object`);
    const k = c as Record<string, unknown>;
    if (typeof k.name !== "string" || k.name === "") fail(`${at}.name must be a non-empty string`);
    if (typeof k.dialect !== "string" || !dialects.includes(k.dialect))
      fail(`${at}.dialect must be one of ${dialects.join(", ")}`);
    if (!Array.isArray(k.tools) || k.tools.length === 0) fail(`${at}.tools must be a non-empty array of OpenAI tools`);
    if ((k.prompt === undefined) === (k.messages === undefined))
      fail(`${at} needs "prompt" or "messages" (one of them)`);
    if (k.prompt !== undefined && typeof k.prompt !== "string") fail(`${at}.prompt must be a string`);
    if (k.messages !== undefined && (!Array.isArray(k.messages) || k.messages.length === 0))
      fail(`${at}.messages must be a non-empty array`);
    if (k.maxTokens !== undefined && (!Number.isInteger(k.maxTokens) || (k.maxTokens as number) < 1))
      fail(`${at}.maxTokens must be a positive integer`);
    if (k.temperature !== undefined && (typeof k.temperature !== "number" || k.temperature < 0))
      fail(`${at}.temperature must be a number >= 0`);
    if (k.biasWhitespace !== undefined && typeof k.biasWhitespace !== "number")
      fail(`${at}.biasWhitespace must be a number`);
    if (
      k.biasPieces !== undefined &&
      (typeof k.biasPieces !== "object" ||
        k.biasPieces === null ||
        Object.values(k.biasPieces).some((v) => typeof v !== "number"))
    )
      fail(`${at}.biasPieces must map token pieces to numbers`);
  });
  return {
    name: typeof o.name === "string" ? o.name : source,
    seeds: seeds as number,
    ...(o.biasFor ? { biasFor: o.biasFor as "test-model" | "any" } : {}),
    cases: o.cases as BenchCase[],
  };
}
