import { deepEqual, equal, match } from "node:assert/strict";
import { join } from "node:path";
import { formatInspection, inspectCommand } from "../../cli/plugins_command.ts";

async function withPlugin(text: string, fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.writeTextFile(join(dir, "weather.ts"), text);
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const WEATHER = `export default {
  name: "weather", version: "1.2.0", description: "Weather tools",
  permissions: { net: ["api.example.com"] },
  tools: [
    { name: "get_weather", description: "Current weather\\nfor a city", parameters: { type: "object" },
      effects: ["net"], execute: () => ({ content: [] }) },
    { name: "units", description: "Lists units", parameters: { type: "object" },
      execute: () => ({ content: [] }) },
  ],
};`;

function capture() {
  const io = { out: "", err: "" };
  return {
    io,
    sink: { out: (t: string) => void (io.out += t), err: (t: string) => void (io.err += t) },
  };
}

Deno.test("inspect shows tools, effects and declared permissions without granting any", () =>
  withPlugin(WEATHER, async (dir) => {
    const { io, sink } = capture();
    equal(await inspectCommand("./weather.ts", false, sink, dir), 0);
    equal(io.err, "");
    const lines = io.out.split("\n");
    equal(lines[0], "Plugin weather 1.2.0: Weather tools");
    equal(lines.includes("  get_weather [net]  Current weather"), true);
    // units declares no effects, but its plugin's net grant gives it "net".
    equal(lines.includes("  units       [net]  Lists units"), true);
    equal(lines.includes("Hooks (0):"), true);
    match(io.out, /^Manifest: sha256-[0-9a-f]{64} \(pin it as "manifestHash" in tack\.jsonc\)$/m);
    equal(lines.includes("  net: api.example.com"), true);
    match(io.out, /Module loading confined by an OS sandbox: (yes|no)/);
  }));

Deno.test("inspect --json prints the report as one JSON object", () =>
  withPlugin(WEATHER, async (dir) => {
    const { io, sink } = capture();
    equal(await inspectCommand("./weather.ts", true, sink, dir), 0);
    const report = JSON.parse(io.out);
    equal(report.name, "weather");
    deepEqual(report.permissions, { net: ["api.example.com"] });
    deepEqual(report.tools.map((t: { name: string }) => t.name), ["get_weather", "units"]);
    equal(io.out.trimEnd().includes("\n"), false);
  }));

Deno.test("inspect of something that is not a plugin exits 2 with the reason", () =>
  withPlugin("export const nothing = 1;", async (dir) => {
    const bad = capture();
    equal(await inspectCommand("weather", false, bad.sink, dir), 2);
    match(bad.io.err, /^Cannot inspect plugin: "weather" is not a plugin specifier/);
    const missing = capture();
    equal(await inspectCommand("./missing.ts", false, missing.sink, dir), 2);
    match(missing.io.err, /^Cannot inspect plugin "\.\/missing\.ts": /);
    const empty = capture();
    equal(await inspectCommand("./weather.ts", false, empty.sink, dir), 2);
    match(empty.io.err, /^Cannot inspect plugin "\.\/weather\.ts": /);
    equal(empty.io.out, "");
  }));

Deno.test("the report lists warnings and says when a plugin has no tools", () => {
  const text = formatInspection({
    name: "hooks-only",
    tools: [],
    hooks: [{ stage: "beforeToolCall", abilities: ["observe", "block"], scope: "own" }],
    permissions: {},
    manifestHash: "sha256-ab",
    confined: false,
    warnings: ["it asks for run access to bash, which escapes every sandbox"],
  });
  equal(
    text,
    [
      "Plugin hooks-only",
      "",
      "Tools (0):",
      "  (none: hooks only)",
      "",
      "Hooks (1):",
      "  beforeToolCall: observe, block (its own tools only)",
      '  (grant "hooks": "all" to let them act on every tool\'s calls)',
      "",
      "Permissions it declares:",
      "  none",
      "",
      "Module loading confined by an OS sandbox: no",
      'Manifest: sha256-ab (pin it as "manifestHash" in tack.jsonc)',
      "",
      "Warnings:",
      "  ! it asks for run access to bash, which escapes every sandbox",
    ].join("\n"),
  );
});

Deno.test("deno task agent: a load error asking for host flags says where a task user gets them", () =>
  // Found by a walkthrough: the error said "add --allow-read=… to the host's flags", which a
  // `deno task agent` user cannot do (the task's permission set is fixed).
  withPlugin(WEATHER, async (dir) => {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["task", "--quiet", "agent", "plugins", "inspect", join(dir, "weather.ts")],
      cwd: new URL("../..", import.meta.url),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    equal(output.code, 2);
    const said = new TextDecoder().decode(output.stderr).trim().split("\n").at(-1)!;
    equal(
      said,
      `Cannot inspect plugin "${join(dir, "weather.ts")}": the host may not read its module "${
        join(dir, "weather.ts")
      }", so it cannot tell whether it is a symlink out of its folder "${dir}": add --allow-read=${dir} to the host's flags (with \`deno task agent\` the host's flags are its permission set in deno.json; the installed \`tack\`, from \`deno task install\`, reads plugins anywhere: see docs/cli.md)`,
    );
  }));
