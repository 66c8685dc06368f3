// The names the served model answers to: its id, and the aliases the server was started with
// (--model-alias), so that a client configured for another model name (claude-sonnet-4-5, gpt-5)
// reaches it under that name. Without aliases any `model` a request names is served and answered
// as the id; with them, a request must name the id or an alias (404 model_not_found otherwise),
// and the answer carries the name it asked for.
import { ApiError } from "./errors.js";

export interface ModelNames {
  modelId: string;
  /** Other names of the served model; empty: any name is served. */
  modelAliases: readonly string[];
}

/** Checks startServer's modelAliases: distinct non-empty strings, none the id itself. */
export function checkAliases(aliases: unknown, modelId: string | undefined): string[] {
  if (aliases === undefined) return [];
  if (!Array.isArray(aliases) || aliases.some((a) => typeof a !== "string" || a.trim() === ""))
    throw new TypeError(`modelAliases must be an array of non-empty strings, got ${JSON.stringify(aliases)}`);
  const seen = new Set<string>();
  for (const a of aliases as string[]) {
    if (seen.has(a)) throw new TypeError(`modelAliases names ${JSON.stringify(a)} twice`);
    if (a === modelId) throw new TypeError(`modelAliases names the model id ${JSON.stringify(a)} itself`);
    seen.add(a);
  }
  return [...seen];
}

export const knownNames = (n: ModelNames) => [n.modelId, ...n.modelAliases];

/** 404 model_not_found for `requested`, listing the names served. */
export function modelNotFound(n: ModelNames, requested: string): ApiError {
  const shown = requested.length <= 64 ? requested : `${requested.slice(0, 64)}…`;
  return new ApiError(
    404,
    `The model '${shown}' does not exist; this server serves ${knownNames(n)
      .map((m) => `'${m}'`)
      .join(", ")}`,
    { param: "model", code: "model_not_found" },
  );
}

/** The name an answer to a request naming `requested` carries; 404 for a name not served. */
export function servedName(n: ModelNames, requested: unknown): string {
  if (n.modelAliases.length === 0 || typeof requested !== "string") return n.modelId;
  if (requested === n.modelId || n.modelAliases.includes(requested)) return requested;
  throw modelNotFound(n, requested);
}
