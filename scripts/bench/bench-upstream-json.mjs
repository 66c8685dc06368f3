#!/usr/bin/env node
// What reading an upstream answer costs (src/gateway/upstream-json.ts): JSON.parse and the scan
// for keys given twice (duplicateKeys, src/parser/json-scan.ts), against JSON.parse alone and
// against readExactJson (src/parser/exact-json.ts, the exact reader), on answers of about 1 MB
// of four shapes: an OpenAI answer of text, one call whose arguments are 1 MB, a llama-server
// /completion answer (text, token ids, the prompt and grammar echoed), and an answer of many small
// objects (logprobs). Median ms of each over --reps runs, and the ratios to JSON.parse.
// Usage: node scripts/bench/bench-upstream-json.mjs [--mb 1] [--reps 15]   (after npm run build:ts)
//   --smallest: answers of 1/16 MB, 3 timed runs of each after 3 to warm up
//   (test/no-model/bench-smallest-upstream-json.test.ts). Nothing is written.
import path from "node:path";
import { arg, median, readFlags, root, smallest } from "./lib/bench-setup.mjs";

readFlags(import.meta.url, {
  command: "node scripts/bench/bench-upstream-json.mjs",
  flags: { mb: "N (1)", reps: "N (15)", smallest: false },
});

const { readExactJson } = await import(path.join(root, "dist", "parser", "exact-json.js"));
const { duplicateKeys } = await import(path.join(root, "dist", "parser", "json-scan.js"));

const MB = Math.round(Number(arg("mb", smallest ? "0.0625" : "1")) * 1024 * 1024);
const reps = Number(arg("reps", smallest ? "3" : "15"));
const sentence = 'Lorem ipsum dolor sit amet, "quoted" and \\n escaped. ';
const text = sentence.repeat(Math.ceil(MB / sentence.length)).slice(0, MB);
const call = (args) => ({ id: "c1", type: "function", function: { name: "f", arguments: args } });
const answers = {
  "openai text": { choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }] },
  "openai call, 1 MB arguments": {
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: null, tool_calls: [call(JSON.stringify({ s: text }))] },
        finish_reason: "tool_calls",
      },
    ],
  },
  "llama-server /completion": {
    content: text.slice(0, MB * 0.3),
    tokens: Array.from({ length: Math.round(MB / 17) }, (_, i) => (i * 7919) % 151_000),
    generation_settings: { prompt: text.slice(0, MB * 0.3), grammar: "root ::= x\n".repeat(Math.round(MB / 100)) },
    stop: true,
    stop_type: "eos",
  },
  "logprobs (small objects)": {
    choices: [
      {
        message: { content: "x" },
        logprobs: {
          content: Array.from({ length: Math.round(MB / 110) }, (_, i) => ({
            token: "ab",
            logprob: -0.1234567 * i,
            bytes: [97, 98],
            top_logprobs: [{ token: "c", logprob: -1.5, bytes: [99] }],
          })),
        },
      },
    ],
  },
};

const time = (f) => {
  for (let i = 0; i < 3; i++) f();
  const ms = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    f();
    ms.push(performance.now() - t);
  }
  return median(ms);
};
for (const [name, answer] of Object.entries(answers)) {
  const body = JSON.stringify(answer);
  const parse = time(() => JSON.parse(body));
  const scanned = time(() => {
    JSON.parse(body);
    duplicateKeys(body);
  });
  const exact = time(() => readExactJson(body));
  console.log(
    `${name} (${(body.length / 1024 / 1024).toFixed(2)} MB): JSON.parse ${parse.toFixed(2)} ms; ` +
      `+ duplicateKeys ${scanned.toFixed(2)} ms (x${(scanned / parse).toFixed(2)}); ` +
      `readExactJson ${exact.toFixed(2)} ms (x${(exact / parse).toFixed(2)})`,
  );
}
