// Types of keyword-matrix.mjs.
import type { DialectSpec } from "../../src/dialects/spec.js";

export interface MatrixValue { label: string; data: unknown; json: string }
export interface MatrixCase { name: string; draft: "07" | "2020"; schema: unknown; values: MatrixValue[] }
export interface Refusal { error: string; keyword?: string; path?: string; message: string; status?: number; code?: string | null }
export interface JudgedValue {
  label: string;
  text: string | undefined;
  expected: boolean;
  parsed?: boolean;
  grammar?: boolean;
  args?: boolean;
}
export type Judged = { refused: Refusal; parserRefused?: Refusal; values?: undefined } | { refused?: undefined; parserRefused?: undefined; values: JudgedValue[] };
export type Oracle = (c: MatrixCase) => (data: unknown) => boolean;

export const MATRIX_KEYWORDS: string[];
export const PARAM_POINTER: string;
export const OWN_CASES: Array<[string, unknown, unknown[] | ((spec: DialectSpec) => unknown[])]>;
export function keywordsOf(schema: unknown): string[];
export function asParameter(schema: unknown): unknown;
export function paramTools(schema: unknown): Array<{
  type: "function";
  function: { name: string; parameters: { type: "object"; properties: { v: unknown }; required: string[] } };
}>;
export function suiteCases(): MatrixCase[];
export function ownCases(spec: DialectSpec): MatrixCase[];
export function matrixCases(spec: DialectSpec): MatrixCase[];
export function closePrefix(spec: DialectSpec): string;
export function makeOracle(): Oracle;
export function callText(spec: DialectSpec, rawText: boolean, value: { data: unknown; json: string }): string | undefined;
export function refusalOf(e: unknown, toApiError?: (e: unknown) => { status: number; code?: string | null }): Refusal;
export function judgeCase(lib: Record<string, unknown>, dialect: string, c: MatrixCase, oracle: Oracle): Judged;
export function sameJson(a: unknown, b: unknown): boolean;
export function matrixTable(runs: Array<{ dialect: string; case: MatrixCase; judged: Judged }>): string;
export function caseProblems(name: string, results: Array<[string, Judged]>): string[];
