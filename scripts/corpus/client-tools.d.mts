export interface FixtureTool {
  type: string;
  name?: string;
  parameters?: Record<string, unknown>;
  tools?: FixtureTool[];
}
export interface ClientToolFixture {
  package: string;
  version: string;
  captured: string;
  tools: FixtureTool[];
}
export type FunctionTool = { type: "function"; function: { name: string; parameters: Record<string, unknown> } };

export const CLIENT_TOOLS_DIR: string;
export function readClientToolFixtures(dir?: string): Array<readonly [string, ClientToolFixture]>;
export function functionTools(fixture: ClientToolFixture): FunctionTool[];
export function callObjectSchema(tools: FunctionTool[]): { anyOf: Record<string, unknown>[] };
