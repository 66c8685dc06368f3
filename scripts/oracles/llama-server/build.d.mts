export declare const llamaServerDir: string;
export declare const llamaServerBinary: string;
export declare const STRATEGIES: readonly ["prebuilt", "cmake"];
export declare const DEFAULT_STRATEGY: "prebuilt";
export declare function buildLlamaServer(options?: {
  force?: boolean;
  log?: (line: string) => void;
  strategy?: "prebuilt" | "cmake";
  jobs?: number;
}): Promise<string>;
