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
    try {
      return render([...rest.slice(0, userAt), folded, ...rest.slice(userAt + 1)]);
    } catch {
      throw err;
    }
  }
}
