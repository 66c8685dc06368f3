// Types of parse-stress.mjs (for the TypeScript tests that import it).
import type { DialectSpec } from "../../src/dialects/spec.js";

export function prose(n: number): string;
export const STRESS_TOOLS: unknown[];
export const STRESS_KINDS: string[];
export function stressText(kind: string, spec: DialectSpec, n: number): string;
