import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Real vocabularies are large: forks keep each file's memory separate.
    pool: "forks",
    fileParallelism: true,
    maxWorkers: 2,
  },
});
