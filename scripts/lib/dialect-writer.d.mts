// Types of dialect-writer.mjs (for the TypeScript tests that import it).
import type { DialectSpec, Glue } from "../../src/dialects/spec.js";

/** [key, JSON text, raw text for an XML dialect's string]. */
export type WireArg = [string, string] | [string, string, string];
export function glueText(g: Glue, take?: () => boolean): string;
export function pyString(s: string): string;
export function objectText(args: WireArg[]): string;
export function writeOpeningCall(
  spec: DialectSpec,
  name: string,
  args: WireArg[],
  form: number,
  take?: () => boolean,
): string;
export function writeCall(
  spec: DialectSpec,
  name: string,
  args: WireArg[],
  options?: { index?: number; take?: () => boolean; id?: string; form?: number | "own" },
): string;
export function writeOutput(
  spec: DialectSpec,
  calls: string[],
  options?: { thought?: string; before?: string; after?: string; separator?: string },
): string;
