// Found by a new user: the installed `tack` loading a sandboxed ./plugin.ts that imports
// @tack/agent/plugin, in a folder without a deno.json, printed only the first line of the load
// error (`Import "@tack/agent/plugin" not a dependency`) and dropped the hint that says what
// to do; a frozen lock's hint was dropped the same way (it comes after Deno's diff). The hint
// now reaches the CLI's one-line error. A real CLI process, the folder outside the repository.
import { equal, match } from "node:assert/strict";
import { join } from "node:path";
import { runTack } from "../support/run_tack.ts";

Deno.test("cli: a sandboxed plugin whose bare import nothing maps fails with the hint, on one line", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack_cli_unmapped_" }));
  try {
    await Deno.writeTextFile(
      join(dir, "plugin.ts"),
      'import { definePlugin } from "@tack/agent/plugin";\nexport default definePlugin({ name: "p" });\n',
    );
    await Deno.writeTextFile(
      join(dir, "cfg.jsonc"),
      '{ "plugins": [{ "specifier": "./plugin.ts", "sandbox": true }] }\n',
    );
    const run = await runTack(dir, ["--config", "./cfg.jsonc", "hi"], {
      env: { OPENAI_BASE_URL: "http://127.0.0.1:9/v1" },
      timeoutMs: 60_000,
    });
    equal(run.code, 2, run.stderr);
    const line = run.stderr.trim().split("\n").find((l) => l.includes("Cannot load plugin")) ?? "";
    match(line, /Import "@tack\/agent\/plugin" not a dependency/);
    match(line, /no import map maps "@tack\/agent\/plugin" for the plugin/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
