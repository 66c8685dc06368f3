// Types of parser-reads.mjs (for the TypeScript tests that import it).
export interface ReadCounter { readonly reads: number; reset(): void; restore(): void }
export function countReads(classes: {
  TextBuffer: unknown;
  JsonExtent: unknown;
  OPEN: number;
  PythonExtent?: unknown;
  JsonPrefix?: unknown;
}): ReadCounter;
