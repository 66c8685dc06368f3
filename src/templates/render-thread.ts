// Chat templates rendered on worker threads, so the event loop keeps serving while a long
// conversation renders: @huggingface/jinja interprets the template at about 50 µs per message on
// this machine (4,000 messages: 200–450 ms, against 10–20 ms to JSON.parse the same body; npm run
// bench:stalls). The prompt is the same string renderChat returns on this thread; the template's
// errors come back as ChatTemplateError with the same message.
//
// The workers run the built module (dist/templates/render-worker.js). Loaded from the TypeScript
// sources (the test runner), or given messages a thread cannot receive (a function in them), the
// render runs on this thread instead.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { ChatTemplateError, renderChat, type RenderChatOptions } from "./render.js";
import type { RenderJob, RenderReply } from "./render-worker.js";

/** Workers rendering at once; each takes the next job when it is the least busy. */
const POOL_SIZE = 2;

interface Pending {
  resolve: (prompt: string) => void;
  reject: (e: Error) => void;
}

interface RenderWorker {
  worker: Worker;
  pending: Map<number, Pending>;
}

const pool: RenderWorker[] = [];
let nextId = 0;
let workerFile: string | null | undefined;

/** The built worker module, or null when this module was not loaded from a build. */
function builtWorker(): string | null {
  if (workerFile !== undefined) return workerFile;
  const url = new URL("./render-worker.js", import.meta.url);
  workerFile = import.meta.url.endsWith(".js") && existsSync(fileURLToPath(url)) ? fileURLToPath(url) : null;
  return workerFile;
}

/**
 * The process's Node options, for its workers, without the ones about the main script's source
 * (`-e SCRIPT`, `--input-type`): a worker given those does not start.
 */
function workerExecArgv(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (["-e", "--eval", "-p", "--print"].includes(a)) i++;
    else if (!/^(--input-type|--eval=|--print=)/.test(a)) out.push(a);
  }
  return out;
}

let execArgv: string[] | undefined;

/**
 * A worker with the process's Node options, less those Node refuses to a worker: process-wide V8
 * flags such as --max-old-space-size or --expose-gc throw ERR_WORKER_INVALID_EXEC_ARGV, whose
 * message names them; the process keeps them, its workers start without.
 */
function newWorker(file: string): Worker {
  execArgv ??= workerExecArgv();
  try {
    return new Worker(file, { execArgv });
  } catch (e) {
    if ((e as { code?: string }).code !== "ERR_WORKER_INVALID_EXEC_ARGV") throw e;
    const named = /flags: (.*)$/.exec((e as Error).message)?.[1]?.split(", ") ?? [];
    const refused = new Set(named);
    execArgv = execArgv.filter((a) => !refused.has(a) && !refused.has(a.split("=")[0]!));
    if (named.length === 0) execArgv = [];
    return new Worker(file, { execArgv });
  }
}

function start(file: string): RenderWorker {
  const w: RenderWorker = { worker: newWorker(file), pending: new Map() };
  w.worker.unref(); // an idle render thread does not keep the process alive
  w.worker.on("message", (reply: RenderReply) => {
    const p = w.pending.get(reply.id);
    if (!p) return;
    w.pending.delete(reply.id);
    if (w.pending.size === 0) w.worker.unref();
    if ("prompt" in reply) p.resolve(reply.prompt);
    else {
      const { message, name, template } = reply.error;
      const e = template ? new ChatTemplateError(message, undefined) : new Error(message);
      if (!template) e.name = name;
      p.reject(e);
    }
  });
  const fail = (err: Error) => {
    pool.splice(pool.indexOf(w), 1);
    for (const p of w.pending.values())
      p.reject(new Error(`the chat template's render thread stopped: ${err.message}`));
    w.pending.clear();
  };
  w.worker.on("error", fail);
  w.worker.on("exit", (code) => {
    if (pool.includes(w)) fail(new Error(`exit code ${code}`));
  });
  pool.push(w);
  return w;
}

function leastBusy(file: string): RenderWorker {
  const idle = pool.find((w) => w.pending.size === 0);
  if (idle) return idle;
  if (pool.length < POOL_SIZE) return start(file);
  return pool.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
}

/** renderChat on a worker thread (see the top of this file); the same prompt, the same errors. */
export function renderChatOffThread(template: string, opts: RenderChatOptions): Promise<string> {
  const file = builtWorker();
  if (file === null) return Promise.resolve().then(() => renderChat(template, opts));
  const w = leastBusy(file);
  const id = nextId++;
  return new Promise<string>((resolve, reject) => {
    try {
      w.worker.postMessage({ id, template, opts } satisfies RenderJob);
    } catch {
      // Not cloneable (a function among the messages): rendered here, as renderChat would.
      resolve(Promise.resolve().then(() => renderChat(template, opts)));
      return;
    }
    w.pending.set(id, { resolve, reject });
    w.worker.ref(); // a render in progress keeps the process alive until it answers
  });
}
