// The CLI's permission set (`deno task agent` runs with -P=cli) lets the sandbox use what it
// relies on: here, prlimit, the OS memory cap of a sandboxed plugin. Checked in a real
// process with that set, from the repository's deno.json.
import { equal } from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url).pathname;

Deno.test({
  name:
    "the CLI's permission set finds prlimit (the sandbox's OS memory cap) where it is installed",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const installed = ["/usr/bin/prlimit", "/bin/prlimit"].find((path) => {
      try {
        return Deno.statSync(path).isFile;
      } catch {
        return false;
      }
    });
    const script = await Deno.makeTempFile({ dir: ROOT, prefix: ".tack-prlimit-", suffix: ".ts" });
    try {
      await Deno.writeTextFile(
        script,
        `import { prlimitPath } from "./sdk/sandbox/memory_limit.ts";\nconsole.log(prlimitPath() ?? "none");\n`,
      );
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-P=cli", "--no-prompt", script],
        cwd: ROOT,
        stdout: "piped",
        stderr: "piped",
      }).output();
      equal(output.success, true, new TextDecoder().decode(output.stderr));
      equal(new TextDecoder().decode(output.stdout).trim(), installed ?? "none");
    } finally {
      await Deno.remove(script);
    }
  },
});
