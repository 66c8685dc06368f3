// A system message that a dialect's prompt added (src/dialects/prompt.ts), for a template without
// a system role.
import { ChatTemplateError, type ChatMessage } from "./render.js";

/**
 * Renders `messages`; when a system message we added is refused by a template without a system
 * role (Gemma 2 raises "System role not supported"), its text opens the first user message instead,
 * as minja's polyfill does. The template's own error is what the caller sees when that fails too.
 */
export function renderWithSystemFallback(
  render: (m: ChatMessage[]) => string,
  messages: ChatMessage[],
  rewritten: boolean,
): string {
  try {
    return render(messages);
  } catch (err) {
    const folded = foldedSystem(err, messages, rewritten);
    try {
      return render(folded);
    } catch {
      throw err;
    }
  }
}

/** renderWithSystemFallback for a render that answers later (render-thread.ts). */
export async function renderWithSystemFallbackAsync(
  render: (m: ChatMessage[]) => Promise<string>,
  messages: ChatMessage[],
  rewritten: boolean,
): Promise<string> {
  try {
    return await render(messages);
  } catch (err) {
    const folded = foldedSystem(err, messages, rewritten);
    try {
      return await render(folded);
    } catch {
      throw err;
    }
  }
}

/** The messages with our system message folded into the first user message; rethrows `err` when that does not apply. */
function foldedSystem(err: unknown, messages: ChatMessage[], rewritten: boolean): ChatMessage[] {
  const [system, ...rest] = messages;
  const userAt = rest.findIndex((m) => m?.role === "user");
  if (
    !rewritten ||
    !(err instanceof ChatTemplateError) ||
    system?.role !== "system" ||
    userAt < 0 ||
    typeof system.content !== "string"
  )
    throw err;
  const user = rest[userAt]!;
  const folded = { ...user, content: `${system.content}\n${typeof user.content === "string" ? user.content : ""}` };
  return [...rest.slice(0, userAt), folded, ...rest.slice(userAt + 1)];
}
