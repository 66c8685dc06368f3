// llama.cpp's own llama-server (built by build.mjs) as a child process on a free port: started,
// waited for until /health says ok, killed. Its output is kept for error messages. Used by the
// gateway suites (test/support/llama-server-process.ts) and by npm run bench:bfcl's llama-server mode.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import path from "node:path";
import { buildLlamaServer, llamaServerBinary } from "./build.mjs";

/** How long a llama-server may take to load its model and answer /health. */
export const LLAMA_SERVER_START_MS = 120_000;
/** How long one /health request may take (it decodes nothing). */
const HEALTH_REQUEST_MS = 11_500;

async function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = /** @type {import("node:net").AddressInfo} */ (s.address()).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Builds llama-server if needed (unless `binary` names one) and starts it on `model` with `args`
 * (after -m, --host, --port).
 * @param {string} model
 * @param {string[]} [args]
 * @param {{ log?: (line: string) => void, startMs?: number, binary?: string }} [options]
 */
export async function startLlamaServer(model, args = [], options = {}) {
  const log = options.log ?? ((/** @type {string} */ l) => console.error(l));
  const startMs = options.startMs ?? LLAMA_SERVER_START_MS;
  const binary = options.binary ?? (await buildLlamaServer({ log }));
  const port = await freePort();
  const child = spawn(binary, ["-m", model, "--host", "127.0.0.1", "--port", String(port), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const take = (/** @type {Buffer} */ d) => {
    out = (out + d.toString()).slice(-20_000);
  };
  child.stdout.on("data", take);
  child.stderr.on("data", take);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + startMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`llama-server exited (${child.exitCode}):\n${out}`);
    try {
      const r = await fetch(`${url}/health`, { signal: AbortSignal.timeout(HEALTH_REQUEST_MS) });
      if (r.ok) break;
      await r.body?.cancel();
    } catch {}
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`llama-server did not become healthy in ${startMs / 1000} s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    child,
    output: () => out,
    kill: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
        child.once("exit", () => resolve(undefined));
        child.kill("SIGKILL");
      }),
  };
}

/**
 * Which llama-server the binary is: its `--version` output (the version and commit node-llama-cpp's
 * prebuilt libllama-common reports) and, from the build's stamp, the llama.cpp source commit its
 * server code was compiled from and the build strategy.
 * @param {string} [binary]
 * @returns {{ binary: string, version: string, release: string | null, sourceCommit: string | null, strategy: string | null }}
 */
export function llamaServerBuildInfo(binary = llamaServerBinary) {
  // It prints to stderr.
  const r = spawnSync(binary, ["--version"], { encoding: "utf8", timeout: 30_000 });
  const version = `${r.stdout ?? ""}${r.stderr ?? ""}`;
  let stamp = {};
  try {
    stamp = JSON.parse(readFileSync(`${binary}.stamp`, "utf8"));
  } catch {}
  // node-llama-cpp records which llama.cpp release its bundled source and prebuilt libraries are.
  let release = null;
  try {
    const pkg = path.dirname(path.dirname(createRequire(import.meta.url).resolve("node-llama-cpp"))); // <pkg>/dist/index.js
    const info = JSON.parse(readFileSync(path.join(pkg, "llama", "llama.cpp.info.json"), "utf8"));
    const own = JSON.parse(readFileSync(path.join(pkg, "package.json"), "utf8"));
    release = `${info.llamaCppGithubRepo} ${info.tag} (bundled by node-llama-cpp ${own.version})`;
  } catch {}
  return {
    binary,
    version: version.trim(),
    release,
    sourceCommit: typeof stamp.commit === "string" ? stamp.commit : null,
    strategy: typeof stamp.strategy === "string" ? stamp.strategy : null,
  };
}
