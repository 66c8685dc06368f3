// Types of json-schema-suite.mjs.
export type Doc = null | boolean | string | { num: string } | Doc[] | { obj: Array<[string, Doc]> };

export interface SuiteTest { description: string; valid: boolean; data: unknown; doc: Doc }
export interface SuiteGroup { file: string; group: string; schema: unknown; tests: SuiteTest[] }

export type Verdict = "pass" | "over" | "under" | "error";
export interface TestResult {
  name: string;
  file: string;
  group: string;
  valid: boolean;
  verdict: Verdict;
  text?: string;
  error?: string;
}

export function suiteDir(): string;
export function suiteVersion(): string;
export function loadSuite(dir?: string): SuiteGroup[];
export function testName(g: SuiteGroup, t: SuiteTest): string;
export function groupName(g: SuiteGroup): string;
export function parseLossless(text: string): Doc;
export function canonical(doc: Doc): string;
export function spaced(doc: Doc): string;
export function pretty(doc: Doc, depth?: number): string;
export function spellings(doc: Doc, options?: { pretty?: boolean }): string[];
export function judgeSuite(
  groups: SuiteGroup[], compile: (schema: unknown) => (text: string) => boolean, options?: { pretty?: boolean },
): TestResult[];
