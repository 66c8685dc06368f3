// What one request's tools and schemas may ask of the grammar, checked in TS while the tool
// grammar is built and its schemas lowered, before any native work. Each limit is far above
// what real tools use; docs/reliability.md ("JSON schemas") lists them with what each answers.
import { GrammarLimitError, type GrammarLimit } from "./errors.js";

export const SCHEMA_LIMITS = {
  /** Tools in one request (OpenAI's API takes 128). */
  tools: 512,
  /** Schemas nested inside one another along one path (properties, items, anyOf, $ref, …). */
  schemaNesting: 64,
  /** Groups nested inside one another in a pattern. */
  patternGroups: 32,
  /** Values of one enum (or const list). */
  enumValues: 10_000,
  /** Declared properties of one object. */
  properties: 10_000,
  /** Characters of a declared (or required) property name. */
  propertyName: 128,
  /** Schemas of one tuple (prefixItems, or the array form of items). */
  tupleItems: 256,
  /**
   * The maxStringLength / maxValueLength cap, in characters: any safe integer. A schema's
   * minLength/maxLength/minItems/maxItems has no limit: past COUNT_ABOVE the native engine counts
   * instead of unrolling (a bound of 10 and one of 2^31 cost the same states), and a bound past
   * Number.MAX_SAFE_INTEGER stands for what no text can reach (maxLength: no bound; minLength: no string).
   */
  stringLength: Number.MAX_SAFE_INTEGER,
  /** A pattern's {m,n} (nested ones multiplied). */
  repetition: 100_000,
  /** All the bounded lengths and item counts of one grammar's schemas, added up, each at most COUNT_ABOVE. */
  repetitionTotal: 1_000_000,
  /** Nodes of the grammar IR the schemas of one grammar lower to. */
  grammarNodes: 2_000_000,
} as const;

/**
 * What a counted bound costs the lowering's repetition budget: the largest bound the native engine
 * still unrolls (a bounded text's layers, NfaLimits::countTextAbove in native/core/nfa.hpp; a
 * repetition is counted past 64, countAbove).
 */
export const COUNT_ABOVE = 1024;

/** A length or item bound as the lowering uses it: past Number.MAX_SAFE_INTEGER, none any text reaches. */
export const reachable = (n: number | null): number | null => (n !== null && n > Number.MAX_SAFE_INTEGER ? null : n);

/** A GrammarLimitError whose message starts with the path, as every schema error's does. */
export function limitError(limit: GrammarLimit, path: string, detail: string): GrammarLimitError {
  return new GrammarLimitError(limit, `${path}: ${detail}`, path);
}

/** The error for more tools in one request than the limit allows. */
export function toolCountError(count: number): GrammarLimitError {
  return limitError(
    "tools",
    "tools",
    `${count} tools exceed the limit of ${SCHEMA_LIMITS.tools} per request; send only the tools this request may call`,
  );
}

/** Throws when an enum (at `path`, the schema holding it) has more values than the limit. */
export function checkEnumSize(count: number, enumPath: string): void {
  if (count > SCHEMA_LIMITS.enumValues)
    throw limitError(
      "enumValues",
      enumPath,
      `"enum" has ${count} values, over the limit of ${SCHEMA_LIMITS.enumValues}; send fewer values, or use a "string" with a "pattern" or a description of the allowed values`,
    );
}

/** What the lowering of one grammar has spent so far of the limits that add up. */
export class LoweringBudget {
  repetition = 0;
  nodes = 0;

  /** Adds a bounded repetition of `units` (a length or item count) stated at `path`; counted ones cost COUNT_ABOVE. */
  repeat(units: number, path: string, what: string): void {
    this.repetition += Math.min(units, COUNT_ABOVE);
    if (this.repetition > SCHEMA_LIMITS.repetitionTotal)
      throw limitError(
        "repetition",
        path,
        `${what} brings the bounded lengths and item counts of these schemas to add up to ${this.repetition}, over the limit of ${SCHEMA_LIMITS.repetitionTotal}; lower the largest "maxLength"/"maxItems" bounds or remove them`,
      );
  }

  /** Adds `count` IR nodes lowered from the schema at `path`. */
  grow(count: number, path: string): void {
    this.nodes += count;
    if (this.nodes > SCHEMA_LIMITS.grammarNodes)
      throw limitError(
        "grammarSize",
        path,
        `these schemas lower to more than ${SCHEMA_LIMITS.grammarNodes} grammar nodes (${this.nodes} so far); send fewer or smaller tools (fewer properties, enum values or alternatives)`,
      );
  }
}
