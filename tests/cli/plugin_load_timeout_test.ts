// A plugin loaded into the CLI's process whose top-level await (or factory) never settles,
// while a timer of its own keeps the event loop alive, held `tack` forever before the load
// bound. Now loading fails after the entry's `startTimeoutMs` with a message naming the plugin,
// and the CLI exits. A real CLI process, the fake OpenAI server on loopback.
import { equal } from "node:assert/strict";
import { childEnv } from "../support/child_env.ts";
import { startFakeOpenAI } from "../support/fake_openai_server.ts";
import { outputWithin } from "../support/run_script.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

async function runTack(plugin: string, entry: Record<string, unknown>) {
  await using server = await startFakeOpenAI({ turns: [{ text: "done" }] });
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.writeTextFile(`${dir}/hang.ts`, plugin);
    await Deno.writeTextFile(
      `${dir}/tack.jsonc`,
      JSON.stringify({ plugins: [{ specifier: "./hang.ts", ...entry }] }),
    );
    // Far past the bound the tests set: a CLI that still runs then is the old hang.
    return await outputWithin(
      new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "-A",
          `--config=${ROOT}deno.json`,
          `${ROOT}cli/main.ts`,
          "--config",
          "tack.jsonc",
          "--base-url",
          server.baseURL,
          "--yes",
          "hi",
        ],
        cwd: dir,
        env: childEnv({ NO_COLOR: "1", OPENAI_API_KEY: "sk-test" }),
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }),
      20_000,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("cli: a plugin whose top-level await never settles fails to load after startTimeoutMs", async () => {
  const { code, signal, stderr } = await runTack(
    `setInterval(() => {}, 1_000);\nawait new Promise(() => {});\nexport default { name: "hang" };\n`,
    { startTimeoutMs: 500 },
  );
  equal(signal, null, "killed by the test's guard: the CLI hung");
  equal(code, 2, stderr);
  equal(
    stderr.includes(
      'Cannot load plugin "./hang.ts" (tack.jsonc:1:13): its module did not finish within 500 ms ' +
        '(does it await something that never settles? if it is only slow, raise its "startTimeoutMs")',
    ),
    true,
    stderr,
  );
});

Deno.test("cli: a plugin factory that never settles fails to load after startTimeoutMs", async () => {
  const { code, signal, stderr } = await runTack(
    `setInterval(() => {}, 1_000);\nexport default () => new Promise(() => {});\n`,
    { startTimeoutMs: 500 },
  );
  equal(signal, null, "killed by the test's guard: the CLI hung");
  equal(code, 2, stderr);
  equal(
    stderr.includes(
      'Cannot load plugin "./hang.ts" (tack.jsonc:1:13): its factory did not finish within 500 ms',
    ),
    true,
    stderr,
  );
});
