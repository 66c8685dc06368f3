// CPU time of processes, for benchmarks that set one engine's figure beside another's on a shared
// machine (the CPU time a piece of work costs moves less with the load than its wall time).
import { readFileSync } from "node:fs";

/** CPU milliseconds another process has used (user + system), from /proc/PID/stat (Linux; 10 ms ticks). */
export function cpuOf(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

/** CPU milliseconds this process has used, all its threads. */
export function ownCpu() {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
}
