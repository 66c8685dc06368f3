// Types of real-cases.mjs (for the TypeScript tests that import it).
export interface OpenAITool { type: "function"; function: { name: string; description: string; parameters: { type: "object"; properties: Record<string, unknown>; required: string[] } } }
export type CaseChoice = "auto" | "required" | "named" | "none";
export interface RealCase {
  id: number;
  prompt: string;
  tools: OpenAITool[];
  toolChoice: "auto" | "required" | "none" | { type: "function"; function: { name: string } };
  choice: CaseChoice;
  parallel: boolean;
}
export const TOOLS: Record<string, OpenAITool>;
export function realCases(): RealCase[];
export function sampleCases(n: number): RealCase[];
