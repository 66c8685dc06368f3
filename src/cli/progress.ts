// Progress on stderr, only where someone watches it (a terminal) or asked for it (--progress):
// pipes and test logs stay clean.

export interface Progress {
  /** fraction in 0..1; detail is shown after the percentage. */
  update(fraction: number, detail?: string): void;
  done(detail?: string): void;
}

const WIDTH = 24;
const quiet: Progress = { update() {}, done() {} };

export function progress(label: string, asked: boolean): Progress {
  const tty = process.stderr.isTTY === true;
  if (!tty && !asked) return quiet;
  let lastStep = -1;
  const line = (f: number, detail?: string) => {
    const n = Math.round(Math.max(0, Math.min(1, f)) * WIDTH);
    return `${label} [${"#".repeat(n)}${"-".repeat(WIDTH - n)}] ${String(Math.floor(f * 100)).padStart(3)}%${detail ? ` ${detail}` : ""}`;
  };
  return {
    update(f, detail) {
      if (tty) process.stderr.write(`\r${line(f, detail)}\x1b[K`);
      else {
        // Not a terminal: one line per tenth, so logs stay short; done() writes the last one.
        const step = Math.floor(f * 10);
        if (step < 10 && step !== lastStep) {
          lastStep = step;
          process.stderr.write(`${line(f, detail)}\n`);
        }
      }
    },
    done(detail) {
      process.stderr.write(tty ? `\r${line(1, detail)}\x1b[K\n` : `${line(1, detail)}\n`);
    },
  };
}
