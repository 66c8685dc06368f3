// Types of known-refused.mjs.
export const KNOWN_REFUSED: Readonly<Record<string, string>>;
