// llama.cpp's own llama-server (built by scripts/oracles/llama-server/build.mjs) as a child
// process on a free port, for the gateway suites: started, waited for until /health says ok,
// killed. Its output is kept for the test's messages.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { buildLlamaServer } from "../../scripts/oracles/llama-server/build.mjs";
import { fetchWithin, NO_TOKENS } from "./timeouts.js";

/** How long a llama-server may take to load its model and answer /health. */
export const LLAMA_SERVER_START_MS = 120_000;

export interface LlamaServerProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  kill: () => Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startLlamaServer(model: string, args: string[] = []): Promise<LlamaServerProcess> {
  const binary = await buildLlamaServer({ log: (l: string) => console.error(l) });
  const port = await freePort();
  const child = spawn(
    binary,
    ["-m", model, "--host", "127.0.0.1", "--port", String(port), "-c", "4096", "-np", "2", "-t", "1", ...args],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  const take = (d: Buffer) => {
    out = (out + d.toString()).slice(-20_000);
  };
  child.stdout!.on("data", take);
  child.stderr!.on("data", take);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + LLAMA_SERVER_START_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`llama-server exited (${child.exitCode}):\n${out}`);
    try {
      const r = await fetchWithin(NO_TOKENS, `${url}/health`);
      if (r.ok) break;
      await r.body?.cancel();
    } catch {}
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`llama-server did not become healthy in 120 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    child,
    output: () => out,
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}
