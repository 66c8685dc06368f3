// The random-weight Qwen3 test model, written once per checkout into .cache/ (seconds, no download).
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { writeTestModel } from "../../src/model/test-model.js";
import { ROOT } from "./vocabs.js";

export function testModelPath(seed = 1): string {
  const dir = join(ROOT, ".cache", "test-model");
  const path = join(dir, `qwen3-tiny-seed${seed}.gguf`);
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeTestModel({ path: tmp, seed });
    renameSync(tmp, path); // atomic: parallel test files never see half a model
  }
  return path;
}
