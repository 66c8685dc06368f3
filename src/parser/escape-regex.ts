/** `s` as a regular expression that matches exactly `s` (every syntax character escaped). */
export const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
