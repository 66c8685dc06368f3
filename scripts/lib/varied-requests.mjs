// Requests that each bring tool schemas of their own, for the three generation routes
// (/v1/chat/completions, /v1/messages, /v1/responses), streamed or not: what the memory soak
// (scripts/bench/bench-memory.mjs, test/test-model/server-memory-soak.test.ts) sends. Request i is a
// function of (seed, i) alone.
import { rng } from "./rng.mjs";

export const ROUTES = ["chat", "messages", "responses"];

const int = (r, lo, hi) => lo + Math.floor(r() * (hi - lo + 1));

/** One parameter schema: strings with bounds or formats, integers and numbers with ranges, enums, arrays, objects. */
function valueSchema(r, i, depth) {
  const k = int(r, 0, depth > 0 ? 7 : 9);
  switch (k) {
    case 0:
      return { type: "string", maxLength: int(r, 4, 120) };
    case 1:
      return { type: "string", minLength: int(r, 1, 5), maxLength: int(r, 6, 40) };
    case 2:
      return { type: "string", enum: Array.from({ length: int(r, 2, 6) }, (_, j) => `v${i}_${j}`) };
    case 3:
      return { type: "integer", minimum: -int(r, 0, 1000), maximum: int(r, 1, 100000) + i };
    case 4:
      return { type: "number" };
    case 5:
      return { type: "boolean" };
    case 6:
      return { type: "string", pattern: `^[a-z]{${int(r, 1, 4)},${int(r, 5, 12)}}$` };
    case 7:
      return { anyOf: [{ type: "string", maxLength: int(r, 2, 30) }, { type: "integer" }, { type: "null" }] };
    case 8:
      return { type: "array", items: valueSchema(r, i, depth + 1), maxItems: int(r, 1, 8) };
    default:
      return objectSchema(r, i, depth + 1);
  }
}

function objectSchema(r, i, depth) {
  const n = int(r, 1, depth > 0 ? 3 : 5);
  const properties = {};
  for (let j = 0; j < n; j++) properties[`p${i}_${depth}_${j}`] = valueSchema(r, i, depth);
  const names = Object.keys(properties);
  return { type: "object", properties, required: names.filter(() => r() < 0.7) };
}

/** Request i's tools: 1-3 functions named after i, each with a schema of its own. */
export function variedTools(seed, i) {
  const r = rng(seed * 1_000_003 + i);
  return Array.from({ length: int(r, 1, 3) }, (_, t) => ({
    name: `tool_${i}_${t}`,
    description: `tool ${t} of request ${i}`,
    parameters: objectSchema(r, i, 0),
  }));
}

/**
 * Request i of the mix: its route (taking turns), whether it streams (every other turn), its tools,
 * a call required half of the time, `maxTokens` per answer. Every `callEvery`-th request (0: none)
 * is instead one that writes a call the parser reads (its values checked by the parser's value
 * grammars): chat completions, the first tool alone, a call required, `callMaxTokens`, and
 * `callBias` (a logit bias that makes a random-weight model call and stop; see
 * test/support/server-fixtures.ts WANTS_TO_CALL).
 */
export function variedRequest(seed, i, o) {
  const { maxTokens, routes = ROUTES, callEvery = 0, callMaxTokens = 64, callBias } = o;
  const tools = variedTools(seed, i);
  const text = `request ${i}: call one of the tools`;
  if (callEvery > 0 && i % callEvery === callEvery - 1)
    return {
      route: "chat",
      stream: false,
      call: true,
      path: "/v1/chat/completions",
      body: {
        model: "test",
        messages: [{ role: "user", content: text }],
        max_tokens: callMaxTokens,
        tool_choice: "required",
        ...(callBias ? { logit_bias: callBias } : {}),
        tools: [{ type: "function", function: tools[0] }],
      },
    };
  const route = routes[i % routes.length];
  const stream = Math.floor(i / routes.length) % 2 === 1;
  const required = i % 4 < 2;
  if (route === "chat")
    return {
      route,
      stream,
      path: "/v1/chat/completions",
      body: {
        model: "test",
        messages: [{ role: "user", content: text }],
        max_tokens: maxTokens,
        stream,
        tool_choice: required ? "required" : "auto",
        tools: tools.map((t) => ({ type: "function", function: t })),
      },
    };
  if (route === "messages")
    return {
      route,
      stream,
      path: "/v1/messages",
      body: {
        model: "test",
        messages: [{ role: "user", content: text }],
        max_tokens: maxTokens,
        stream,
        tool_choice: { type: required ? "any" : "auto" },
        tools: tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })),
      },
    };
  return {
    route,
    stream,
    path: "/v1/responses",
    body: {
      model: "test",
      input: text,
      max_output_tokens: maxTokens,
      stream,
      tool_choice: required ? "required" : "auto",
      tools: tools.map((t) => ({
        type: "function",
        name: t.name,
        description: t.description,
        parameters: t.parameters,
      })),
    },
  };
}

/** Sends one request and reads its whole answer: the HTTP status. */
export async function sendVaried(baseUrl, req, signal) {
  const res = await fetch(`${baseUrl}${req.path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "unused", "anthropic-version": "2023-06-01" },
    body: JSON.stringify(req.body),
    signal,
  });
  await res.text();
  return res.status;
}
