// Review: a remembered manifest whose schemas the host now refuses (a stored entry from before
// a stricter check, or edited) must not start the plugin with its grants; the long way refuses it.
import { deepEqual } from "node:assert/strict";
import { runHost, withFreshDenoDir } from "../support/fresh_deno_dir.ts";

const TACK = new URL("../../", import.meta.url);
const PLUGIN_API = JSON.stringify(new URL("sdk/plugin_api.ts", TACK).href);
const SANDBOX = JSON.stringify(new URL("sdk/sandbox/mod.ts", TACK).href);

const plugin = `import { definePlugin, defineTool, Type } from ${PLUGIN_API};
let home;
try { home = Deno.env.get("HOME"); } catch { /* no env access */ }
console.log("top level ran " + (home === undefined ? "without env" : "with env"));
export default definePlugin({
  name: "schemas",
  permissions: { env: ["HOME"] },
  tools: [defineTool({ name: "echo", description: "Echoes",
    parameters: Type.Object({ text: Type.String() }),
    execute: ({ text }) => ({ content: [{ type: "text", text }] }) })],
});`;

const host = (file: string) =>
  `import { loadPlugin } from ${SANDBOX};
const tops = [];
console.error = (...parts) => { const m = parts.join(" ").match(/top level ran (.*)/); if (m) tops.push(m[1]); };
let error;
try { const p = await loadPlugin(${
    JSON.stringify(file)
  }, { sandbox: true, onWarning: () => {} }); await p.dispose(); }
catch (e) { error = e.message; }
console.log(JSON.stringify({ tops, error }));`;

Deno.test({
  name:
    "review: a remembered manifest refused for its schemas never starts the plugin with its grants",
  ignore: Deno.build.os !== "linux",
  fn: () =>
    withFreshDenoDir(async (denoDir, dir) => {
      const file = `${dir}/schemas.js`;
      await Deno.writeTextFile(file, plugin);
      const past = new Date(Date.now() - 60_000);
      await Deno.utime(file, past, past);
      deepEqual(await runHost(host(file), denoDir), { tops: ["without env", "with env"] });
      // The stored entry now holds a schema the host refuses (as after an upgrade to a stricter check).
      const store = `${denoDir}/tack_manifests`;
      const [entry] = [...Deno.readDirSync(store)].filter((e) => e.name.endsWith(".json"));
      const path = `${store}/${entry.name}`;
      const manifest = JSON.parse(await Deno.readTextFile(path));
      manifest.tools[0].parameters = {
        type: "object",
        properties: { text: { type: "string", pattern: "(" } },
      };
      await Deno.writeTextFile(path, JSON.stringify(manifest));
      const second = await runHost(host(file), denoDir) as { tops: string[]; error?: string };
      // Before 9f16048: ["without env", "with env"] (read with none, then its real manifest's grants).
      deepEqual(second.tops, ["without env", "with env"], JSON.stringify(second));
    }),
});
