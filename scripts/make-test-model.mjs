#!/usr/bin/env node
// Same as `toolmask make-test-model` (src/cli/make-test-model.ts, built into dist/).
//   node scripts/make-test-model.mjs [--out PATH] [--seed N]
const { main } = await import("../dist/cli/dispatch.js").catch((e) => {
  console.error(`make-test-model: cannot load the built package (${e.message}). Run \`npm run build:ts\` first.`);
  process.exit(1);
});
process.exitCode = await main(["make-test-model", ...process.argv.slice(2)]);
