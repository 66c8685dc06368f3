export interface AgentClient {
  id: string;
  package: string;
  version: string;
  bin: string;
  api: string;
}
export const AGENT_CLIENTS: AgentClient[];
export function tail(s?: string, n?: number): string;
export function installDir(root: string, spec: { package: string; version: string }): string;
export function installedBin(root: string, client: AgentClient): string | undefined;
export function installPackage(root: string, spec: { package: string; version: string }, log?: (m: string) => void): string;
export function baseEnv(home: string): Record<string, string>;
export function runChild(
  cmd: string,
  args: string[],
  o: { env: Record<string, string | undefined>; cwd: string; timeoutMs: number },
): Promise<{ code: number | null; signal: string | null; timedOut: boolean; output: string }>;
