// A one-shot `tack` run that loads a sandboxed plugin on a machine without the TypeBox
// bundle starts its build (the first start does not wait for it): the CLI waits for that
// build before it exits, so the next run has the bundle. Without the wait its `Deno.exit`
// cut the build short on every run. A real CLI process, a fresh DENO_DIR (nothing
// downloaded), the fake OpenAI server on loopback.
import { equal } from "node:assert/strict";
import { childEnv } from "../support/child_env.ts";
import { startFakeOpenAI } from "../support/fake_openai_server.ts";
import { builtBundles, withFreshDenoDir } from "../support/fresh_deno_dir.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

Deno.test({
  name: "cli: a one-shot run leaves the TypeBox bundle its sandboxed plugin started built",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using server = await startFakeOpenAI({ turns: [{ text: "done" }] });
    await withFreshDenoDir(async (denoDir, dir) => {
      await Deno.mkdir(`${dir}/project`);
      await Deno.writeTextFile(
        `${dir}/project/tack.jsonc`,
        JSON.stringify({
          plugins: [{
            specifier: `${ROOT}tests/fixtures/sandbox/typebox_plugin.ts`,
            sandbox: true,
          }],
        }),
      );
      const output = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          "--cached-only",
          `--config=${ROOT}deno.json`,
          `${ROOT}cli/main.ts`,
          "--config",
          "tack.jsonc",
          "--base-url",
          server.baseURL,
          "--yes",
          "hi",
        ],
        cwd: `${dir}/project`,
        env: childEnv({ DENO_DIR: denoDir, NO_COLOR: "1", OPENAI_API_KEY: "sk-test" }),
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      equal(output.code, 0, new TextDecoder().decode(output.stderr));
      equal(new TextDecoder().decode(output.stdout).includes("done"), true);
      equal(await builtBundles(denoDir), 1);
    });
  },
});
