// examples/sandbox.ts runs offline with narrow flags, and the model reads the denial and
// chooses the allowed path.
import { deepEqual, equal } from "node:assert/strict";
import { denoCacheDir } from "../../sdk/sandbox/deno_dir.ts";

Deno.test("examples/sandbox.ts: the model reads a denial and chooses an allowed path", async () => {
  const deno = Deno.execPath();
  const output = await new Deno.Command(deno, {
    args: [
      "run",
      "--no-prompt",
      "--allow-read",
      `--allow-write=${await Deno.realPath(Deno.env.get("TMPDIR") ?? "/tmp")}`,
      `--allow-run=bwrap,unshare,${deno}`,
      "--allow-env=HOME",
      "examples/sandbox.ts",
    ],
    cwd: new URL("../..", import.meta.url),
    env: {
      DENO_DIR: await denoCacheDir(),
      HOME: "/home/nobody",
      NO_COLOR: "1",
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const stdout = new TextDecoder().decode(output.stdout).replace(
    /\/[^"\s]*tack-example-[0-9a-f]+/g,
    "<root>",
  );
  deepEqual(stdout.trim().split("\n"), [
    'plugin "notes" runs sandboxed with read: ["<root>/notes"]',
    '→ read_file({"path":"/home/nobody/.ssh/id_rsa"})',
    '  ✗ Permission denied: read access to "/home/nobody/.ssh/id_rsa" is not granted to plugin "notes"',
    '→ list_dir({"path":"<root>/notes"})',
    "  ✓ todo.txt",
    '→ read_file({"path":"<root>/notes/todo.txt"})',
    "  ✓ Buy milk. Ship the sandbox.",
    "Your note says: Buy milk. Ship the sandbox.",
  ]);
});
