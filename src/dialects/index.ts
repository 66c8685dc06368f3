// The dialect registry.
import { deepseekV31 } from "./deepseek-v3.1.js";
import { glm45 } from "./glm-4.5.js";
import { gptOss } from "./gpt-oss.js";
import { generic } from "./generic.js";
import { hermes } from "./hermes.js";
import { lfm2 } from "./lfm2.js";
import { kimiK2 } from "./kimi-k2.js";
import { minimaxM2 } from "./minimax-m2.js";
import { llama3 } from "./llama3.js";
import { mistral } from "./mistral.js";
import { mistralNemo } from "./mistral-nemo.js";
import { qwen25Coder } from "./qwen2.5-coder.js";
import { qwen3Coder } from "./qwen3-coder.js";
import { seedOss } from "./seed-oss.js";
import type { DialectSpec } from "./spec.js";

const registry = new Map<string, DialectSpec>(
  [
    qwen3Coder,
    hermes,
    seedOss,
    mistral,
    mistralNemo,
    llama3,
    deepseekV31,
    kimiK2,
    glm45,
    minimaxM2,
    gptOss,
    lfm2,
    qwen25Coder,
    generic,
  ].map((d) => [d.name, d]),
);

/** Names of the built-in dialects. */
export const dialects: readonly string[] = [...registry.keys()];

export function getDialect(name: string): DialectSpec {
  const d = registry.get(name);
  if (!d) throw new Error(`unknown dialect "${name}"; known dialects: ${[...registry.keys()].join(", ")}`);
  return d;
}
