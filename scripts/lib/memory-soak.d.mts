import type { VariedOptions } from "./varied-requests.mjs";

export interface ServeChild {
  url: string;
  pid: number;
  rssMb(): number;
  /** The RSS after a full garbage collection in the server, less the heap's free pages. */
  rssAfterGcMb(): Promise<number>;
  stderr(): string;
  stop(): Promise<void>;
}
export function startServeChild(o: {
  root: string;
  model: string;
  cacheMb?: number | null;
  args?: string[];
}): Promise<ServeChild>;
export function rssMbOf(pid: number): number;
export interface SoakResult {
  samples: Array<{ requests: number; rssMb: number }>;
  statuses: Record<string, number>;
  seconds: number;
  idleRssMb: number;
  peakMb: number;
  /** The RSS after a full garbage collection, at the end (servers with rssAfterGcMb). */
  afterGcMb: number;
  grownMb: number;
}
export function runSoak(
  server: ServeChild,
  o: {
    requests: number;
    seed?: number;
    mix: VariedOptions;
    concurrency?: number;
    every?: number;
    idleMs?: number;
    log?: (line: string) => void;
  },
): Promise<SoakResult>;
