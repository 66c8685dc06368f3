#!/usr/bin/env node
// `npm run demo` and `toolmask demo` are one command: src/cli/demo.ts (built into dist/).
//   node scripts/demo.mjs [--model PATH] [--seeds N] [--max-tokens N]
const { main } = await import("../dist/cli/dispatch.js").catch((e) => {
  console.error(
    `toolmask demo: cannot load the built package (${e.message}). Run \`npm install\` (it builds dist/ and the addon) first.`,
  );
  process.exit(1);
});
process.exitCode = await main(["demo", ...process.argv.slice(2)]);
