import type { PluginPermissions } from "@tack/agent";
import mcp, { type McpOptions } from "@tack/agent/plugins/mcp";
import { equal, match } from "node:assert/strict";
import { startHttpServer } from "../fixtures/mcp/http_server.ts";
import { STDIO_SERVER } from "./mcp_fixture.ts";

const USE_PLUGIN = new URL("../fixtures/mcp/use_plugin.ts", import.meta.url).pathname;

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
