import type { PluginPermissions } from "@tack/agent";
import mcp, { type McpOptions } from "@tack/agent/plugins/mcp";
import { deepEqual, equal, match } from "node:assert/strict";
import { startHttpServer } from "../fixtures/mcp/http_server.ts";
import { STDIO_SERVER } from "./mcp_fixture.ts";

const USE_PLUGIN = new URL("../fixtures/mcp/use_plugin.ts", import.meta.url).pathname;
const ENV_SERVER = new URL("../fixtures/mcp/env_server.ts", import.meta.url).pathname;

function flags(permissions: PluginPermissions): string[] {
  return Object.entries(permissions).map(([name, grant]) =>
    grant === true ? `--allow-${name}` : `--allow-${name}=${(grant as string[]).join(",")}`
  );
}

/** Runs the plugin in a process with `permissions` and nothing else. */
async function useWith(
  permissions: PluginPermissions,
  options: McpOptions,
  args: Record<string, unknown>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--cached-only",
      "--no-prompt",
      ...flags(permissions),
      USE_PLUGIN,
      JSON.stringify(options),
      JSON.stringify(args),
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

Deno.test("mcp: a stdio plugin works with exactly its declared permissions", async () => {
  const options: McpOptions = { name: "fixture", ...STDIO_SERVER, tools: ["echo"] };
  const plugin = await mcp(options);
  await plugin.dispose();
  const granted = await useWith(plugin.permissions!, options, { text: "sandboxed" });
  equal(granted.stderr, "");
  equal(granted.stdout, "echo: sandboxed\n");
  // Without them it fails: the declaration is not wider than needed by accident.
  const { run: _run, ...withoutRun } = plugin.permissions!;
  const denied = await useWith(withoutRun, options, { text: "x" });
  equal(denied.code, 1);
  match(
    denied.stderr,
    /Cannot connect to MCP server "fixture": running \S+ is not permitted; grant it with --allow-run=\S+/,
  );
});

Deno.test("mcp: an HTTP plugin needs only net access to its server", async () => {
  const server = startHttpServer();
  try {
    const options: McpOptions = { name: "web", url: server.url, tools: ["echo"] };
    const plugin = await mcp(options);
    await plugin.dispose();
    equal(Object.keys(plugin.permissions!).join(), "net");
    const granted = await useWith(plugin.permissions!, options, { text: "over http" });
    equal(granted.stderr, "");
    equal(granted.stdout, "echo: over http\n");
  } finally {
    await server.close();
  }
});

Deno.test("mcp: a stdio server inherits only HOME LOGNAME PATH SHELL TERM USER from the host, plus its entry's env", async () => {
  const secrets = { TACK_TEST_SECRET: "sk-host-secret", HTTPS_PROXY: "http://user:pw@proxy" };
  const before = Object.fromEntries(Object.keys(secrets).map((name) => [name, Deno.env.get(name)]));
  for (const [name, value] of Object.entries(secrets)) Deno.env.set(name, value);
  const [run, ...rest] = STDIO_SERVER.args!;
  const plugin = await mcp({
    name: "env",
    ...STDIO_SERVER,
    // No shell in between (it would add PWD, SHLVL and _): the server reports its own.
    args: [run, "--allow-env", ...rest.slice(0, -1), `${ENV_SERVER}`],
    env: { ...STDIO_SERVER.env, ENTRY_VARIABLE: "given" },
  });
  try {
    const result = await plugin.tools[0].execute({}, {
      toolCallId: "env",
      signal: new AbortController().signal,
    });
    const seen = JSON.parse((result.content[0] as { text: string }).text);
    const expected: Record<string, string> = { ...STDIO_SERVER.env, ENTRY_VARIABLE: "given" };
    for (const name of ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"]) {
      const value = Deno.env.get(name);
      if (value !== undefined) expected[name] = value;
    }
    equal(Deno.env.get("TACK_TEST_SECRET"), "sk-host-secret");
    // The inherited ones do pass (a host always has HOME and PATH).
    deepEqual([typeof seen.HOME, typeof seen.PATH], ["string", "string"]);
    deepEqual(seen, expected);
  } finally {
    await plugin.dispose();
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  }
});
