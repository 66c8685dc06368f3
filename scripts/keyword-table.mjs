#!/usr/bin/env node
// Writes the tables of docs/json-schema.md that the code decides (scripts/lib/keyword-table.mjs):
// every keyword, enforced / annotation / refused in every dialect, and the client tool corpus's
// results. Runs on the built library; test/no-model/keyword-table.test.ts fails until it is rerun
// after a change that moves a row:
//   npm run build:ts && node scripts/keyword-table.mjs
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { writeDoc } from "./lib/keyword-table.mjs";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const index = await import(join(dist, "index.js"));
const keywords = await import(join(dist, "grammar", "json-schema", "keywords.js"));
const { TOP_LEVEL_HINTS } = await import(join(dist, "dialects", "parameters-top.js"));
const { checkToolLimits } = await import(join(dist, "parser", "tool-limits.js"));
const lib = { ...index, ...keywords, TOP_LEVEL_HINTS, checkToolLimits };
console.log(writeDoc(lib) ? "docs/json-schema.md: tables rewritten" : "docs/json-schema.md: tables as the code says");
