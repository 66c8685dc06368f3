// The memory soak shared by scripts/bench/bench-memory.mjs and
// test/test-model/server-memory-soak.test.ts: `toolmask serve` as a child process (its RSS is then
// the server's alone, not a client's), requests that each bring tool schemas of their own sent one
// after another (varied-requests.mjs), and the child's RSS (/proc/PID/status VmRSS, Linux) read
// before the first request, every `every` requests and after `idleMs` with nothing sent.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sendVaried, variedRequest } from "./varied-requests.mjs";

/**
 * Starts `toolmask serve --model MODEL --port 0 …` (dist/cli, through serve-gc-child.mjs) and waits
 * until it listens. rssMb() reads its RSS as it is; rssAfterGcMb() after a full garbage collection,
 * less the heap's free pages V8 keeps committed.
 */
export async function startServeChild({ root, model, cacheMb, args = [] }) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const argv = ["--expose-gc", path.join(here, "serve-gc-child.mjs"), root];
  argv.push("serve", "--model", model, "--port", "0", "--threads", "1", "--dialect", "qwen3-coder", ...args);
  if (cacheMb !== undefined && cacheMb !== null) argv.push("--grammar-cache-mb", String(cacheMb));
  const child = spawn(process.execPath, argv, {
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    env: { ...process.env, TOOLMASK_QUIET: "1" },
  });
  let err = "";
  child.stderr.on("data", (d) => {
    err = (err + d).slice(-4000);
  });
  const url = await new Promise((resolve, reject) => {
    let seen = "";
    child.stdout.on("data", (d) => {
      seen += d;
      const m = /listening on (http:\/\/\S+)/.exec(seen);
      if (m) resolve(m[1]);
    });
    child.on("exit", (code) => reject(new Error(`toolmask serve exited (${code}) before listening: ${err}`)));
  });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  return {
    url,
    pid: child.pid,
    rssMb: () => rssMbOf(child.pid),
    rssAfterGcMb: () =>
      new Promise((resolve) => {
        // The RSS less the heap's free pages, which V8 keeps committed after the collection.
        child.once("message", (m) => resolve((m.rss - (m.heapTotal - m.heapUsed)) / 1024 / 1024));
        child.send("gc");
      }),
    stderr: () => err,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** A process's resident memory in MB (VmRSS). */
export function rssMbOf(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmRSS for process ${pid}`);
  return Number(m[1]) / 1024;
}

/**
 * Sends `requests` varied requests to `server` (from startServeChild), `concurrency` at a time
 * (variedRequest's options in `mix`): RSS before the first and every `every` answers, the statuses
 * by kind, then the RSS after `idleMs` of quiet, and (afterGcMb) after a full garbage collection.
 */
export async function runSoak(server, { requests, seed = 1, mix, concurrency = 1, every = 100, idleMs = 0, log }) {
  const samples = [{ requests: 0, rssMb: server.rssMb() }];
  const statuses = {};
  const t0 = performance.now();
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < requests) {
      const i = next++;
      const req = variedRequest(seed, i, mix);
      const status = await sendVaried(server.url, req);
      const key = `${req.call ? "call" : req.route}${req.stream ? "+stream" : ""} ${status}`;
      statuses[key] = (statuses[key] ?? 0) + 1;
      done++;
      if (done % every === 0 || done === requests) {
        samples.push({ requests: done, rssMb: server.rssMb() });
        log?.(`${done} requests: RSS ${samples.at(-1).rssMb.toFixed(0)} MB`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  if (idleMs > 0) await new Promise((r) => setTimeout(r, idleMs));
  const idleRssMb = server.rssMb();
  const peakMb = Math.max(...samples.map((s) => s.rssMb), idleRssMb);
  // Last, so no collection it forces lowers the peaks above.
  const afterGcMb = server.rssAfterGcMb ? await server.rssAfterGcMb() : undefined;
  return { samples, statuses, seconds, idleRssMb, peakMb, afterGcMb, grownMb: peakMb - samples[0].rssMb };
}
