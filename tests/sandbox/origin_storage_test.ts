// Deno keeps origin storage (localStorage, the Cache API) in its cache folder and asks for no
// permission to write it. Under bubblewrap the child's own cache folder is on the host's disk,
// so a plugin with no permissions could store as much as it liked there, and keep it: that
// folder's `location_data` is a capped tmpfs in the sandbox.
import { deepEqual, equal } from "node:assert/strict";
import { childCacheDir } from "../../sdk/sandbox/child_cache.ts";
import { denoCacheDir } from "../../sdk/sandbox/deno_dir.ts";
import { loadPlugin } from "../../sdk/sandbox/mod.ts";
import { skipWithoutBwrap } from "../support/os_layer.ts";

const STORER = `export default { name: "storer", tools: [{
  name: "store", description: "Stores MiB in the Cache API", parameters: { type: "object" },
  async execute({ mib }) {
    localStorage.setItem("k", "v");
    const cache = await caches.open("c");
    try {
      for (let i = 0; i < mib; i++) {
        await cache.put("https://x/" + i, new Response("x".repeat(1 << 20)));
      }
      return { content: [{ type: "text", text: "stored " + mib + " MiB" }] };
    } catch (error) {
      return { content: [{ type: "text", text: "refused: " + error.name }] };
    }
  } }] };
`;

/** Every file under a `location_data` folder of the children's caches. */
async function storedFiles(denoDir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory) await walk(`${dir}/${entry.name}`);
      else found.push(`${dir}/${entry.name}`);
    }
  };
  for await (const child of Deno.readDir(`${denoDir}/tack_sandbox`)) {
    await walk(`${denoDir}/tack_sandbox/${child.name}/location_data`).catch(() => {});
  }
  return found;
}

Deno.test({
  name:
    "a plugin with no permissions stores nothing on the host's disk through origin storage, and at most 64 MiB in memory",
  ignore: skipWithoutBwrap("origin storage"),
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-storage-" }));
    await Deno.writeTextFile(`${dir}/storer.js`, STORER);
    const call = { toolCallId: "1", signal: new AbortController().signal };
    const plugin = await loadPlugin(`${dir}/storer.js`, { sandbox: true, onWarning: () => {} });
    try {
      const small = await plugin.tools![0].execute({ mib: 8 }, call);
      deepEqual(small.content, [{ type: "text", text: "stored 8 MiB" }]);
      const big = await plugin.tools![0].execute({ mib: 100 }, call);
      // Before: "stored 100 MiB", on the host's disk, kept after dispose.
      equal(big.content[0].type === "text" && big.content[0].text.startsWith("refused"), true);
    } finally {
      await plugin.dispose?.();
      await Deno.remove(dir, { recursive: true });
    }
    deepEqual(await storedFiles(await denoCacheDir()), []);
  },
});

Deno.test({
  name:
    "a plugin importing data: modules leaves no emitted code on the host's disk (found by an attack: 1 GB kept)",
  ignore: skipWithoutBwrap("data: module emit"),
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-emit-" }));
    await Deno.writeTextFile(
      `${dir}/emitter.js`,
      `export default { name: "emitter", tools: [{
        name: "emit", description: "Imports TypeScript data: modules", parameters: { type: "object" },
        async execute() {
          for (let i = 0; i < 4; i++) {
            const source = "export const n: number = " + i + "; // " + "x".repeat(1 << 18);
            await import("data:application/typescript;base64," + btoa(source));
          }
          return { content: [{ type: "text", text: "imported" }] };
        } }] };
`,
    );
    const call = { toolCallId: "1", signal: new AbortController().signal };
    const children = `${await denoCacheDir()}/tack_sandbox`;
    const emitted = async () => {
      const found: string[] = [];
      const list = (path: string) => Array.fromAsync(Deno.readDir(path)).catch(() => []);
      for (const child of await list(children)) {
        for (const entry of await list(`${children}/${child.name}/gen/data`)) {
          found.push(entry.name);
        }
      }
      return found;
    };
    // What other runs left (a shared cache) is not this test's.
    const before = new Set(await emitted());
    const plugin = await loadPlugin(`${dir}/emitter.js`, { sandbox: true, onWarning: () => {} });
    try {
      const result = await plugin.tools![0].execute({}, call);
      deepEqual(result.content, [{ type: "text", text: "imported" }]);
    } finally {
      await plugin.dispose?.();
      await Deno.remove(dir, { recursive: true });
    }
    deepEqual((await emitted()).filter((name) => !before.has(name)), []);
  },
});

/** The bytes of every file under `path` (0 when it does not exist). */
async function sizeOf(path: string): Promise<number> {
  let total = 0;
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      const at = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(at);
      else if (entry.isFile) total += (await Deno.stat(at)).size;
    }
  };
  await walk(path).catch(() => {});
  return total;
}

Deno.test({
  name:
    "a plugin compiling many blob: and data: modules cannot grow its cache folder on the host's disk (found by the sandbox attack: 1.1 GB)",
  ignore: skipWithoutBwrap("child cache growth"),
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-blobfill-" }));
    const file = `${dir}/filler.js`;
    // 40 TypeScript blob: modules of 1 MB (emitted to gen/blob) and 40 JavaScript data:
    // modules of many functions (V8's code cache and Deno's dependency analysis, SQLite files).
    await Deno.writeTextFile(
      file,
      `export default { name: "filler", tools: [{
        name: "fill", description: "Compiles modules", parameters: { type: "object" },
        async execute() {
          let done = 0;
          try {
            for (let i = 0; i < 40; i++) {
              const ts = "// " + crypto.randomUUID() + "\\nconst s: string = '" + "x".repeat(1 << 20) + "';\\nexport default s.length;";
              await import(URL.createObjectURL(new Blob([ts], { type: "application/typescript" })));
              const js = "// " + crypto.randomUUID() + "\\n" +
                Array.from({ length: 5000 }, (_, k) => "export function f" + k + "(a) { return a * " + k + "; }").join("\\n");
              await import("data:application/javascript;base64," + btoa(js));
              done++;
            }
            return { content: [{ type: "text", text: "compiled " + done }] };
          } catch (error) {
            return { content: [{ type: "text", text: "refused after " + done + ": " + error.name }] };
          }
        } }] };
`,
    );
    const own = await childCacheDir(`file://${file}`, await denoCacheDir(), dir);
    const call = { toolCallId: "1", signal: new AbortController().signal };
    const plugin = await loadPlugin(file, { sandbox: true, onWarning: () => {} });
    try {
      const result = await plugin.tools![0].execute({}, call);
      // Deno keeps what it cannot cache in memory: every module still loads.
      deepEqual(result.content, [{ type: "text", text: "compiled 40" }]);
      const size = await sizeOf(own);
      // Before: 40 MB in gen/blob alone, and the SQLite caches above it. Now only the emit of
      // the graph's own files (Tack's runner, ~2.5 MB).
      equal(size < 8 * 1024 * 1024, true, `${size} bytes on the host's disk`);
    } finally {
      await plugin.dispose?.();
      await Deno.remove(own, { recursive: true });
      await Deno.remove(dir, { recursive: true });
    }
  },
});
