// Types of real-answers.mjs (for the TypeScript tests that import it).
export interface CallView { function: { name: string; arguments: string } }
export interface IncompleteView { kind: "cut" | "invalid"; reason: string }
export interface AnswerInput {
  finishReason: "stop" | "tool_calls" | "length";
  toolCalls: CallView[];
  incomplete: IncompleteView[];
  completionTokens: number;
  endedByModel: boolean;
  text: string;
  content?: string | null;
}
export interface RequestView { tools: unknown[]; toolChoice?: unknown; parallel?: boolean; maxTokens: number; trigger?: string; callsAlone?: boolean; opening?: { text: string; atStart: boolean; before?: string; headDecides?: boolean; name?: NameForm } }
/** How a call's name follows its opening: the text before it (a regular expression's source) and what ends it. */
export interface NameForm { lead: string; closes: string[] }
export function namesUndeclared(after: string, form: NameForm, names: string[]): boolean;
export interface AnswerVerdict { cut: boolean; valid: boolean; calls: number; problems: string[] }
export function callProblem(call: CallView, request: RequestView): string;
export function answerVerdict(answer: AnswerInput, request: RequestView): AnswerVerdict;
export function cutProblem(answer: Pick<AnswerInput, "toolCalls" | "incomplete" | "text">, replayComplete: boolean, trigger: string | undefined): string;
