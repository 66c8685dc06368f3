// opencode's config for a run against a toolmask server: its opencode.json under `home`
// (~/.config/opencode), one openai-compatible provider holding one model, and the tools left off.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface OpencodeModel {
  /** The server's root URL (its /v1 is the provider's baseURL). */
  baseUrl: string;
  /** The model's name, sent as the request's model. */
  model: string;
  /** What opencode assumes of it: its context, and `max_tokens` for each request. */
  context: number;
  output: number;
  /** opencode's tools to leave out of its requests. */
  off?: string[];
}

export function writeOpencodeConfig(home: string, m: OpencodeModel): void {
  const config = path.join(home, ".config", "opencode");
  mkdirSync(config, { recursive: true });
  writeFileSync(
    path.join(config, "opencode.json"),
    JSON.stringify({
      provider: {
        toolmask: {
          npm: "@ai-sdk/openai-compatible",
          name: "toolmask",
          options: { baseURL: `${m.baseUrl}/v1`, apiKey: "unused" },
          models: { [m.model]: { name: m.model, limit: { context: m.context, output: m.output } } },
        },
      },
      model: `toolmask/${m.model}`,
      ...(m.off ? { tools: Object.fromEntries(m.off.map((t) => [t, false])) } : {}),
    }),
  );
}
