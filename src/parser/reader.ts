// What the stream parser (stream.ts) asks of the reader of one call kind: marker-delimited calls
// (read-markers.ts), harmony messages (read-harmony.ts), JSON envelopes (read-envelope.ts).
import type { TextBuffer } from "./text.js";
import type { DroppedConstruct, IncompleteCall, StreamEvent, ToolCall } from "./types.js";

/** Where a reader puts what it settles (the stream parser's own result). */
export interface ReaderSink {
  content(s: string): void;
  reasoning(s: string): void;
  events: StreamEvent[];
  calls: ToolCall[];
  incomplete: IncompleteCall[];
  dropped: DroppedConstruct[];
}

export interface OutputReader {
  /** Reads what `t` holds past what was settled; `final`: the output is over. */
  run(t: TextBuffer, final: boolean, out: ReaderSink): void;
  /** Nothing before this offset will be read again. */
  keepFrom(): number;
}
