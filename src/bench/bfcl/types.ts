// The Berkeley Function Calling Leaderboard's item shapes (bfcl-eval's data/BFCL_v4_<category>.json
// and data/possible_answer/), as far as the five single-turn Python categories use them.

/** The categories this bench runs. "simple" is BFCL v4's simple_python (simple_java and simple_javascript take values as Java or JS source strings). */
export const BFCL_CATEGORIES = ["simple", "multiple", "parallel", "parallel_multiple", "irrelevance"] as const;
export type BfclCategory = (typeof BFCL_CATEGORIES)[number];

/** The data file's stem for a category. */
export const categoryFile = (c: BfclCategory): string => `BFCL_v4_${c === "simple" ? "simple_python" : c}`;

/** A parameter schema in BFCL's dialect of JSON Schema: types dict, float, tuple, any besides JSON's. */
export interface BfclSchema {
  type?: string;
  description?: string;
  properties?: Record<string, BfclSchema>;
  required?: string[];
  items?: BfclSchema;
  enum?: unknown[];
  default?: unknown;
  /** Not JSON Schema: BFCL marks some properties (and a few parameter objects) optional this way. */
  optional?: unknown;
  [keyword: string]: unknown;
}

export interface BfclFunction {
  name: string;
  description: string;
  parameters: BfclSchema;
}

/** One acceptable call: function name → parameter → the values accepted ("" where leaving it out is accepted). */
export type BfclGroundTruthCall = Record<string, Record<string, unknown[]>>;

export interface BfclItem {
  id: string;
  category: BfclCategory;
  /** The conversation; these categories have one user turn. */
  messages: Array<{ role: string; content: string }>;
  functions: BfclFunction[];
  /** The calls the answer must make (any order for parallel ones); [] for irrelevance (no call is right). */
  groundTruth: BfclGroundTruthCall[];
}

/**
 * Ground-truth parameters none of whose accepted values fits the function's own schema (fruit names
 * for a list of integers; a Python expression as a string for an array): a schema-valid answer
 * cannot be scored right there. test/no-model/bfcl-convert.test.ts finds exactly these.
 */
export const CONTRADICTED_PARAMETERS = [
  "parallel_multiple_21 x",
  "parallel_multiple_21 y",
  "parallel_multiple_94 elements",
] as const;
export const CONTRADICTED_ITEMS: readonly string[] = [...new Set(CONTRADICTED_PARAMETERS.map((p) => p.split(" ")[0]!))];
