// What a hostile sandboxed plugin can do to its host through output and memory: a
// flood on stdout or stderr, escape sequences, 2 GB of memory. The host stays
// responsive (a timer keeps firing), the call ends with an error result naming the
// limit, and the sandbox restarts for the next call.
import { deepEqual, equal, match, rejects } from "node:assert/strict";
import { inspectPlugin, loadPlugin } from "../../sdk/sandbox/mod.ts";
import { callTool as call, instanceOf } from "../support/sandboxed_calls.ts";
import { skipWithoutBwrap } from "../support/os_layer.ts";
import { runScript } from "../support/run_script.ts";

const FIXTURE = "./tests/fixtures/sandbox/hostile_plugin.ts";

/** Counts timer ticks while `work` runs: a host blocked for the whole attack counts none. */
async function ticking<T>(work: () => Promise<T>): Promise<{ value: T; ticks: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  try {
    return { value: await work(), ticks };
  } finally {
    clearInterval(timer);
  }
}

Deno.test("sandbox limits", async (t) => {
  const plugin = await loadPlugin(FIXTURE, { sandbox: true, stderr: "capture" });
  try {
    equal(plugin.limits?.memoryMb, 256, "the declared memory limit applies");
    equal(plugin.limits?.frameMb, 16);

    await t.step("a 60 MB line on stdout ends the call at the frame limit", async () => {
      const before = await instanceOf(plugin);
      const { value, ticks } = await ticking(() => call(plugin, "flood_stdout"));
      equal(
        value,
        'error: Tool flood_stdout failed: the sandbox of plugin "hostile" sent a message over its frame limit (16 MB) while running it; it restarts for the next call',
      );
      equal(ticks > 0, true, "the host's timer never fired during the flood");
      equal((await instanceOf(plugin)) === before, false, "the sandbox was not restarted");
    });

    await t.step(
      "a message of more JSON values than its limit ends the call before it is parsed",
      async () => {
        // Before: parsed whole; a 16 MB line of `{},` cost the host ~375 MB and seconds.
        equal(await call(plugin, "bloat", { count: 150_000 }), "bloated");
        const before = await instanceOf(plugin);
        equal(
          await call(plugin, "bloat", { count: 250_000 }),
          'error: Tool bloat failed: the sandbox of plugin "hostile" sent a message of more than 200000 JSON values (its limit) while running it; it restarts for the next call',
        );
        equal((await instanceOf(plugin)) === before, false, "the sandbox was not restarted");
      },
    );

    await t.step("details nested past 128 levels are left out with a note", async () => {
      const shallow = await plugin.tools!.find((tool) => tool.name === "nested")!.execute(
        { levels: 100 },
        { toolCallId: "n1", signal: new AbortController().signal },
      );
      equal(Array.isArray(shallow.details), true);
      // Before: kept whole, for events, --json and session files to write.
      const deep = await plugin.tools!.find((tool) => tool.name === "nested")!.execute(
        { levels: 150_000 },
        { toolCallId: "n2", signal: new AbortController().signal },
      );
      deepEqual(deep, {
        content: [
          { type: "text", text: "nested" },
          {
            type: "text",
            text: "(its details were left out: they nest more than 128 levels deep)",
          },
        ],
        details: undefined,
      });
    });

    await t.step("a 60 MB line on stderr is cut, and the call goes on", async () => {
      const before = await instanceOf(plugin);
      const { value, ticks } = await ticking(() => call(plugin, "flood_stderr"));
      equal(value, "flooded stderr");
      equal(ticks > 0, true, "the host's timer never fired during the flood");
      equal(await instanceOf(plugin), before, "a long stderr line is no fault");
    });

    await t.step(
      "2 GB of objects: an error naming the memory limit, then a fresh sandbox",
      async () => {
        const before = await instanceOf(plugin);
        equal(
          await call(plugin, "hog"),
          'error: Tool hog failed: the sandbox of plugin "hostile" exceeded its memory limit (256 MB) while running it; it restarts for the next call',
        );
        const after = await instanceOf(plugin);
        equal(after === before, false);
        equal(await call(plugin, "echo", { text: "still here" }), "still here");
      },
    );

    await t.step("2 GB of array buffers (outside the V8 heap) meet the OS limit", async () => {
      equal(
        await call(plugin, "hog_buffers"),
        'error: Tool hog_buffers failed: the sandbox of plugin "hostile" exceeded its memory limit (256 MB) while running it; it restarts for the next call',
      );
      equal(await call(plugin, "echo", { text: "still here" }), "still here");
    });
  } finally {
    await plugin.dispose?.();
  }
});

Deno.test("inspect shows the limits a plugin declares", async () => {
  const report = await inspectPlugin(FIXTURE, { stderr: "capture" });
  deepEqual(report.limits, { memoryMb: 256, frameMb: 16 });
});

Deno.test("the user's limits replace the plugin's; a bad one is a load error", async () => {
  const plugin = await loadPlugin(FIXTURE, {
    sandbox: true,
    stderr: "capture",
    limits: { memoryMb: 128, frameMb: 1 },
  });
  try {
    equal(plugin.limits?.memoryMb, 128);
    match(await call(plugin, "hog"), /exceeded its memory limit \(128 MB\) while running it/);
    match(await call(plugin, "flood_stdout"), /sent a message over its frame limit \(1 MB\)/);
  } finally {
    await plugin.dispose?.();
  }
  await rejects(
    loadPlugin("./tests/fixtures/sandbox/bad_limits_plugin.ts", {
      sandbox: true,
      stderr: "capture",
    }),
    {
      message:
        'Cannot load plugin "./tests/fixtures/sandbox/bad_limits_plugin.ts": memoryMb must be a positive whole number of MB, got 0.5',
    },
  );
  await rejects(
    loadPlugin(FIXTURE, { sandbox: true, stderr: "capture", limits: { memoryMb: -1 } }),
    {
      message:
        'Cannot load plugin "./tests/fixtures/sandbox/hostile_plugin.ts": memoryMb must be a positive whole number of MB, got -1',
    },
  );
});

Deno.test("escape sequences on a plugin's stderr never reach the terminal; its lines are cut", async () => {
  const host = new URL("../fixtures/sandbox/stderr_host.ts", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", host],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  equal(new TextDecoder().decode(output.stdout), "painted\nflooded stderr\n");
  const label = "[./tests/fixtures/sandbox/hostile_plugin.ts]";
  equal(
    stderr,
    `${label} Approve? [y/N] done\n` +
      // 60 MB without a newline: the first 4 KiB, then how much was cut.
      `${label} ${"x".repeat(4096)}… [${60 * 1024 * 1024 - 4096} more bytes cut]\n`,
  );
});

Deno.test("a plugin declaring limits above the defaults is warned about at load, unless the user set them", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-limits-" }));
  const file = `${dir}/greedy.js`;
  await Deno.writeTextFile(
    file,
    `export default { name: "greedy", limits: { memoryMb: 2048, frameMb: 8 }, tools: [] };\n`,
  );
  try {
    const warnings: string[] = [];
    const plugin = await loadPlugin(file, {
      sandbox: true,
      stderr: "capture",
      onWarning: (w) => warnings.push(w),
    });
    await plugin.dispose?.();
    deepEqual(warnings.filter((w) => w.includes("limits")), [
      'plugin "greedy": declares limits above the defaults (memoryMb 2048 (default 512)); ' +
      'pass limits to loadPlugin (or "limits" in tack.jsonc) to hold it to less',
    ]);
    const quiet: string[] = [];
    const held = await loadPlugin(file, {
      sandbox: true,
      stderr: "capture",
      limits: { memoryMb: 4096 },
      onWarning: (w) => quiet.push(w),
    });
    await held.dispose?.();
    deepEqual(quiet.filter((w) => w.includes("limits")), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "a granted program's writes to the sandbox's /tmp (memory) stop at the plugin's memory limit",
  ignore: skipWithoutBwrap("the capped /tmp"),
  async fn() {
    const plugin = await loadPlugin("./tests/fixtures/sandbox/tmp_filler_plugin.ts", {
      sandbox: true,
      limits: { memoryMb: 64 },
      onWarning: () => {}, // dd is a granted program: warned about, expected
    });
    try {
      // Under the cap: written whole.
      equal(await call(plugin, "fill", { mb: 32 }), "exit 0: 32+0 records in");
      // Past it: the tmpfs is full at 64 MB (without the cap, 2 GB went into the host's memory).
      match(
        await call(plugin, "fill", { mb: 100 }),
        /^exit 1: (\/usr)?(\/bin\/)?dd: error writing '\/tmp\/fill': No space left on device$/,
      );
    } finally {
      await plugin.dispose?.();
    }
  },
});

Deno.test({
  name: "a bubblewrap without --size (before 0.7) still confines the sandbox, with /tmp uncapped",
  ignore: skipWithoutBwrap("bubblewrap without --size"),
  async fn() {
    // A bwrap first on the PATH that refuses --size, as bubblewrap 0.6 does, else runs the real one.
    const bin = await Deno.makeTempDir({ prefix: "tack-old-bwrap-" });
    try {
      const real = new TextDecoder().decode(
        (await new Deno.Command("sh", { args: ["-c", "command -v bwrap"] }).output()).stdout,
      ).trim();
      await Deno.writeTextFile(
        `${bin}/bwrap`,
        `#!/bin/sh\nfor a in "$@"; do [ "$a" = --size ] && { echo "bwrap: Unknown option --size" >&2; exit 1; }; done\nexec ${real} "$@"\n`,
      );
      await Deno.chmod(`${bin}/bwrap`, 0o755);
      const host =
        `import { bwrapAvailable, bwrapCapsTmpfs, loadPlugin } from "./sdk/sandbox/mod.ts";
import { callTool } from "./tests/support/sandboxed_calls.ts";
const plugin = await loadPlugin("./tests/fixtures/sandbox/tmp_filler_plugin.ts", {
  sandbox: true, limits: { memoryMb: 64 }, onWarning: () => {},
});
console.log(await bwrapAvailable(), bwrapCapsTmpfs(), await callTool(plugin, "fill", { mb: 1 }));
await plugin.dispose?.();
`;
      const { stdout, stderr } = await runScript(host, ["-A"], {
        env: { PATH: `${bin}:${Deno.env.get("PATH")}` },
      });
      equal(stdout, "true false exit 0: 1+0 records in\n", stderr);
    } finally {
      await Deno.remove(bin, { recursive: true });
    }
  },
});
