// The captured client tools (test/fixtures/client-tools) refused today, by fixture and tool, with
// the keyword whose place the refusal's path names. test/no-model/client-tools.test.ts fails when
// another tool is refused and when one of these compiles (remove its entry then); docs/json-schema.md
// lists them with their refusals (scripts/keyword-table.mjs).
export const KNOWN_REFUSED = {};
