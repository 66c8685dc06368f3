// What the generation routes run with: the backend, the server's defaults, its slots and the
// generations in flight.
import type { ChatBackend } from "../engine/chat-backend.js";
import type { ModelNames } from "./model-names.js";
import type { Redact } from "./redact.js";
import type { Slots } from "./slots.js";

export interface ChatContext extends ModelNames {
  backend: ChatBackend;
  slots: Slots;
  /** The tool-call dialect to use instead of the one detected from the chat template. */
  dialect: string | undefined;
  /** The temperature of a request that sends none (ServerOptions.temperature); undefined: the engine's default. */
  temperature: number | undefined;
  /** false: every token is sampled (GenerateOptions.fastForward). */
  fastForward: boolean;
  /** GenerateOptions.strictFormats for every request. */
  strictFormats: boolean;
  /** Milliseconds between keepalives while a stream waits for its next event (prefill, a long step); 0: none. */
  keepaliveMs: number;
  /** false: no request reads or leaves the prompt cache (GenerateOptions.cachePrompt). */
  cachePrompt: boolean;
  /** Generations in flight, so that closing the server can stop them. */
  active: Set<AbortController>;
  /** Sees errors answered with a 5xx (our faults), for logging. */
  onError: ((err: unknown) => void) | undefined;
  /** Rewrites what an error message sent to a client must not reveal (the model's path). */
  redact: Redact;
}
