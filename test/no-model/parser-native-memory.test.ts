// parseToolCalls checks values with the dialect's own grammar, compiled natively. In a
// synchronous loop garbage collection cannot run the native finalizers, so what the parser keeps
// must be bounded and what it evicts freed at once: 5,000 calls with distinct maxLengths reached
// 16.5 GB (OOM) when each grammar waited for the event loop to turn.
import { expect, it } from "vitest";
import { getDialect, parseToolCalls } from "../../src/index.js";

it("keeps native memory bounded through 2,000 calls with distinct schemas in a synchronous loop", () => {
  const dialect = getDialect("hermes");
  const rss0 = process.memoryUsage().rss;
  let peak = 0;
  for (let i = 0; i < 2000; i++) {
    const tools = [
      {
        type: "function",
        function: {
          name: "f",
          parameters: { type: "object", properties: { s: { type: "string", maxLength: 300 + i } }, required: ["s"] },
        },
      },
    ];
    const r = parseToolCalls(`<tool_call>\n{"name": "f", "arguments": {"s": "v${i}"}}\n</tool_call>`, {
      dialect,
      tools,
    });
    expect(r.toolCalls.length).toBe(1);
    if (i % 100 === 0) peak = Math.max(peak, process.memoryUsage().rss - rss0);
  }
  peak = Math.max(peak, process.memoryUsage().rss - rss0);
  expect(peak / 2 ** 20, "RSS growth (MB) over the loop").toBeLessThan(600);
});
