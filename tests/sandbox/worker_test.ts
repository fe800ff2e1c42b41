// The worker isolation: same protocol, same denials, in a Worker with exactly the
// plugin's permissions (the host needs --unstable-worker-options, so it runs as a
// subprocess here).
import { deepEqual } from "node:assert/strict";
import { NOT_CONFINED_WARNING } from "../../sdk/sandbox/mod.ts";

Deno.test("isolation: worker denies what the plugin was not granted and serves what it was", async () => {
  const root = await Deno.makeTempDir({ prefix: "tack-worker-" });
  try {
    await Deno.mkdir(`${root}/ws`);
    await Deno.writeTextFile(`${root}/ws/notes.txt`, "inside");
    const host = new URL("../fixtures/sandbox/worker_host.ts", import.meta.url).pathname;
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--unstable-worker-options", host, root],
      stdin: "null", // not a terminal: a worker sandbox is refused where Deno could prompt
      stdout: "piped",
      stderr: "piped",
    }).output();
    const lines = new TextDecoder().decode(output.stdout).trim().split("\n").map((line) =>
      JSON.parse(line)
    );
    deepEqual(lines, [
      { warning: `plugin "escaper": ${NOT_CONFINED_WARNING}` },
      {
        error: 'Permission denied: read access to "/etc/passwd" is not granted to plugin "escaper"',
      },
      { ok: [{ type: "text", text: 'escaped: "inside"' }] },
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("isolation: worker without --unstable-worker-options is a load error, not an exit", async () => {
  const host = new URL("../fixtures/sandbox/worker_host.ts", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", host, "/nonexistent"],
    stdin: "null", // not a terminal: a worker sandbox is refused where Deno could prompt
    stdout: "piped",
    stderr: "piped",
  }).output();
  deepEqual(JSON.parse(new TextDecoder().decode(output.stdout)), {
    loadError:
      'Cannot load plugin "./tests/fixtures/sandbox/escape_plugin.ts": Cannot start worker sandbox: isolation "worker" needs the host to run with --unstable-worker-options',
  });
});

Deno.test("isolation: worker on a host with narrow flags: refused with the flag it needs, never an exit", async () => {
  // Found by a walkthrough: without -A the host cannot read its command line, the flag check
  // answered "unknown, go on", and Deno ended the process (exit 70); and a host that could not
  // read its temp folder failed to load the entry with a hint about the plugin's permissions.
  const host = new URL("../fixtures/sandbox/worker_host.ts", import.meta.url).pathname;
  const root = await Deno.makeTempDir();
  await Deno.mkdir(`${root}/ws`);
  await Deno.writeTextFile(`${root}/ws/notes.txt`, "inside");
  const run = async (flags: string[], env: Record<string, string> = {}) => {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...flags, "--allow-write=/tmp", "--allow-run", "--allow-env", host, root],
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const lines = new TextDecoder().decode(output.stdout).trim().split("\n");
    return { code: output.code, last: JSON.parse(lines.at(-1)!) };
  };
  const label = 'Cannot load plugin "./tests/fixtures/sandbox/escape_plugin.ts": ';
  try {
    deepEqual(await run([`--allow-read=.,${root}`, "--unstable-worker-options"]), {
      code: 0,
      last: {
        loadError: label +
          `isolation "worker" loads the sandbox's entry module from the host's temp folder "/tmp", which the host may not read: add --allow-read=/tmp to the host's flags`,
      },
    });
    deepEqual(await run([`--allow-read=.,${root},/tmp`]), {
      code: 0,
      last: {
        loadError: label +
          `Cannot start worker sandbox: isolation "worker" needs the host to run with --unstable-worker-options, and this host cannot tell whether it does (its command line is readable only with -A): run it with -A, or set TACK_WORKER_OPTIONS=1, with --allow-env=TACK_WORKER_OPTIONS so it may read it, when the flag (or deno.json's "unstable": ["worker-options"]) is on`,
      },
    });
    deepEqual(
      await run([`--allow-read=.,${root},/tmp`, "--unstable-worker-options"], {
        TACK_WORKER_OPTIONS: "1",
      }),
      { code: 0, last: { ok: [{ type: "text", text: 'escaped: "inside"' }] } },
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("isolation: a worker's message without content is garbage: the call fails, the worker restarts", async () => {
  const host = new URL("../fixtures/sandbox/null_update_host.ts", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-worker-options", host],
    stdin: "null", // not a terminal: a worker sandbox is refused where Deno could prompt
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout).trim();
  // Before: the update reached every event listener, which read its missing content.
  deepEqual(JSON.parse(stdout), {
    error: 'Tool junk failed: the sandbox of plugin "nully" printed invalid protocol output ' +
      '("{\\"type\\":\\"update\\",\\"id\\":1,\\"partial\\":null}") while running it; it restarts for the next call',
  });
});

Deno.test("isolation: a plugin that ends its worker (Deno.exit, close) fails the call at once; the next call gets a fresh worker", async () => {
  const host = new URL("../fixtures/sandbox/exiting_host.ts", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-worker-options", host],
    stdin: "null", // not a terminal: a worker sandbox is refused where Deno could prompt
    stdout: "piped",
    stderr: "piped",
  }).output();
  const lines = new TextDecoder().decode(output.stdout).trim().split("\n").map((line) =>
    JSON.parse(line)
  );
  const failed = (tool: string, how: string) => ({
    error: `Tool ${tool} failed: the sandbox of plugin "quitter" ended itself (${how}) ` +
      "while running it; it restarts for the next call",
  });
  deepEqual(lines, [
    failed("exit", "Deno.exit(7)"),
    { ok: [{ type: "text", text: "alive" }] },
    failed("close", "close()"),
    { ok: [{ type: "text", text: "alive" }] },
  ]);
});
