// Types of verdict-mutations.mjs (for the TypeScript tests that import it).
import type { DialectSpec } from "../../src/dialects/spec.js";

export interface Variant { what: string; text: string }
export function closingDrops(text: string, markers: string[]): Variant[];
export function duplicateKeys(spec: DialectSpec, text: string, other?: string): Variant[];
export function severalCalls(
  spec: DialectSpec,
  calls: string[],
  writeOutput: (spec: DialectSpec, calls: string[], options?: object) => string,
): Array<Variant & { settles: number }>;
export interface DropPlace { at: number; length: number; what: string }
export interface CopyPlace { at: number; insert: string; what: string }
export function closingPlaces(text: string, markers: string[]): DropPlace[];
export function dropAt(text: string, place: DropPlace): string;
export function duplicatePlaces(spec: DialectSpec, text: string, other?: string): CopyPlace[];
export function insertAt(text: string, place: CopyPlace): string;
