// The deno cache hint names the plugin so that a shell reads it back as it is.
import { equal } from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { moduleForCommand, trailingLoadHint } from "../../sdk/sandbox/load_failure_hint.ts";

Deno.test("moduleForCommand: a path with spaces and quotes reads back the same through sh", async () => {
  for (const path of ["/work/p.ts", "/Users/me/My Plugins/p.ts", "/tmp/it's here/$HOME;p.ts"]) {
    const named = moduleForCommand(pathToFileURL(path).href);
    const { stdout } = await new Deno.Command("sh", { args: ["-c", `printf %s ${named}`] })
      .output();
    equal(new TextDecoder().decode(stdout), path);
  }
  equal(moduleForCommand("jsr:@me/plugin@1.2.0"), "jsr:@me/plugin@1.2.0");
});

// Found by a new user: `tack` (installed) loading a sandboxed ./plugin.ts that imports
// @tack/agent/plugin, in a folder without a deno.json, failed with Deno's bare
// `Import "@tack/agent/plugin" not a dependency` (and Deno's hint to `deno add` it from JSR,
// where Tack is not), while the same plugin in-process loaded through the CLI's import map.
Deno.test("loadPlugin: a sandboxed plugin whose bare import no deno.json maps says to add one", async () => {
  const { loadPlugin } = await import("../../sdk/sandbox/load_plugin.ts");
  const dir = await Deno.makeTempDir({ prefix: "tack_unmapped_" });
  try {
    // Its own project, which maps nothing (as the CLI's folder without a deno.json: the
    // installed tack's own config is not found from there).
    await Deno.writeTextFile(`${dir}/deno.json`, '{ "imports": {}, "lock": false }\n');
    await Deno.writeTextFile(
      `${dir}/plugin.ts`,
      'import { definePlugin } from "@tack/agent/plugin";\nexport default definePlugin({ name: "p" });\n',
    );
    const error = await loadPlugin(`${dir}/plugin.ts`, { sandbox: true }).then(
      () => undefined,
      (e: Error) => e,
    );
    equal(error instanceof Error, true);
    const message = (error as Error).message;
    equal(message.includes('Import "@tack/agent/plugin" not a dependency'), true, message);
    equal(
      message.includes(
        'no import map maps "@tack/agent/plugin" for the plugin: a sandboxed plugin is resolved by the deno.json at or above its folder',
      ),
      true,
      message,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// Found by the review: a plugin's import specifier is in Deno's error, which the CLI searched
// for a trailing hint with a pattern that tried every " (" of a long line to that line's end:
// a 190 KB specifier repeating a hint's start took 0.3 s, a 4 MB one minutes (quadratic).
Deno.test("trailingLoadHint: a long line of a plugin's making before the last is not searched", () => {
  const unit = ' (no import map maps "" for the plugin';
  const error = `error: Import "x${unit.repeat(5_000)}x" not a dependency\n    at file:///p.js:1:8`;
  // Not searched: only the last line can end with a hint (the time it took is measured by
  // hand, not asserted: ~0.3 s for 190 KB before, quadratic in it; now none of it is read).
  equal(trailingLoadHint(error), "");
  const hint = ' (no import map maps "@tack/agent/plugin" for the plugin: add one)';
  equal(trailingLoadHint(`error: Import "@tack/agent/plugin" not a dependency${hint}`), hint);
  equal(trailingLoadHint(`error: a\n${unit.repeat(3)}\nmore${hint}`), hint);
});
