// Preparing a sandbox runs `deno info` (and `deno cache`) before any sandbox starts. Found by
// the sandbox attack: a plugin project whose .npmrc names a registry that accepts connections
// and never answers held loadPlugin and inspectPlugin for ever. Each run is now bounded by
// startTimeoutMs: killed with its process group, the load failing with what it printed last.
import { equal, rejects } from "node:assert/strict";
import { inspectPlugin, loadPlugin } from "../../sdk/sandbox/mod.ts";

/** A registry on loopback that accepts connections and never answers. */
function tarpit() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })().catch(() => {});
  return {
    port: listener.addr.port,
    async close() {
      listener.close();
      for (const conn of held) conn.close();
      await accepting;
    },
  };
}

/** The processes whose command line mentions `text`. */
function processesNaming(text: string): string[] {
  const found: string[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const line = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).replaceAll("\0", " ");
      if (line.includes(text)) found.push(line);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Rejects after `ms`: before the fix the load never settled. */
function stillWaiting(ms: number): Promise<never> {
  return new Promise((_, reject) => {
    const timer = setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms);
    Deno.unrefTimer(timer);
  });
}

for (
  const [name, load] of [
    ["loadPlugin", (path: string) => loadPlugin(path, { sandbox: true, startTimeoutMs: 1500 })],
    ["inspectPlugin", (path: string) => inspectPlugin(path, { startTimeoutMs: 1500 })],
  ] as const
) {
  Deno.test(`${name}: a registry that never answers fails preparation at startTimeoutMs, leaving no process`, async () => {
    const registry = tarpit();
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-tarpit-" }));
    await Deno.writeTextFile(`${dir}/deno.json`, "{}");
    await Deno.writeTextFile(`${dir}/.npmrc`, `registry=http://127.0.0.1:${registry.port}/\n`);
    await Deno.writeTextFile(
      `${dir}/plugin.js`,
      'import "npm:tack-tarpit-package@1.0.0";\nexport default { name: "tarpitted", tools: [] };\n',
    );
    try {
      const started = performance.now();
      await rejects(Promise.race([load(`${dir}/plugin.js`), stillWaiting(15_000)]), {
        message:
          `Cannot load plugin "${dir}/plugin.js": Cannot prepare plugin: deno info did not finish within 1500 ms (startTimeoutMs); it was stopped; what it printed last: "Download http://127.0.0.1:${registry.port}/tack-tarpit-package"`,
      });
      const took = performance.now() - started;
      equal(took < 4000, true, `took ${took} ms`);
      equal(processesNaming(dir).join("\n"), "");
    } finally {
      await registry.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
