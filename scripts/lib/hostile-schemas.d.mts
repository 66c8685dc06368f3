// Types of hostile-schemas.mjs, for the test that runs its fast cases.
export type HostileOutcome =
  | { compiles: true; walks: number }
  | { limit: string; path: string }
  | { error: string; path: string }
  | { native: string };

export interface HostileCase {
  name: string;
  dialect: string;
  tools: () => unknown[];
  options?: Record<string, unknown>;
  expect: HostileOutcome;
  fast: boolean;
}

export const HOSTILE_CASES: HostileCase[];
