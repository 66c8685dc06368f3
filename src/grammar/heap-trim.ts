// Freed native memory handed back to the system. glibc keeps what a thread frees for that thread's
// arena to reuse, so grammars evicted from the caches left the process's RSS where it was
// (+463 MB after 40 varied grammars were dropped, +2 MB after malloc_trim; node
// scripts/bench/bench-memory.mjs). After evictions the allocator is asked to hand its free pages
// back (malloc_trim on a worker thread: 151 ms for ~190 MB there): at once each time
// TRIM_EVERY_BYTES were evicted, and once more when nothing was evicted for IDLE_MS (a grammar a
// generation still held when it was evicted goes when that generation ends).
import { loadNative } from "../native.js";

/** Bytes evicted between two trims while evictions go on. */
export const TRIM_EVERY_BYTES = 16 * 1024 * 1024;
/** Quiet time after the last eviction before the last trim. */
export const IDLE_MS = 1000;

let evicted = 0; // since the last trim
let dirty = false; // evictions since the last idle trim
let running: Promise<unknown> | undefined;
let again = false;
let timer: ReturnType<typeof setTimeout> | undefined;

/** Records that the caches dropped `bytes` of grammars; trims when enough were dropped, or later when idle. */
export function noteEvicted(bytes: number): void {
  evicted += bytes;
  dirty = true;
  if (evicted >= TRIM_EVERY_BYTES) trim();
  trimWhenIdle();
}

/** (Re)starts the idle timer when grammars were dropped since the last idle trim. */
export function trimWhenIdle(): void {
  if (!dirty) return;
  if (timer) clearTimeout(timer);
  timer = setTimeout(() => {
    timer = undefined;
    dirty = false;
    trim();
  }, IDLE_MS);
  timer.unref();
}

function trim(): void {
  evicted = 0;
  if (running) {
    again = true;
    return;
  }
  let native;
  try {
    native = loadNative();
  } catch {
    return;
  }
  running = native
    .trimNativeHeap()
    .catch(() => false)
    .finally(() => {
      running = undefined;
      if (again) {
        again = false;
        trim();
      }
    });
}

/** @internal Trims now and resolves when no trim runs (tests, and the memory benchmark). */
export async function trimNativeHeapNow(): Promise<void> {
  trim();
  while (running) await running;
}
