// Types of real-suite.mjs (for the TypeScript tests that import it).
import type { RealCase } from "./real-cases.mjs";
import type { NameForm } from "./real-answers.mjs";

export interface SuiteLib {
  generate: (...args: any[]) => Promise<any>;
  getDialect: (name: string) => any;
  triggerOf: (spec: any) => string;
  replayThroughMask: (...args: any[]) => Promise<any>;
  endedByModel: (model: any, tokens: readonly number[]) => boolean;
}
export interface Refused { index: number; id: number; piece: string; textBefore: string }
export interface ModeRecord {
  mode: "masked" | "unmasked";
  finishReason: string; completionTokens: number; promptTokens: number; endedByModel: boolean;
  cut: boolean; valid: boolean; calls: number; problems: string[];
  toolCalls: Array<{ name: string; arguments: string }>;
  incomplete: Array<{ kind: string; name: string | null; reason: string }>;
  replay: { tokens: number; accepted: number; refused: Refused | null; complete: boolean };
  tokensPerSecond: number; maskMicrosPerToken: number; promptMillis: number; decodeMillis: number;
  text: string; tokens: number[];
}
export interface CaseRecord { id: number; prompt: string; choice: string; parallel: boolean; tools: number; masked: ModeRecord; unmasked: ModeRecord }
export interface ModeSummary { answers: number; finished: number; valid: number; validWithCalls: number; cut: number; cutReportedLength: number; withProblems: number; calls: number; tokens: number; medianTokensPerSecond: number }
export interface Difference { id: number; at: number; unmaskedPiece: string; maskedPiece: string; unmaskedText: string; maskedText: string; maskedValid: boolean; solo?: { same: boolean; maskedText: string; unmaskedText: string; maskedAsBatched: boolean } }
export interface SuiteSummary {
  cases: number; masked: ModeSummary; unmasked: ModeSummary;
  byChoice: Record<string, { cases: number; maskedValid: number; maskedCut: number; unmaskedValid: number }>;
  replay: { answers: number; withCalls: number; tokens: number; refusals: number };
  greedy: { unmaskedValid: number; same: number; different: number; differentSameWhenAlone: number };
}
export interface SuiteResult {
  dialect: string; records: CaseRecord[];
  maskProblems: Array<{ id: number; problem: string; text: string }>;
  refusals: Array<{ id: number; refused: Refused; text: string }>;
  differences: Difference[];
  summary: SuiteSummary;
}
export interface SuiteSettings { maxTokens: number; dialect?: string; concurrency?: number; onCase?: (done: number, total: number, records: CaseRecord[]) => void }
export function caseOptions(c: RealCase, o: { maxTokens: number; dialect?: string; mask: boolean }): Record<string, unknown>;
export function firstDifference(a: readonly number[], b: readonly number[]): number;
export function runSuite(lib: SuiteLib, model: unknown, cases: RealCase[], settings: SuiteSettings): Promise<SuiteResult>;
export function summarize(records: CaseRecord[], differences: Difference[]): SuiteSummary;
export function formatSummary(name: string, result: SuiteResult): string;
/** Where the dialect (a DialectSpec) opens a call and how its name follows, for the verdict. */
export function callOpening(lib: { escapeRegex(s: string): string }, spec: any, trigger: string | undefined): { text: string; atStart: boolean; before?: string; headDecides?: boolean; name?: NameForm } | undefined;
