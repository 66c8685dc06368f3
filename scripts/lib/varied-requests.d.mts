export const ROUTES: string[];
export interface VariedTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}
export function variedTools(seed: number, i: number): VariedTool[];
export interface VariedRequest {
  route: string;
  stream: boolean;
  call?: boolean;
  path: string;
  body: Record<string, unknown>;
}
export interface VariedOptions {
  maxTokens: number;
  routes?: string[];
  callEvery?: number;
  callMaxTokens?: number;
  callBias?: Record<string, number>;
}
export function variedRequest(seed: number, i: number, o: VariedOptions): VariedRequest;
export function sendVaried(baseUrl: string, req: VariedRequest, signal?: AbortSignal): Promise<number>;
