#!/usr/bin/env node
// On a GPU: the backend path (mask as graph ops on the device: dense, packed and resident input)
// against the host path (logits copied out, mask on the host), same model and options. Greedy must
// pick the same tokens (the logits are the same, argmax is exact); sampled runs are compared and
// reported (softmax on the device may round differently from the host). Every masked run that
// finishes must hold complete calls of declared tools. Prints one JSON line; exit 1 on a failure.
// On a model without Qwen3's vocabulary (a real model from `npm run models`) no logit bias is set:
// the biases below are Qwen3 token ids, and a trained model calls and ends by itself.
// Usage: node scripts/gpu/check-paths.mjs --model file.gguf [--gpu cuda]
import path from "node:path";
import { arg, readFlags, root } from "../bench/lib/bench-setup.mjs";

readFlags(import.meta.url, {
  command: "node scripts/gpu/check-paths.mjs",
  flags: { model: "FILE (needed)", gpu: "cuda|auto|false (cuda)" },
});
const { loadModel, generate } = await import(path.join(root, "dist", "index.js"));
const modelPath = arg("model", null);
if (!modelPath) {
  console.error("usage: node scripts/gpu/check-paths.mjs --model file.gguf [--gpu cuda|false]");
  process.exit(2);
}
const gpuArg = arg("gpu", "cuda");
const model = await loadModel({ path: modelPath, gpu: gpuArg === "false" ? false : gpuArg });

const tools = [
  {
    type: "function",
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { enum: ["Paris", "Rome"] } }, required: ["city"] },
    },
  },
  {
    type: "function",
    function: {
      name: "search",
      parameters: { type: "object", properties: { q: { type: "string", maxLength: 12 } }, required: ["q"] },
    },
  },
];
// Biases (Qwen3 ids: 151657 <tool_call>, 151645 <|im_end|>, 198/271 newlines) push a random-weight
// model to open a call and to end, so runs finish; the mask decides everything in between.
const qwen3 =
  model.vocabulary.idOfPiece("<tool_call>") === 151657 && model.vocabulary.idOfPiece("<|im_end|>") === 151645;
const xmlBias = qwen3 ? { 151657: 100, 151645: 110 } : {},
  jsonBias = qwen3 ? { 198: -100, 271: -100, 151657: 8, 151645: 30 } : {};
const forms = ["dense", "packed", "resident"];
const cases = [
  ["greedy, XML", { dialect: "qwen3-coder", temperature: 0, toolChoice: "required", logitBias: xmlBias }, true],
  ["greedy, JSON", { dialect: "hermes", temperature: 0, toolChoice: "required", logitBias: jsonBias }, true],
  ["sampled, XML", { dialect: "qwen3-coder", temperature: 1, toolChoice: "required", logitBias: xmlBias }, false],
  [
    "sampled, JSON hot",
    { dialect: "hermes", temperature: 1.5, topK: 0, topP: 1, minP: 0, toolChoice: "required", logitBias: jsonBias },
    false,
  ],
];
const failures = [],
  report = { gpu: model.gpu, model: path.basename(modelPath), qwen3Biases: qwen3, cases: [] };
for (const [name, o, mustMatch] of cases) {
  let same = 0,
    total = 0,
    valid = 0,
    finished = 0;
  const sameByForm = Object.fromEntries(forms.map((f) => [f, 0])),
    tableRows = [];
  for (const seed of [1, 2, 3, 4]) {
    const base = {
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools,
      seed,
      maxTokens: 48,
      maxValueLength: 12,
      ...o,
    };
    const host = await generate(model, { ...base, maskPath: "cpu" });
    for (const form of forms) {
      process.env.TOOLMASK_BACKEND_MASK = form;
      const dev = await generate(model, { ...base, maskPath: "backend" });
      if (dev.maskPath !== "backend")
        failures.push(`${name} seed ${seed} ${form}: masked on ${dev.maskPath}, not in the graph`);
      total++;
      if (form === "resident") tableRows.push(dev.maskTable?.rows ?? 0);
      if ((form === "resident") !== (dev.maskTable !== undefined))
        failures.push(`${name} seed ${seed} ${form}: maskTable ${dev.maskTable ? "reported" : "missing"}`);
      if (JSON.stringify(dev.tokens) === JSON.stringify(host.tokens)) {
        same++;
        sameByForm[form]++;
      } else if (mustMatch) failures.push(`${name} seed ${seed} ${form}: backend tokens differ from the host path's`);
      for (const r of [dev]) {
        if (r.finishReason === "length") continue;
        finished++;
        const ok =
          r.incomplete.length === 0 &&
          (r.message.tool_calls ?? []).every((c) => ["get_weather", "search"].includes(c.function.name));
        if (ok) valid++;
        else failures.push(`${name} seed ${seed} ${form}: finished (${r.finishReason}) without valid calls`);
      }
    }
  }
  report.cases.push({
    name,
    sameTokensAsHost: `${same}/${total}`,
    sameTokensByForm: Object.fromEntries(forms.map((f) => [f, `${sameByForm[f]}/${total / forms.length}`])),
    finishedValid: `${valid}/${finished}`,
    residentTableRows: tableRows,
  });
}
delete process.env.TOOLMASK_BACKEND_MASK;
report.failures = failures;
console.log(JSON.stringify(report));
model.dispose();
process.exit(failures.length ? 1 : 0);
