// `toolmask make-test-model`: the random-weight Qwen3 test model (real vocabulary and chat
// template; ~45 MB; seconds; no download).
import { mkdirSync, renameSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { writeTestModel } from "../model/test-model.js";
import { intFlag, parseFlags } from "./args.js";
import type { Command } from "./command.js";
import { CliError } from "./errors.js";
import { defaultTestModelPath } from "./model.js";

const usage =
  "usage: toolmask make-test-model [--out PATH] [--seed N]\n" +
  "Writes a tiny Qwen3-architecture GGUF with random weights and Qwen3's real vocabulary and chat template.\n" +
  "  --out   where to write it (default .cache/test-model/qwen3-tiny-seed<N>.gguf in the package)\n" +
  "  --seed  the weights are a function of this seed alone (default 1)";

async function run(argv: string[]): Promise<number> {
  const args = parseFlags(argv, { out: { type: "string" }, seed: { type: "string" } });
  const seed = intFlag(args.seed, "--seed", 0, 0xffffffff, 1);
  const out = resolve((args.out as string | undefined) ?? defaultTestModelPath(seed));
  const t0 = performance.now();
  const tmp = `${out}.${process.pid}.tmp`;
  let info;
  try {
    mkdirSync(dirname(out), { recursive: true });
    info = writeTestModel({ path: tmp, seed });
    renameSync(tmp, out);
  } catch (e) {
    throw new CliError(`cannot write ${out}: ${(e as Error).message}`);
  }
  process.stdout.write(
    `wrote ${out} (${(info.bytes / 1e6).toFixed(1)} MB, ${info.vocabSize} tokens, seed ${seed}) in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );
  return 0;
}

export const makeTestModelCommand: Command = { name: "make-test-model", usage, run };
