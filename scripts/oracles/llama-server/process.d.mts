import type { ChildProcess } from "node:child_process";

export declare const LLAMA_SERVER_START_MS: number;
export interface LlamaServerProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  kill: () => Promise<void>;
}
export declare function startLlamaServer(
  model: string,
  args?: string[],
  options?: { log?: (line: string) => void; startMs?: number; binary?: string },
): Promise<LlamaServerProcess>;
export interface LlamaServerBuildInfo {
  binary: string;
  version: string;
  release: string | null;
  sourceCommit: string | null;
  strategy: string | null;
}
export declare function llamaServerBuildInfo(binary?: string): LlamaServerBuildInfo;
