import { equal, match } from "node:assert/strict";

Deno.test("examples/mcp.ts runs offline and answers with the MCP tool's result", async () => {
  const example = new URL("../../examples/mcp.ts", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--cached-only", "--allow-run", "--allow-env", example],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  equal(new TextDecoder().decode(output.stderr), "");
  equal(output.code, 0);
  match(stdout, /calc_write_note ✗ error: calc_write_note is blocked: this agent may not write/);
  equal(stdout.trimEnd().split("\n").at(-1), "2 + 40 = 42.");
});
