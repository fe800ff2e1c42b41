// On a terminal (tmux), an untrusted tack.jsonc is summarised (its strings as text, their
// escapes shown, not acted on) and asked about before anything from it is loaded: `n` refuses
// with exit 2, `y` records it and the session starts; the next start does not ask. Under the
// "cli" permission set, as `deno task agent` runs. Skipped only where tmux is missing.
import { deepEqual, equal, match } from "node:assert/strict";
import { join } from "node:path";
import { childEnv } from "../support/child_env.ts";
import { startFakeOpenAI } from "../support/fake_openai_server.ts";
import { skipWithoutTmux, tackUnderCliSet, Terminal } from "./tmux.ts";

const REPO = new URL("../..", import.meta.url).pathname;

/** A project inside the repo (the "cli" set grants it), its plugin writing a marker at import. */
async function withProject(
  fn: (dir: string, state: string, marker: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({
    dir: join(REPO, "tests", "cli"),
    prefix: ".tmp_trust_pty_",
  });
  try {
    const marker = join(dir, "marker");
    await Deno.writeTextFile(
      join(dir, "plugin.ts"),
      `Deno.writeTextFileSync(${JSON.stringify(marker)}, "imported");\n` +
        `export default { name: "marker", tools: [] };\n`,
    );
    await Deno.writeTextFile(
      join(dir, "tack.jsonc"),
      JSON.stringify({ model: "m\x1b[2J", plugins: ["fs", "./plugin.ts"] }),
    );
    await fn(dir, join(dir, ".state"), marker);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function start(dir: string, state: string, baseURL: string): Promise<Terminal> {
  return Terminal.start(tackUnderCliSet(), {
    cwd: dir,
    env: childEnv({
      NO_COLOR: "1",
      TERM: "screen",
      OPENAI_BASE_URL: baseURL,
      OPENAI_API_KEY: "test",
      XDG_STATE_HOME: state,
    }),
    columns: 300, // the summary's lines unwrapped
  });
}

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

Deno.test({
  name: "cli on a terminal: an untrusted tack.jsonc is shown and asked about; n refuses (exit 2)",
  ignore: skipWithoutTmux("the workspace trust question: n"),
  fn: () =>
    withProject(async (dir, state, marker) => {
      await using server = await startFakeOpenAI({ turns: [{ text: "hi" }] });
      await using term = await start(dir, state, server.baseURL);
      const asked = await term.waitFor(/Trust this tack\.jsonc\? \[y\/N\]\s*$/m);
      match(
        asked,
        /tack\.jsonc is not trusted yet\. It runs with your permissions; with it, tack:/,
      );
      match(asked, /- loads the plugin \.\/plugin\.ts \(.*plugin\.ts\), in tack's own process/);
      // The escape is shown as text: the screen was not cleared by it.
      match(asked, /- uses the model "m\\u001b\[2J"/);
      equal(await exists(marker), false);
      await term.keys("n");
      const refused = await term.waitFor(/^EXIT=2$/m);
      match(
        refused,
        /\[y\/N\] n\nNot trusted: nothing from .*tack\.jsonc was loaded\. To use it, /,
      );
      match(refused, /run "tack trust" here to trust it, or pass --config \.\/tack\.jsonc/);
      equal(await exists(marker), false);
      equal(await exists(join(state, "tack", "trusted.json")), false);
      equal(server.requests.length, 0);
    }),
});

Deno.test({
  name:
    "cli on a terminal: y at the question records the trust and the session starts; the next start does not ask",
  ignore: skipWithoutTmux("the workspace trust question: y"),
  fn: () =>
    withProject(async (dir, state, marker) => {
      await using server = await startFakeOpenAI({ turns: [{ text: "hi" }] });
      {
        await using term = await start(dir, state, server.baseURL);
        await term.waitFor(/Trust this tack\.jsonc\? \[y\/N\]\s*$/m);
        await term.keys("y");
        await term.waitFor(/\[y\/N\] y\n[\s\S]*^›\s*$/m);
        equal(await exists(marker), true);
        const store = JSON.parse(await Deno.readTextFile(join(state, "tack", "trusted.json")));
        deepEqual(store.trusted.map((entry: { path: string }) => entry.path), [
          await Deno.realPath(join(dir, "tack.jsonc")),
        ]);
        await term.keys("C-d");
        await term.waitFor(/^EXIT=0$/m);
      }
      await Deno.remove(marker);
      await using again = await start(dir, state, server.baseURL);
      const screen = await again.waitFor(/^›\s*$/m);
      equal(screen.includes("Trust this"), false, screen);
      equal(await exists(marker), true);
    }),
});

Deno.test({
  name: "cli on a terminal: Ctrl-C at the trust question is a no",
  ignore: skipWithoutTmux("the workspace trust question: Ctrl-C"),
  fn: () =>
    withProject(async (dir, state, marker) => {
      await using server = await startFakeOpenAI({ turns: [{ text: "hi" }] });
      await using term = await start(dir, state, server.baseURL);
      await term.waitFor(/Trust this tack\.jsonc\? \[y\/N\]\s*$/m);
      await term.keys("C-c");
      await term.waitFor(/\[y\/N\] n\nNot trusted: [\s\S]*^EXIT=2$/m);
      equal(await exists(marker), false);
      equal(await exists(join(state, "tack", "trusted.json")), false);
    }),
});

Deno.test({
  name: "cli on a terminal: a y typed before the trust question does not answer it",
  ignore: skipWithoutTmux("the workspace trust question: type-ahead"),
  fn: () =>
    withProject(async (dir, state, marker) => {
      await using server = await startFakeOpenAI({ turns: [{ text: "hi" }] });
      await using term = await start(dir, state, server.baseURL);
      // Sent while the CLI still starts (its modules load for well over this), so it waits
      // in the terminal's input before the question is drawn.
      await term.keys("y");
      await term.waitFor(/Trust this tack\.jsonc\? \[y\/N\]\s*$/m);
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Still asking: the y was dropped, nothing loaded.
      match(await term.screen(), /Trust this tack\.jsonc\? \[y\/N\]\s*$/m);
      equal(await exists(marker), false);
      await term.keys("n");
      await term.waitFor(/^EXIT=2$/m);
      equal(await exists(join(state, "tack", "trusted.json")), false);
    }),
});
