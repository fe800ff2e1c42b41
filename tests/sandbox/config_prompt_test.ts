// Finding a plugin's config and lockfile asks nothing of a host on a terminal, even where
// they would be read outside its read grant: a folder above the plugin's without a config
// of its own, and a lockfile a config names outside the folders the host may read. Such a
// path counts as absent, as it does for a host run with --no-prompt.
import { equal } from "node:assert/strict";
import { onTerminal } from "../support/on_terminal.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

Deno.test("config: finding a plugin's config and lockfile outside the host's read grant shows no permission prompt", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-config-prompt-" }));
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-config-lock-" }));
  try {
    // A project whose lockfile lies outside it, and a plugin folder with no config of its own.
    await Deno.mkdir(`${dir}/project`);
    await Deno.writeTextFile(`${outside}/deno.lock`, `{ "version": "5" }`);
    await Deno.writeTextFile(
      `${dir}/project/deno.json`,
      JSON.stringify({ lock: `${outside}/deno.lock` }),
    );
    await Deno.mkdir(`${dir}/loose`);
    const { prompt, output } = await onTerminal(
      `import { findConfig, lockFileOf } from ${
        JSON.stringify(`file://${ROOT}/sdk/sandbox/deno_config.ts`)
      };
console.log("lock", await lockFileOf(findConfig(${JSON.stringify(`${dir}/project`)})) ?? "none");
console.log("config", findConfig(${JSON.stringify(`${dir}/loose`)})?.file ?? "none");\n`,
      [
        "--no-config",
        `--allow-read=${ROOT},${dir}/project,${dir}/loose`,
      ],
    );
    equal(prompt, undefined, prompt);
    equal(/lock none/.test(output), true, output);
    equal(/config none/.test(output), true, output);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});
