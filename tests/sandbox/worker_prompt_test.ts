// A worker's permissions left out are "ask", not "deny", and Deno asks the host's terminal: a
// worker plugin with no permissions asked for a file and got it with one keypress. Worker
// isolation is refused on a terminal unless the host runs with --no-prompt.
import { equal, match } from "node:assert/strict";
import { onTerminal } from "../support/on_terminal.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const SANDBOX = JSON.stringify(`file://${ROOT}/sdk/sandbox/mod.ts`);

const host = `import { loadPlugin } from ${SANDBOX};
const dir = await Deno.makeTempDir();
await Deno.writeTextFile(dir + "/p.js", 'export default { name: "asker", tools: [{ name: "peek", description: "peek", parameters: { type: "object" }, execute: () => ({ content: [{ type: "text", text: Deno.readTextFileSync("/etc/hostname") }] }) }] };');
let plugin;
try {
  plugin = await loadPlugin(dir + "/p.js", { sandbox: true, isolation: "worker", onWarning: () => {} });
  const result = await plugin.tools[0].execute({}, { toolCallId: "1", signal: new AbortController().signal });
  console.log("RESULT " + result.content[0].text.slice(0, 40));
} catch (error) {
  console.log((plugin ? "FAILED " : "REFUSED ") + error.message);
} finally {
  await plugin?.dispose();
}
await Deno.remove(dir, { recursive: true });
`;

Deno.test({
  name: "worker isolation on a terminal: refused unless the host runs with --no-prompt",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const flags = [`--config=${ROOT}/deno.json`, "-A", "--unstable-worker-options"];
    const asking = await onTerminal(host, flags);
    // Before: "Deno requests read access to "/etc/hostname"", one keypress from granting it.
    equal(asking.prompt, undefined, asking.output);
    match(
      asking.output,
      /REFUSED Cannot load plugin "[^"]+": Cannot start worker sandbox: isolation "worker" needs the host to run with --no-prompt on a terminal, or with DENO_NO_PROMPT=1 where it may read it \(Deno would ask on the terminal for what the plugin was not granted\)/,
    );
    // With --no-prompt what it was not granted is denied, and no prompt shows.
    const denied = await onTerminal(host, [...flags, "--no-prompt"]);
    equal(denied.prompt, undefined, denied.output);
    match(
      denied.output,
      /FAILED Permission denied: read access to "\/etc\/hostname" is not granted to plugin "asker"/,
    );
  },
});

Deno.test({
  name:
    "worker isolation on a terminal: a host with its own grants (not -A) needs DENO_NO_PROMPT, as it cannot read its command line",
  ignore: Deno.build.os !== "linux",
  async fn() {
    // Deno lets only a host with every permission read /proc/self/cmdline (review).
    const flags = [
      `--config=${ROOT}/deno.json`,
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-run",
      "--allow-net",
      "--allow-sys",
      "--unstable-worker-options",
      "--no-prompt",
    ];
    // Nor can it tell it runs with --unstable-worker-options: it says so itself.
    const said = { TACK_WORKER_OPTIONS: "1" };
    const refused = await onTerminal(host, flags, said);
    match(refused.output, /REFUSED [^\r\n]*or with DENO_NO_PROMPT=1 where it may read it/);
    const denied = await onTerminal(host, flags, { ...said, DENO_NO_PROMPT: "1" });
    equal(denied.prompt, undefined, denied.output);
    match(
      denied.output,
      /FAILED Permission denied: read access to "\/etc\/hostname" is not granted to plugin "asker"/,
    );
  },
});
