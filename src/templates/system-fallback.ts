// System messages a chat template cannot render where they stand: one a dialect's prompt added
// (src/dialects/prompt.ts) for a template without a system role, and one a client sent after the
// conversation's start (Claude Code sends its environment as a system message after the first user
// message) for a template that renders a system message only first, or not at all.
import { ChatTemplateError, type ChatMessage } from "./render.js";

/**
 * Renders `messages`, trying in turn:
 * 1. the messages as given — kept only if the output holds the text of every system message after
 *    the first message (a template may drop those silently: Llama 3.x renders `messages[0]` only);
 * 2. those later system messages moved to the front, their text after the leading system
 *    message's (each in its own paragraph);
 * 3. where a template has no system role (Gemma 2 raises "System role not supported"), the leading
 *    system message's text opening the first user message instead, as minja's polyfill does — for
 *    a system message this side added or moved (`rewritten`), never the client's own first one.
 * The first error is what the caller sees when none renders; a render that drops a later system
 * message's text is an error too, never a prompt without it.
 */
export function renderWithSystemFallback(
  render: (m: ChatMessage[]) => string,
  messages: ChatMessage[],
  rewritten: boolean,
): string {
  const tries = attempts(messages, rewritten);
  let first: unknown;
  for (const [i, candidate] of tries.entries()) {
    try {
      const out = render(candidate);
      if (i > 0 || keepsLaterSystems(out, messages)) return out;
      first ??= droppedError(messages);
    } catch (err) {
      first ??= err;
    }
  }
  throw first;
}

/** renderWithSystemFallback for a render that answers later (render-thread.ts). */
export async function renderWithSystemFallbackAsync(
  render: (m: ChatMessage[]) => Promise<string>,
  messages: ChatMessage[],
  rewritten: boolean,
): Promise<string> {
  const tries = attempts(messages, rewritten);
  let first: unknown;
  for (const [i, candidate] of tries.entries()) {
    try {
      const out = await render(candidate);
      if (i > 0 || keepsLaterSystems(out, messages)) return out;
      first ??= droppedError(messages);
    } catch (err) {
      first ??= err;
    }
  }
  throw first;
}

/** The text of a message's content: a string, or its text parts joined. */
function textOf(m: ChatMessage): string {
  if (typeof m.content === "string") return m.content;
  if (!Array.isArray(m.content)) return "";
  return m.content
    .map((p) =>
      p && typeof p === "object" && typeof (p as { text?: unknown }).text === "string"
        ? (p as { text: string }).text
        : "",
    )
    .join("");
}

/** Indexes of the system messages after the first message. */
const laterSystems = (messages: ChatMessage[]): number[] =>
  messages.flatMap((m, i) => (i > 0 && m.role === "system" ? [i] : []));

/** Every later system message's text (trimmed, as templates often trim) is in `out`. */
function keepsLaterSystems(out: string, messages: ChatMessage[]): boolean {
  return laterSystems(messages).every((i) => out.includes(textOf(messages[i]!).trim()));
}

function droppedError(messages: ChatMessage[]): ChatTemplateError {
  const at = laterSystems(messages).join(", ");
  return new ChatTemplateError(
    `chat template: it leaves out the system message(s) at messages[${at}] and renders none moved to the front either; send that text in the first system message or in a user message`,
    undefined,
  );
}

/** The message lists to try, in order (see renderWithSystemFallback). */
function attempts(messages: ChatMessage[], rewritten: boolean): ChatMessage[][] {
  const later = laterSystems(messages);
  const out = [messages];
  let base = messages;
  if (later.length > 0) {
    const texts = later.map((i) => textOf(messages[i]!));
    const rest = messages.filter((_, i) => !later.includes(i));
    const [head, ...tail] = rest;
    base =
      head?.role === "system"
        ? [{ ...head, content: [textOf(head), ...texts].join("\n\n") }, ...tail]
        : [{ role: "system", content: texts.join("\n\n") }, ...rest];
    out.push(base);
  }
  const folded = (rewritten || later.length > 0) && foldedSystem(base);
  if (folded) out.push(folded);
  return out;
}

/** `messages` with the leading system message folded into the first user message, or undefined. */
function foldedSystem(messages: ChatMessage[]): ChatMessage[] | undefined {
  const [system, ...rest] = messages;
  const userAt = rest.findIndex((m) => m?.role === "user");
  if (system?.role !== "system" || userAt < 0 || typeof system.content !== "string") return undefined;
  const user = rest[userAt]!;
  const folded = { ...user, content: `${system.content}\n${textOf(user)}` };
  return [...rest.slice(0, userAt), folded, ...rest.slice(userAt + 1)];
}
