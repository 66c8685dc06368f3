// The agent loop's public surface.
export { runAgent } from "./run-agent.js";
export { serializeHistory, parseHistory } from "./history.js";
export { isTruncatedFinish } from "./request-options.js";
export type * from "./types.js";
