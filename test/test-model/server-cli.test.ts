// `toolmask serve` as serveCommand(argv): bad flags get a clear message and exit code 2, a model
// that cannot load 1; a good run listens where it says, serves, and stops cleanly (0) on a signal
// — in-process through its abort signal, and as a child process on SIGTERM.
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { serveCommand } from "../../src/server/cli.js";
import {
  DEFAULT_GRAMMAR_CACHE_BYTES,
  grammarCache,
  grammarCacheBudget,
  setGrammarCacheBytes,
} from "../../src/grammar/cache.js";
import { testModelPath } from "../support/test-model.js";
import { ROOT } from "../support/vocabs.js";
import { rawExchange, requestText } from "../support/raw-http.js";
import { fetchWithin, NO_TOKENS } from "../support/timeouts.js";

function io(signal?: AbortSignal) {
  const out: string[] = [],
    err: string[] = [];
  return {
    out,
    err,
    io: {
      out: { write: (s: string) => out.push(s) },
      err: { write: (s: string) => err.push(s) },
      ...(signal ? { signal } : {}),
    },
  };
}

async function serve(argv: string[]) {
  const r = io();
  const code = await serveCommand(argv, r.io);
  return { code, out: r.out.join(""), err: r.err.join("") };
}

describe("toolmask serve flags", () => {
  const model = testModelPath();
  it.each([
    [["--model", model, "--bogus"], /Unknown option '--bogus'/],
    [["--port", "8080"], /--model PATH \(a \.gguf file\) or --upstream URL .* is required/],
    [["--model", model, "--upstream", "http://127.0.0.1:1"], /--model .* or --upstream URL, not both/],
    [["--model", model, "--engine", "vllm"], /--engine goes with --upstream/],
    [["--upstream", "http://127.0.0.1:1"], /--engine must be one of llama-server, vllm, sglang, openai/],
    [["--upstream", "http://127.0.0.1:1", "--engine", "tgi"], /--engine must be one of .*, got "tgi"/],
    [["--upstream", "http://127.0.0.1:1", "--engine", "vllm"], /--engine vllm needs --tokenizer PATH/],
    [["--upstream", "ftp://x", "--engine", "openai"], /--upstream: .* must be http:\/\/ or https:\/\//],
    [["--upstream", "not a url", "--engine", "openai"], /--upstream: .* is not a URL/],
    [["--upstream", "http://u:p@x/", "--engine", "openai"], /no query, fragment or credentials/],
    [
      [
        "--upstream",
        "http://127.0.0.1:1",
        "--engine",
        "llama-server",
        "--tokenizer",
        model,
        "--grammar-syntax",
        "lark",
      ],
      /--grammar-syntax goes with --engine vllm or sglang/,
    ],
    [
      ["--upstream", "http://127.0.0.1:1", "--engine", "vllm", "--tokenizer", model, "--grammar-syntax", "gbnf"],
      /--grammar-syntax must be ebnf or lark/,
    ],
    [["--upstream", "http://127.0.0.1:1", "--engine", "openai", "--threads", "2"], /--threads goes with --model/],
    [
      ["--upstream", "http://127.0.0.1:1", "--engine", "openai", "--no-cache-prompt"],
      /--no-cache-prompt goes with --model: upstream engines cache prompts by their own settings/,
    ],
    [
      ["--upstream", "http://127.0.0.1:1", "--engine", "openai", "--no-exact-prompts"],
      /--no-exact-prompts goes with --model: upstream engines batch by their own settings/,
    ],
    [
      ["--upstream", "http://127.0.0.1:1", "--engine", "openai", "--no-lazy-grammar"],
      /--no-lazy-grammar goes with --engine llama-server/,
    ],
    [
      ["--upstream", "http://127.0.0.1:8081", "--engine", "openai", "--max-upstream-body-mb", "0"],
      /--max-upstream-body-mb must be an integer from 1 to 256, got "0"/,
    ],
    [["--model", model, "--max-upstream-body-mb", "8"], /--max-upstream-body-mb goes with --upstream/],
    [["--model", model, "--port", "70000"], /--port must be an integer from 0 to 65535, got "70000"/],
    [["--model", model, "--port", "http"], /--port must be an integer/],
    [["--model", model, "--parallel", "0"], /--parallel must be an integer from 1/],
    [["--model", model, "--queue=-1"], /--queue must be an integer from 0/],
    [["--model", model, "--threads", "two"], /--threads must be an integer/],
    [["--model", model, "--api-key", ""], /--api-key must not be empty/],
    [["--model", model, "--temperature", "3"], /--temperature must be a number from 0 to 2, got "3"/],
    [["--model", model, "--temperature", "hot"], /--temperature must be a number from 0 to 2, got "hot"/],
    [["--model", model, "extra"], /Unexpected argument 'extra'/],
    [
      ["--model", model, "--headers-timeout", "0"],
      /--headers-timeout must be an integer from 1 to 2147483647 \(milliseconds\)/,
    ],
    [["--model", model, "--request-timeout", "10s"], /--request-timeout must be an integer from 1/],
    [["--model", model, "--idle-timeout=-5"], /--idle-timeout must be an integer from 1/],
    [["--model", model, "--max-connections", "0"], /--max-connections must be an integer from 1/],
    [["--model", model, "--grammar-cache-mb=-1"], /--grammar-cache-mb must be an integer from 0/],
    [
      ["--model", model, "--headers-timeout", "5000", "--request-timeout", "1000"],
      /--headers-timeout \(5000 ms\) must not be longer than --request-timeout \(1000 ms\)/,
    ],
    [
      ["--model", model, "--allowed-hosts", "http://evil.example/"],
      /--allowed-hosts: "http:\/\/evil\.example\/" is not a host name/,
    ],
    [
      ["--model", model, "--allowed-hosts", "box:8080"],
      /--allowed-hosts: "box:8080" is not a host name.*without a port/,
    ],
  ])("%j → exit 2 and says what is wrong", async (argv, message) => {
    const r = await serve(argv);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).toMatch(/toolmask serve --help/);
    expect(r.out).toBe("");
  });

  it("--help prints the usage and exits 0", async () => {
    const r = await serve(["--help"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: toolmask serve --model PATH/);
    for (const flag of ["--host", "--port", "--parallel", "--api-key", "--queue"]) expect(r.out).toContain(flag);
  });

  it("a gateway whose tokenizer file is missing says so and exits 1", async () => {
    const missing = await serve([
      "--upstream",
      "http://127.0.0.1:8089",
      "--engine",
      "vllm",
      "--tokenizer",
      "/nope.gguf",
    ]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/\/nope\.gguf does not exist/);
  });

  it("a missing model file or an unknown dialect exits 1 with the reason", async () => {
    const missing = await serve(["--model", "/nonexistent/m.gguf", "--port", "0"]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/no model file at \/nonexistent\/m\.gguf/);
    const dialect = await serve(["--model", model, "--port", "0", "--dialect", "klingon"]);
    expect(dialect.code).toBe(1);
    expect(dialect.err).toMatch(/unknown dialect "klingon"; known dialects: /);
  });
});

describe("toolmask serve running", () => {
  it("listens on 127.0.0.1 with the flags given, serves, and exits 0 when stopped", async () => {
    const stop = new AbortController();
    const r = io(stop.signal);
    const code = serveCommand(
      [
        "--model",
        testModelPath(),
        "--port",
        "0",
        "--parallel",
        "1",
        "--queue",
        "3",
        "--api-key",
        "k",
        "--threads",
        "1",
      ],
      r.io,
    );
    let url = "";
    for (let i = 0; i < 300 && !url; i++) {
      url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(r.out.join(""))?.[1] ?? "";
      if (!url) await new Promise((res) => setTimeout(res, 50));
    }
    expect(url).not.toBe("");
    expect(r.out.join("")).toMatch(/1 slots, queue 3, API key required/);
    const h = (await (await fetchWithin(NO_TOKENS, `${url}/health`)).json()) as {
      slots: { total: number; max_queue: number };
    };
    expect(h.slots).toMatchObject({ total: 1, max_queue: 3 });
    expect((await fetchWithin(NO_TOKENS, `${url}/v1/models`)).status).toBe(401);
    expect((await fetchWithin(NO_TOKENS, `${url}/v1/models`, { headers: { authorization: "Bearer k" } })).status).toBe(
      200,
    );
    stop.abort();
    expect(await code).toBe(0);
    await expect(fetchWithin(NO_TOKENS, `${url}/health`)).rejects.toThrow();
  });

  it("applies --allowed-hosts, the timeouts and --max-connections", async () => {
    const stop = new AbortController();
    const r = io(stop.signal);
    const code = serveCommand(
      [
        "--model",
        testModelPath(),
        "--port",
        "0",
        "--threads",
        "1",
        "--allowed-hosts",
        "my.box,10.0.0.7",
        "--headers-timeout",
        "200",
        "--request-timeout",
        "400",
        "--idle-timeout",
        "5000",
        "--max-connections",
        "2",
        "--grammar-cache-mb",
        "3",
      ],
      r.io,
    );
    let url = "";
    for (let i = 0; i < 300 && !url; i++) {
      url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(r.out.join(""))?.[1] ?? "";
      if (!url) await new Promise((res) => setTimeout(res, 50));
    }
    expect(url).not.toBe("");
    expect(r.out.join("")).toMatch(/hosts localhost, 127\.0\.0\.1, \[::1\], my\.box, 10\.0\.0\.7/);
    expect(grammarCacheBudget()).toBe(3 * 1024 * 1024);
    expect(grammarCache.maxBytes).toBe(3 * 1024 * 1024 - 3 * Math.floor((3 * 1024 * 1024) / 16)); // the value grammars' and idle shapes' shares aside
    const status = async (host: string) =>
      (
        await rawExchange(url, (s) => {
          s.write(requestText(url, "GET", "/health", { host, connection: "close" }));
        })
      ).status;
    expect(await status("my.box:8080")).toBe(200);
    expect(await status("10.0.0.7")).toBe(200);
    expect(await status("localhost")).toBe(200);
    expect(await status("evil.example")).toBe(403);
    // A connection that sends nothing is answered 408 once --headers-timeout passes.
    const silent = await rawExchange(url, () => {});
    expect(silent.status).toBe(408);
    // Two keep-alive connections, answered and then idle (--idle-timeout 5000): a third is closed without an answer.
    const held: Array<import("node:net").Socket> = [];
    let answered = 0;
    const holders = [0, 1].map(() =>
      rawExchange(url, (s) => {
        held.push(s);
        s.once("data", () => answered++);
        s.write(requestText(url, "GET", "/health"));
      }),
    );
    while (answered < 2) await new Promise((res) => setTimeout(res, 10));
    const third = await rawExchange(url, (s) => {
      s.write(requestText(url, "GET", "/health"));
    });
    expect(third.text).toBe("");
    for (const s of held) s.destroy();
    await Promise.all(holders);
    stop.abort();
    expect(await code).toBe(0);
    setGrammarCacheBytes(DEFAULT_GRAMMAR_CACHE_BYTES);
  });

  it("as a child process, stops on SIGTERM with exit 0", async () => {
    const cli = join(ROOT, "dist", "server", "cli.js");
    if (!existsSync(cli)) throw new Error("dist/ is missing: run `npx tsc -p tsconfig.build.json` first");
    const script = `import { serveCommand } from ${JSON.stringify(cli)}; process.exitCode = await serveCommand(process.argv.slice(1));`;
    const child = spawn(
      process.execPath,
      ["--input-type=module", "-e", script, "--", "--model", testModelPath(), "--port", "0", "--threads", "1"],
      { cwd: ROOT },
    );
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((res) => child.on("exit", (c) => res(c)));
    for (let i = 0; i < 400 && !/listening on/.test(out); i++) await new Promise((res) => setTimeout(res, 50));
    const url = /listening on (\S+)/.exec(out)?.[1];
    expect(url).toBeDefined();
    expect((await fetchWithin(NO_TOKENS, `${url}/health`)).status).toBe(200);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(out).toMatch(/SIGTERM, stopping/);
  });
});
