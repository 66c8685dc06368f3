// A gateway (our server, engine "openai") in front of an upstream that runs one tool turn: while
// the conversation holds no tool result it calls the tool it is given, then it answers one line
// made from the last tool result's text. What each request to the upstream held is kept, so a test
// sees the client's tool result go back. A request that offers no tools (a client's side request,
// such as opencode's title for the session) is answered with one line.
import { answeringGateway, type ReasoningGateway, type UpstreamRequest } from "./reasoning-upstream.js";

export interface ToolTurnGateway extends ReasoningGateway {
  /** The chat requests the upstream answered, in order. */
  requests: UpstreamRequest[];
}

/** The text of a chat message's content: a string, or its text parts joined. */
export function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((p) => (p && typeof p === "object" && "text" in p ? String(p.text) : "")).join("");
  return "";
}

/**
 * The upstream answers `call` (one call, arguments as JSON) until a `tool` message is in the
 * conversation, then `final(text of the last tool message)` as its content.
 */
export async function toolTurnGateway(
  call: { name: string; arguments: Record<string, unknown> },
  final: (toolResult: string) => string,
): Promise<ToolTurnGateway> {
  const requests: UpstreamRequest[] = [];
  const gateway = await answeringGateway((body) => {
    requests.push(body);
    if (!body.tools?.length) return { content: "A side answer" };
    const results = (body.messages ?? []).filter((m) => m.role === "tool");
    if (results.length === 0)
      return { calls: [{ id: `call_${requests.length}`, name: call.name, arguments: JSON.stringify(call.arguments) }] };
    return { content: final(messageText(results.at(-1)?.content)) };
  });
  return { ...gateway, requests };
}

/** What the client tests put in notes.txt: a number only the tool's result can tell. */
export const NOTE_TEXT = "The number is 4721.\n";
/** The final line the upstream makes from the tool's result: "notes.txt says: 4721" when the file's text came back. */
export const noteAnswer = (toolResult: string): string =>
  `notes.txt says: ${/The number is (\d+)/.exec(toolResult)?.[1] ?? "nothing"}`;
export const NOTE_ANSWER = noteAnswer(NOTE_TEXT);
