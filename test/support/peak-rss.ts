// The process's peak resident memory over a stretch of work. On Linux the peak (VmHWM) is reset to
// the current RSS first (writing 5 to /proc/self/clear_refs), so an earlier, higher peak cannot hide
// this one; elsewhere getrusage's lifetime peak is all there is, and a growth can be under-reported.
import { existsSync, readFileSync, writeFileSync } from "node:fs";

const LINUX = existsSync("/proc/self/clear_refs");
const mb = (kb: number) => kb / 1024;

function hwmKb(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
  return m ? Number(m[1]) : process.resourceUsage().maxRSS;
}

/** Starts a measurement; the function it returns gives the peak's growth over the start, in MB. */
export function peakGrowth(): () => number {
  if (LINUX) writeFileSync("/proc/self/clear_refs", "5");
  const start = LINUX ? process.memoryUsage().rss / 1024 : process.resourceUsage().maxRSS;
  return () => mb((LINUX ? hwmKb() : process.resourceUsage().maxRSS) - start);
}
