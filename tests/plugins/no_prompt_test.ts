// The plugins run in the host's own process, on a terminal, with narrow flags: what the host
// may not do is asked about first (no Deno permission prompt), then treated as absent or
// answered with an error that names the flag. Each test failed on the code before its fix.
import { equal, match } from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { onTerminal } from "../support/on_terminal.ts";
import { nameServersOf } from "../../plugins/http/may_resolve.ts";

const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));
const FLAGS = [`--config=${CONFIG}`, "--cached-only"];

/** A temporary folder, its real path, removed when disposed. */
async function tempDir(): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-no-prompt-" }));
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

Deno.test("shell: with --allow-run and no read grant on the root, no prompt: the command runs there", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/here.txt`, "");
  const { prompt, output } = await onTerminal(
    `import { createAgent, scriptedModel, text, toolCall } from "@tack/agent";
import { shell } from "@tack/agent/plugins/shell";
const agent = createAgent({
  model: scriptedModel([[toolCall("bash", { command: "ls" })], [text("done")]]),
  plugins: [shell({ root: ${JSON.stringify(dir.path)} })],
});
const messages = await agent.prompt("go");
const result = messages.find((message) => message.role === "toolResult");
console.log("result", result?.role === "toolResult" && result.content[0].type === "text" && result.content[0].text);
await agent.dispose();
`,
    [...FLAGS, "--allow-run"],
  );
  equal(prompt, undefined, prompt);
  match(output, /result here\.txt/);
});

/** A host running one call under audit({ path }), printing the tool's result or the error. */
function auditHost(path: string): string {
  return `import { createAgent, defineTool, scriptedModel, text, toolCall, Type } from "@tack/agent";
import { audit } from "@tack/agent/plugins/audit";
const ping = defineTool({
  name: "ping", description: "Pings", parameters: Type.Object({}),
  execute: () => ({ content: [{ type: "text", text: "pong" }] }),
});
try {
  const agent = createAgent({
    model: scriptedModel([[toolCall("ping", {})], [text("done")]]),
    tools: [ping],
    plugins: [audit({ path: ${JSON.stringify(path)} })],
  });
  const messages = await agent.prompt("go");
  const result = messages.find((message) => message.role === "toolResult");
  console.log("result", result?.role === "toolResult" && result.content[0].type === "text" && result.content[0].text);
} catch (error) {
  console.log("error", (error as Error).message);
}
`;
}

Deno.test("audit: with --allow-write on the log alone (what it declares), no prompt for its existing folder", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/logs`);
  const log = `${dir.path}/logs/audit.jsonl`;
  const { prompt, output } = await onTerminal(auditHost(log), [...FLAGS, `--allow-write=${log}`]);
  equal(prompt, undefined, prompt);
  match(output, /result pong/);
  equal((await Deno.readTextFile(log)).trim().split("\n").length, 2);
});

Deno.test("audit: a host that may not write the log gets an error naming the flag, no prompt", async () => {
  await using dir = await tempDir();
  const log = `${dir.path}/logs/audit.jsonl`;
  const { prompt, output } = await onTerminal(auditHost(log), FLAGS);
  equal(prompt, undefined, prompt);
  match(output, new RegExp(`error Cannot create audit plugin: .*--allow-write=${log}`));
});

/** A host calling fetch_url on each URL (`${port}` is a local server's), printing the results. */
function httpHost(options: string, urls: string[]): string {
  return `import { createAgent, scriptedModel, text, toolCall } from "@tack/agent";
import { http } from "@tack/agent/plugins/http";
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => new Response("hello"));
const port = server.addr.port;
const agent = createAgent({
  model: scriptedModel([[${
    urls.map((url) => `toolCall("fetch_url", { url: \`${url}\` })`)
  }], [text("done")]]),
  plugins: [http(${options})],
});
for (const message of await agent.prompt("go")) {
  if (message.role === "toolResult" && message.content[0].type === "text") {
    console.log("result", message.content[0].text.replaceAll("\\n", " "));
  }
}
await server.shutdown();
`;
}

Deno.test("http: a listed host the host may not reach is a denial result naming the host, no prompt", async () => {
  const { prompt, output } = await onTerminal(
    httpHost(`{ allowedHosts: ["127.0.0.1", "localhost"], allowPrivateAddresses: true }`, [
      "http://127.0.0.1:${port}/",
      "http://localhost:${port}/",
    ]),
    [...FLAGS, "--allow-net=127.0.0.1"],
  );
  equal(prompt, undefined, prompt);
  match(output, /result HTTP 200 OK .* hello/);
  match(output, /result Permission denied: net access to "localhost:\d+"/);
});

Deno.test("http: a host that may not make DNS lookups is not prompted for its resolver: a name it cannot check is refused", async () => {
  const { prompt, output } = await onTerminal(
    httpHost(`{ allowedHosts: ["*.test"] }`, ["http://tack.test:1/"]),
    [...FLAGS, "--allow-net=127.0.0.1,tack.test"],
  );
  equal(prompt, undefined, prompt);
  match(output, /result Cannot check where tack\.test leads: resolving it failed \(.*--allow-net/);
});

Deno.test("fs: write and edit in a host that may only read the root are denials the model reads, no prompt", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(`${dir.path}/a.txt`, "hello");
  const { prompt, output } = await onTerminal(
    `import { createAgent, scriptedModel, text, toolCall } from "@tack/agent";
import { fs } from "@tack/agent/plugins/fs";
const agent = createAgent({
  model: scriptedModel([[
    toolCall("read", { path: "a.txt" }),
    toolCall("write", { path: "b.txt", content: "b" }),
    toolCall("edit", { path: "a.txt", oldText: "hello", newText: "bye" }),
  ], [text("done")]]),
  plugins: [fs({ root: ${JSON.stringify(dir.path)} })],
});
for (const message of await agent.prompt("go")) {
  if (message.role === "toolResult" && message.content[0].type === "text") {
    console.log("result", message.toolName, message.content[0].text);
  }
}
`,
    [...FLAGS, `--allow-read=${dir.path}`],
  );
  equal(prompt, undefined, prompt);
  match(output, /result read hello/);
  match(output, /result write Permission denied: write access to ".*\/b\.txt"/);
  match(output, /result edit Permission denied: write access to ".*\/a\.txt"/);
  equal(await Deno.readTextFile(`${dir.path}/a.txt`), "hello");
});

Deno.test("fs: a host that may read only part of the root gets a denial naming the root, no prompt", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/src`);
  await Deno.writeTextFile(`${dir.path}/src/a.txt`, "hello");
  const { prompt, output } = await onTerminal(
    `import { createAgent, scriptedModel, text, toolCall } from "@tack/agent";
import { fs } from "@tack/agent/plugins/fs";
const agent = createAgent({
  model: scriptedModel([[
    toolCall("read", { path: "src/a.txt" }),
    toolCall("ls", { path: "src" }),
  ], [text("done")]]),
  plugins: [fs({ root: ${JSON.stringify(dir.path)} })],
});
for (const message of await agent.prompt("go")) {
  if (message.role === "toolResult" && message.content[0].type === "text") {
    console.log("result", message.toolName, message.content[0].text);
  }
}
`,
    [...FLAGS, `--allow-read=${dir.path}/src`],
  );
  equal(prompt, undefined, prompt);
  const denial =
    `Permission denied: read access to "${dir.path}" is not granted to this process (grant it with --allow-read)`;
  // Refused before any policy sees the call: its path cannot be resolved to show them.
  const refused = (tool: string) => `result ${tool} Cannot prepare arguments for tool "${tool}": `;
  equal(output.includes(`${refused("read")}${denial}`), true, output);
  equal(output.includes(`${refused("ls")}${denial}`), true, output);
});

Deno.test("fs and shell: a root reached through a symlink the host may read (not its target) is no prompt: fs names the target in its denial, shell runs there", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(`${dir.path}/real`);
  await Deno.writeTextFile(`${dir.path}/real/a.txt`, "hello");
  await Deno.symlink(`${dir.path}/real`, `${dir.path}/link`);
  const { prompt, output } = await onTerminal(
    `import { createAgent, scriptedModel, text, toolCall } from "@tack/agent";
import { fs } from "@tack/agent/plugins/fs";
import { shell } from "@tack/agent/plugins/shell";
const root = ${JSON.stringify(`${dir.path}/link`)};
const agent = createAgent({
  model: scriptedModel([[
    toolCall("read", { path: "a.txt" }),
    toolCall("bash", { command: "cat a.txt" }),
  ], [text("done")]]),
  plugins: [fs({ root }), shell({ root })],
});
for (const message of await agent.prompt("go")) {
  if (message.role === "toolResult" && message.content[0].type === "text") {
    console.log("result", message.toolName, message.content[0].text);
  }
}
`,
    [...FLAGS, `--allow-read=${dir.path}/link`, "--allow-run"],
  );
  equal(prompt, undefined, prompt);
  const denial =
    `Permission denied: read access to "${dir.path}/real" is not granted to this process (grant it with --allow-read)`;
  equal(
    output.includes(`result read Cannot prepare arguments for tool "read": ${denial}`),
    true,
    output,
  );
  match(output, /result bash hello/);
});

const NAME_SERVERS = nameServersOf(await Deno.readTextFile("/etc/resolv.conf").catch(() => ""));

Deno.test({
  name:
    "http: a host granted the resolver's name servers may make the private-address lookup; one granted less may not; neither is prompted",
  ignore: NAME_SERVERS.length === 0,
  async fn() {
    const source = `import { mayResolve } from ${
      JSON.stringify(new URL("../../plugins/http/may_resolve.ts", import.meta.url).href)
    };
console.log("may resolve", mayResolve());
`;
    const granted = await onTerminal(source, [
      ...FLAGS,
      `--allow-net=api.example.com,${NAME_SERVERS.join(",")}`,
      "--allow-read=/etc/resolv.conf",
    ]);
    equal(granted.prompt, undefined, granted.prompt);
    match(granted.output, /may resolve true/);
    for (
      const flags of [
        ["--allow-net=api.example.com", "--allow-read=/etc/resolv.conf"],
        [`--allow-net=api.example.com,${NAME_SERVERS.join(",")}`], // resolv.conf unreadable
      ]
    ) {
      const refused = await onTerminal(source, [...FLAGS, ...flags]);
      equal(refused.prompt, undefined, refused.prompt);
      match(refused.output, /may resolve false/, flags.join(" "));
    }
  },
});

Deno.test("mcp: a server the host may not reach or start is an error naming the flag, no prompt", async () => {
  const { prompt, output } = await onTerminal(
    `import mcp from "@tack/agent/plugins/mcp";
for (const config of [{ url: "http://127.0.0.1:8765/mcp" }, { command: "tack-no-such-server" }]) {
  await mcp({ name: "remote", ...config }).then(
    () => console.log("loaded"),
    (error) => console.log(error.message),
  );
}
`,
    [...FLAGS, "--allow-read", "--allow-net=example.com"],
  );
  equal(prompt, undefined, prompt);
  const lines = output.trim().split(/\r?\n/);
  equal(
    lines[0],
    'Cannot connect to MCP server "remote": network access to 127.0.0.1:8765 is not permitted; grant it with --allow-net=127.0.0.1:8765',
  );
  equal(
    lines[1],
    'Cannot connect to MCP server "remote": running tack-no-such-server is not permitted; grant it with --allow-run=tack-no-such-server',
  );
});

Deno.test("shell: a host that may not run the shell gets a denial result, no prompt", async () => {
  await using dir = await tempDir();
  const { prompt, output } = await onTerminal(
    `import { createAgent, scriptedModel, text, toolCall } from "@tack/agent";
import { shell } from "@tack/agent/plugins/shell";
const agent = createAgent({
  model: scriptedModel([[toolCall("bash", { command: "echo hi" })], [text("done")]]),
  plugins: [shell({ root: ${JSON.stringify(dir.path)} })],
});
const result = (await agent.prompt("go")).find((message) => message.role === "toolResult");
console.log("result", result?.role === "toolResult" && result.content[0].type === "text" && result.content[0].text);
`,
    [...FLAGS, `--allow-read=${dir.path}`],
  );
  equal(prompt, undefined, prompt);
  match(
    output,
    /result Permission denied: run access to "bash" is not granted to this process \(grant it with --allow-run\)/,
  );
});
