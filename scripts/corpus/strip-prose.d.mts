// Types of strip-prose.mjs (for the TypeScript tests that import it).
export const PROSE: Set<string>;
export function stripSchema<T>(schema: T): T;
export function fixtureTool(tool: object): { type: string; name?: string; parameters?: unknown; [key: string]: unknown };
export function unionTools<T extends { type: string; name?: string }>(lists: T[][]): T[];
