// A host that makes the fs plugin before it may read the root, and grants the plugin's
// permissions afterwards (Deno.permissions.request, a person answering): the root's real path
// was unknown at the first calls, and `prepareArguments` passed their paths unresolved, so a
// link in the root took the first write past a rule denying `.git/**` (found by an attack:
// the hook was planted). Now the root is resolved when the first call needs it.
import { createFsContext, createWriteTool } from "@tack/agent/plugins/fs";
import { deepEqual, rejects, throws } from "node:assert/strict";
import { fileURLToPath } from "node:url";

const HAVE_SCRIPT = await Deno.stat("/usr/bin/script").then(() => true, () => false);
const repo = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Runs the fixture in a terminal (`script` gives it one, so Deno prompts), answering "y" to
 * each permission prompt, and returns what it printed after `RESULTS `.
 */
async function runAnswering(root: string): Promise<unknown> {
  const command = [
    Deno.execPath(),
    "run",
    "--no-lock",
    `--allow-read=${repo}`,
    `${repo}tests/fixtures/fs/late_grant_main.ts`,
    root,
  ].join(" ");
  const child = new Deno.Command("script", {
    args: ["-qec", command, "/dev/null"],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
  let out = "";
  // Deno drops what was typed before it asks: "y" is sent again until the prompt is answered.
  const answer = setInterval(() => {
    const asked = out.split("Allow?").length - 1;
    const answered = out.split("Granted").length - 1 + (out.split("Denied").length - 1);
    if (asked > answered) writer.write(new TextEncoder().encode("y\n")).catch(() => {});
  }, 200);
  try {
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      out += chunk;
      if (/RESULTS .*\r?\n/.test(out)) break;
    }
  } finally {
    clearInterval(answer);
    clearTimeout(guard);
    await writer.close().catch(() => {});
    await child.status;
  }
  const results = out.match(/RESULTS (.*)\r?\n/)?.[1];
  if (results === undefined) throw new Error(`no results; the fixture printed:\n${out}`);
  return JSON.parse(results);
}

Deno.test({
  name: "fs: a plugin made before the root could be read still shows policies the real path",
  ignore: !HAVE_SCRIPT,
}, async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.mkdir(`${root}/.git/hooks`, { recursive: true });
    await Deno.symlink(".git/hooks", `${root}/hooks`);
    deepEqual(await runAnswering(root), [[
      true,
      'Blocked by rule "no-git-writes" (deny any tool with effect write, path matching glob ".git/**")',
    ]]);
    await rejects(Deno.stat(`${root}/.git/hooks/pre-commit`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test({
  name: "fs: a root that still may not be read refuses the call in prepareArguments",
  permissions: { read: [repo], write: false, env: true },
}, () => {
  const root = "/tmp/tack no grant";
  const write = createWriteTool(createFsContext({ root }));
  throws(
    () => write.prepareArguments?.({ path: "hooks/pre-commit", content: "x" }),
    {
      name: "NotCapable",
      message: `Requires read access to "${root}", run again with the --allow-read flag`,
    },
  );
});
