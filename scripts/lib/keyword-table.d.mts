// Types of keyword-table.mjs.
import type { buildToolGrammar, lowerJsonSchemas } from "../../src/index.js";

export interface TableLib {
  dialects: readonly string[];
  buildToolGrammar: typeof buildToolGrammar;
  lowerJsonSchemas: typeof lowerJsonSchemas;
  checkToolLimits: (o: { dialect: string; tools: unknown; toolChoice?: "required" }) => void;
  SUPPORTED: ReadonlySet<string>;
  DEFS: ReadonlySet<string>;
  ANNOTATIONS: ReadonlySet<string>;
  UNSUPPORTED_HINTS: Readonly<Record<string, string>>;
  TOP_LEVEL_HINTS: Readonly<Record<string, string>>;
}

export const DOC: URL;
export const PROBES: Record<string, Array<[string, unknown]>>;
export function keywordRows(lib: TableLib): string[][];
export function keywordTable(lib: TableLib): string;
export function corpusTable(lib: TableLib): string;
export function withTables(doc: string, blocks: Record<string, string>): string;
export function generatedDoc(lib: TableLib, doc?: string): string;
export function writeDoc(lib: TableLib): boolean;
