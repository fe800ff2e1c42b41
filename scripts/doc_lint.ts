/**
 * Runs `deno doc --lint` on every entry point `deno.json` exports, so the list of
 * published modules and the list of linted ones cannot drift apart.
 *
 * Run: deno run -A scripts/doc_lint.ts
 */

const root = new URL("..", import.meta.url);
const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
const entries = Object.values(config.exports as Record<string, string>);
const { code } = await new Deno.Command(Deno.execPath(), {
  args: ["doc", "--lint", ...entries],
  cwd: root,
  stdout: "inherit",
  stderr: "inherit",
}).output();
if (code === 0) console.log(`doc lint ok: ${entries.length} entry points`);
Deno.exit(code);
