// Finds the compiled addon: a local build first, then a prebuild shipped in the package.
import { createRequire } from "node:module";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface NativeVocabulary { readonly size: number; readonly hash: string; readonly memoryBytes: number }
export interface NativeGrammar {
  readonly stateCount: number; readonly memoryBytes: number; readonly compileMillis: number; readonly vocabularyHash: string;
}
export interface NativeMatcher {
  acceptToken(id: number): boolean;
  acceptBytes(bytes: Uint8Array): boolean;
  fillNextTokenBitmask(out: Uint32Array | Int32Array): void;
  isComplete(): boolean;
  isTerminated(): boolean;
  rollback(n: number): void;
  reset(): void;
  hasAllowedToken(): boolean;
  randomWalks(options?: object): Array<{ tokens: Uint32Array; terminated: boolean; stuck: boolean }>;
  readonly steps: number;
}
export interface NativeLlamaModel {
  vocabulary(): { bytes: Uint8Array; offsets: Uint32Array; kinds: Uint8Array; pieces: string[] };
  metadata(key: string): string;
  tokenText(id: number): string;
  startDecoding(options: { parallel: number; contextSize: number; threads: number; batchTokens?: number }): void;
  dispose(): void;
  readonly chatTemplate: string;
  readonly trainedContext: number;
  readonly bosToken: string;
  readonly eosToken: string;
}
export interface NativeGenerationRequest {
  prompt: string; maxTokens: number;
  temperature?: number; topK?: number; topP?: number; minP?: number; seed?: number;
  penaltyLastN?: number; repeatPenalty?: number; frequencyPenalty?: number; presencePenalty?: number;
  logitBias?: Array<[number, number]>; grammar?: NativeGrammar; backendSampling?: boolean;
}
export interface NativeGenerationResult {
  tokens: number[]; finishReason: "stop" | "length" | "aborted"; promptTokens: number;
  queueMillis: number; promptMillis: number; decodeMillis: number; maskApplyCount: number; maskApplyNanos: number; maskBackendSteps: number; grammarComplete: boolean;
}
export interface NativeAddon {
  NativeVocabulary: new (bytes: Uint8Array, offsets: Uint32Array, kinds: Uint8Array) => NativeVocabulary;
  NativeGrammar: new (vocab: NativeVocabulary, irJson: string, options?: object) => NativeGrammar;
  NativeMatcher: new (grammar: NativeGrammar) => NativeMatcher;
  llamaLoadLibrary(paths: { llama: string; ggml: string; backendsDir: string }): void;
  llamaLoadModel(path: string, gpuLayers: number, onProgress: (fraction: number) => void): Promise<NativeLlamaModel>;
  llamaSupportsGpuOffload(): boolean;
  llamaGenerate(model: NativeLlamaModel, request: NativeGenerationRequest, onTokens: (ids: number[]) => void):
    { done: Promise<NativeGenerationResult>; abort(): void };
}

const require = createRequire(import.meta.url);
const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");

let cached: NativeAddon | undefined;

export function loadNative(): NativeAddon {
  if (cached) return cached;
  const candidates = [
    process.env.TOOLMASK_ADDON,
    join(packageRoot, "build", "Release", "toolmask.node"),
    join(packageRoot, "build", "Debug", "toolmask.node"),
    ...prebuilds(),
  ].filter((p): p is string => !!p && existsSync(p));
  const errors: string[] = [];
  for (const file of candidates) {
    try {
      cached = require(file) as NativeAddon;
      return cached;
    } catch (e) {
      errors.push(`${file}: ${(e as Error).message}`);
    }
  }
  throw new Error(
    "toolmask: the native addon is not built for this platform " +
      `(${process.platform}-${process.arch}). Run \`npm run build:native\` in the toolmask package ` +
      "(needs cmake and a C++17 compiler), or install a release that ships a prebuild for your platform." +
      (errors.length ? `\nTried:\n  ${errors.join("\n  ")}` : ""),
  );
}

function prebuilds(): string[] {
  const dir = join(packageRoot, "prebuilds", `${process.platform}-${process.arch}`);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith(".node")).map((f) => join(dir, f));
}
