// The one line gpu: "auto" prints when it ends up on the CPU, so a user expecting their GPU finds
// out at once instead of from slow tokens. Once per process, on stderr; TOOLMASK_QUIET=1 or an
// explicit gpu: false silences it.
let shown = false;

export function cpuFallbackNotice(reason: string): string {
  return `toolmask: no GPU in use, decoding on the CPU (${reason}); pass gpu: false or set TOOLMASK_QUIET=1 to silence this`;
}

export function noticeCpuFallback(reason: string): void {
  if (shown || /^(1|true|yes)$/i.test(process.env.TOOLMASK_QUIET ?? "")) return;
  shown = true;
  process.stderr.write(`${cpuFallbackNotice(reason)}\n`);
}
