// Types of call-verdicts.mjs (for the TypeScript tests that import it).
import type { DialectSpec } from "../../src/dialects/spec.js";
import type { ParserOptions } from "../../src/index.js";

export function completeBeyondGrammar(
  lib: Record<string, unknown>,
  spec: DialectSpec,
  text: string,
  options: ParserOptions,
): string | undefined;
