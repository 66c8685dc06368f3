// A thinking block's `signature` with the thought inside it. With `thinking.display: "omitted"`
// Anthropic's API returns thinking blocks whose `thinking` is "" and whose opaque `signature`
// carries the thought back to it on the next turn; this server does the same with a signature it
// can read: the thought's UTF-8 in base64 after a version prefix. A client sends the block back as
// it got it, and the thought reaches the template again as the turn's reasoning.
const PREFIX = "toolmask.thought.v1.";

/** The signature that carries `thought`. */
export const sealThought = (thought: string): string => PREFIX + Buffer.from(thought, "utf8").toString("base64");

/** The thought a signature of sealThought carries; undefined for any other signature. */
export function openThought(signature: unknown): string | undefined {
  if (typeof signature !== "string" || !signature.startsWith(PREFIX)) return undefined;
  const body = signature.slice(PREFIX.length);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body) || body.length % 4 !== 0) return undefined;
  const thought = Buffer.from(body, "base64").toString("utf8");
  // a signature that is not the base64 of well-formed UTF-8 is not one this server wrote
  return sealThought(thought) === signature ? thought : undefined;
}
