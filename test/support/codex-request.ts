// Requests shaped as Codex CLI 0.171.0 sends them to a `wire_api = "responses"` provider (read
// from its requests to a loopback server; the prompt itself is not reproduced): the fields and
// headers it adds, and each kind of tool it declares — function tools, a `namespace` of
// functions, the hosted `web_search`, a client-run `tool_search`, and `apply_patch` as a `custom`
// tool whose input follows a Lark grammar.
import type { ResponseCreateParamsStreaming } from "openai/resources/responses/responses";

/** Codex's apply_patch grammar (its `format.definition`, as Codex 0.171.0 sends it). */
export const APPLY_PATCH_LARK = `start: begin_patch hunk+ end_patch
begin_patch: "*** Begin Patch" LF
end_patch: "*** End Patch" LF?

hunk: add_hunk | delete_hunk | update_hunk
add_hunk: "*** Add File: " filename LF add_line+
delete_hunk: "*** Delete File: " filename LF
update_hunk: "*** Update File: " filename LF change_move? change?

filename: /(.+)/
add_line: "+" /(.*)/ LF -> line

change_move: "*** Move to: " filename LF
change: (change_context | change_line)+ eof_line?
change_context: ("@@" | "@@ " /(.+)/) LF
change_line: ("+" | "-" | " ") /(.*)/ LF
eof_line: "*** End of File" LF

%import common.LF
`;

/** The same language as APPLY_PATCH_LARK, written by hand as a JavaScript RegExp: the tests' oracle. */
export const APPLY_PATCH_RE = new RegExp(
  [
    "^\\*\\*\\* Begin Patch\\n",
    "(?:",
    "\\*\\*\\* Add File: .+\\n(?:\\+.*\\n)+",
    "|\\*\\*\\* Delete File: .+\\n",
    "|\\*\\*\\* Update File: .+\\n(?:\\*\\*\\* Move to: .+\\n)?(?:(?:(?:@@|@@ .+)\\n|[-+ ].*\\n)+(?:\\*\\*\\* End of File\\n)?)?",
    ")+",
    "\\*\\*\\* End Patch\\n?$",
  ].join(""),
  "u",
);

/** Patches as Codex writes them: APPLY_PATCH_RE accepts each. */
export const PATCHES = [
  "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch",
  "*** Begin Patch\n*** Add File: a.txt\n+hi\n+\n*** End Patch\n",
  "*** Begin Patch\n*** Delete File: old.md\n*** End Patch\n",
  "*** Begin Patch\n*** Update File: src/x.ts\n@@ function f\n-a\n+b\n c\n*** End of File\n*** End Patch\n",
  "*** Begin Patch\n*** Update File: x\n*** Move to: y\n*** End Patch\n",
  "*** Begin Patch\n*** Update File: x\n@@\n@@ g\n+z\n*** Delete File: q\n*** End Patch",
];
/** Near misses: APPLY_PATCH_RE refuses each. */
export const NOT_PATCHES = [
  "",
  "*** Begin Patch\n*** End Patch\n",
  "*** Begin Patch\n*** Add File: a.txt\n*** End Patch\n",
  "*** Begin Patch\n*** Add File: a.txt\nhi\n*** End Patch\n",
  "*** Begin Patch\n*** Delete File: \n*** End Patch\n",
  "*** Begin Patch\n*** Update File: x\n-a\n*** End Patch\n\n",
  "*** Begin Patch\n*** Update File: x\n?a\n*** End Patch\n",
  '{"input": "*** Begin Patch"}',
  "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\nmore",
];

/** The headers Codex sends besides content-type, accept and authorization. */
export const CODEX_HEADERS: Record<string, string> = {
  "x-codex-beta-features": "remote_compaction_v2",
  "x-codex-window-id": "01a2-thread:0",
  "x-codex-turn-metadata": JSON.stringify({ session_id: "01a2-thread", turn_id: "01a2-turn", sandbox: "seccomp" }),
  "x-client-request-id": "01a2-thread",
  "session-id": "01a2-thread",
  "thread-id": "01a2-thread",
  originator: "codex_exec",
  "user-agent": "codex_exec/0.171.0 (Debian 12.0.0; x86_64) dumb (codex_exec; 0.171.0)",
};

export const execCommand = {
  type: "function" as const,
  name: "exec_command",
  description: "Runs a command.",
  strict: false,
  parameters: {
    type: "object",
    properties: { cmd: { type: "string" }, workdir: { type: "string" } },
    required: ["cmd"],
    additionalProperties: false,
  },
};

export const agentsNamespace = {
  type: "namespace" as const,
  name: "multi_agent_v1",
  description: "Tools for spawning and managing sub-agents.",
  tools: [
    {
      type: "function" as const,
      name: "close_agent",
      description: "Close an agent.",
      strict: false,
      parameters: {
        type: "object",
        properties: { target: { type: "string", enum: ["agent-7"] } },
        required: ["target"],
        additionalProperties: false,
      },
    },
    {
      type: "function" as const,
      name: "resume_agent",
      strict: false,
      parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    },
  ],
};

export const webSearch = {
  type: "web_search" as const,
  external_web_access: false,
  search_content_types: ["text", "image"],
};

export const toolSearch = {
  type: "tool_search" as const,
  execution: "client" as const,
  description: "# Tool discovery\n\nSearches over deferred tool metadata.",
  parameters: {
    type: "object",
    properties: { limit: { type: "number" }, query: { type: "string" } },
    required: ["query"],
    additionalProperties: false,
  },
};

export const applyPatch = {
  type: "custom" as const,
  name: "apply_patch",
  description: "Edits files. This is a FREEFORM tool, so do not wrap the patch in JSON.",
  format: { type: "grammar" as const, syntax: "lark" as const, definition: APPLY_PATCH_LARK },
};

/** A first turn as Codex sends it: every field Codex adds, with the given tools. */
export function codexTurn(tools: unknown[], extra: Record<string, unknown> = {}): ResponseCreateParamsStreaming {
  return {
    model: "capture-model",
    stream: true,
    instructions: undefined,
    input: [
      { type: "message", role: "developer", content: [{ type: "input_text", text: "You are a coding agent." }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] },
    ],
    tools,
    tool_choice: "auto",
    parallel_tool_calls: true,
    reasoning: { effort: "medium", summary: "auto" },
    store: false,
    include: ["reasoning.encrypted_content"],
    prompt_cache_key: "01a2-thread",
    text: { verbosity: "low" },
    client_metadata: {
      "x-codex-installation-id": "d16c-install",
      session_id: "01a2-thread",
      "x-codex-turn-metadata": JSON.stringify({ turn_id: "01a2-turn", workspaces: { "/w": { has_changes: false } } }),
    },
    ...extra,
  } as unknown as ResponseCreateParamsStreaming;
}
