// Errors a grammar raises because of what it was asked to hold, not because of a bug: the
// caller's (a request's tools, a schema) to fix. The server answers them with a 400.

/** Which bound a grammar went past. */
export type GrammarLimit =
  | "automatonStates" // NFA/DFA states the compiler may build
  | "maskBytes" // memory a compiled grammar's tables may take
  | "compileMillis" // time one compile may take
  | "anyOrderItems" // items of one any-order set
  | "schemaNesting" // depth of nested schemas
  | "stringLength" // a string's length bound
  | "enumValues" // values of one enum
  | "tools" // tools in one request
  | "repetition" // a repetition's bound (minItems/maxItems, {m,n} in a pattern), or all of them together
  | "grammarSize" // nodes of the grammar IR a request's schemas lower to
  | "nameLength" // a declared property name's length
  | "tupleItems"; // schemas of one prefixItems (or array-form items)

/** A grammar, or the schema it was built from, is larger than toolmask's stated limits. */
export class GrammarLimitError extends Error {
  /** The bound that was exceeded. */
  readonly limit: GrammarLimit;
  /** Where: a JSON path into the schema or the grammar IR (e.g. `$.properties.rows.items`), when known. */
  readonly path: string | undefined;
  constructor(limit: GrammarLimit, message: string, path?: string) {
    super(message);
    this.name = "GrammarLimitError";
    this.limit = limit;
    this.path = path;
  }
}

/**
 * A grammar accepts no string at all: every path holds an alternative of nothing, a class of no
 * characters, or a rule that can only go on referring to itself. Built from a request's tools, it is
 * the request's to fix (the server answers 400); a schema that matches no value is an
 * InvalidSchemaError naming the schema instead.
 */
export class EmptyGrammarError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EmptyGrammarError";
  }
}
