// One builder at a time across processes (test files start in parallel): a lock folder created
// atomically, holding the owner's pid, touched every few seconds while the build runs. A lock whose
// owner process is gone, or that was not touched for a minute, was left behind and is taken over.
import { mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";

const HEARTBEAT_MS = 5_000;
const STALE_LOCK_MS = 60_000;

function lockIsStale(lockDir) {
  try {
    if (Date.now() - statSync(lockDir).mtimeMs > STALE_LOCK_MS) return true;
    const pid = Number(readFileSync(path.join(lockDir, "pid"), "utf8"));
    if (!pid) return false; // just created, owner not written yet
    try {
      process.kill(pid, 0); // signal 0: only asks whether the process exists
      return false;
    } catch (err) {
      return !!err && typeof err === "object" && "code" in err && err.code === "ESRCH"; // an interrupted build
    }
  } catch {
    return false; // released meanwhile, or owner file not there yet
  }
}

/**
 * Runs `fn` holding the lock `lockDir` (its parent folder must exist); `onWait` is told once when
 * another process holds it.
 * @template T
 * @param {string} lockDir
 * @param {() => Promise<T>} fn
 * @param {{ onWait?: () => void }} [options]
 * @returns {Promise<T>}
 */
export async function withLock(lockDir, fn, options = {}) {
  let told = false;
  for (;;) {
    try {
      mkdirSync(lockDir); // atomic: exactly one process succeeds
      writeFileSync(path.join(lockDir, "pid"), String(process.pid));
      break;
    } catch (err) {
      if (!err || typeof err !== "object" || !("code" in err) || err.code !== "EEXIST") throw err;
    }
    if (lockIsStale(lockDir)) {
      rmSync(lockDir, { recursive: true, force: true });
      continue;
    }
    if (!told) options.onWait?.();
    told = true;
    await new Promise((r) => setTimeout(r, 250));
  }
  const beat = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(lockDir, now, now);
    } catch {}
  }, HEARTBEAT_MS);
  beat.unref();
  try {
    return await fn();
  } finally {
    clearInterval(beat);
    rmSync(lockDir, { recursive: true, force: true });
  }
}
