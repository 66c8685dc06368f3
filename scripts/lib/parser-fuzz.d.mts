// Types of parser-fuzz.mjs (for the TypeScript tests that import it).
import type { ReadCounter } from "./parser-reads.mjs";

export interface FuzzFailure { dialect: string; seed: number; index: number; verdicts: boolean; check: string; message: string; text: string; options: Record<string, unknown> }
export interface FuzzRun { dialect: string; tried: number; growth: number; grammar: number; failures: FuzzFailure[] }
export const FUZZ_TOOLS: unknown[];
export function rng(seed: number): () => number;
export function markersOf(spec: unknown): string[];
export function inputSeed(seed: number, dialect: string, index: number): number;
export function fuzzDialect(lib: Record<string, unknown>, counter: ReadCounter, dialect: string, options?: { seed?: number; from?: number; count?: number; maxSize?: number; growthEvery?: number; grammarEvery?: number; stopAfter?: number; verdicts?: boolean }): FuzzRun;
export function describeFailure(f: FuzzFailure): string;
export function superlinearReads(reads: (n: number) => number, k: number): Record<number, number> | undefined;
