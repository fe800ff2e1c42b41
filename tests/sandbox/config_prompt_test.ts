// Finding a plugin's config and lockfile asks nothing of a host on a terminal, even where
// they would be read outside its read grant: a folder above the host's project (passed
// over, as with --no-prompt), a folder in it and a lockfile a config names outside the
// folders the host may read (errors naming the flag: the sandbox would run unlocked).
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
const attempt = async (f) => { try { return await f() ?? "none"; } catch (error) { return error.message; } };
console.log("lock", await attempt(() => lockFileOf(findConfig(${
        JSON.stringify(`${dir}/project`)
      }), ${JSON.stringify(`${dir}/project`)})));
console.log("lock above the project", await attempt(() => lockFileOf(findConfig(${
        JSON.stringify(`${dir}/project`)
      }))));
console.log("config", await attempt(() => findConfig(${JSON.stringify(`${dir}/loose`)})?.file));
console.log("project config", await attempt(() => findConfig(${JSON.stringify(`${dir}/loose`)}, ${
        JSON.stringify(dir)
      })?.file));\n`,
      [
        "--no-config",
        `--allow-read=${ROOT},${dir}/project,${dir}/loose`,
      ],
    );
    equal(prompt, undefined, prompt);
    equal(
      output.includes(
        `lock the host may not read ${outside}/deno.lock, the lockfile of ${dir}/project/deno.json the sandbox runs frozen to: add --allow-read=${outside}/deno.lock to the host's flags`,
      ),
      true,
      output,
    );
    equal(/lock above the project none/.test(output), true, output);
    equal(/\nconfig none/.test(output), true, output);
    equal(
      output.includes(
        `project config the host may not read ${dir}/deno.json, where a Deno config would set the plugin's import map and lockfile: add --allow-read=${dir}/deno.json,${dir}/deno.jsonc,${dir}/deno.lock (or --allow-read=${dir}) to the host's flags`,
      ),
      true,
      output,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});
