// An `ffi` grant is native code outside Deno's flags: a plugin granted only libc runs
// any program through `system()`. Refused unless allowRunEscape, warned about when allowed
// and in inspect.
import { skipWithoutBwrap } from "../support/os_layer.ts";
import { deepEqual, equal, rejects } from "node:assert/strict";
import { inspectPlugin, loadPlugin, NOT_CONFINED_WARNING } from "../../sdk/sandbox/mod.ts";

const LIBC = ["/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6"]
  .find((path) => {
    try {
      return Deno.statSync(path).isFile;
    } catch {
      return false;
    }
  });
const NOTE = "native code runs outside Deno's flags (libc's system() runs any program)";

/** A plugin that declares only `ffi: [libc]` and runs its argument through `system()`. */
async function nativePlugin(): Promise<{ root: string; plugin: string }> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-ffi-" }));
  await Deno.mkdir(`${root}/outside`);
  const plugin = `${root}/native.js`;
  await Deno.writeTextFile(
    plugin,
    `const LIBC = ${JSON.stringify(LIBC)};
export default {
  name: "native",
  permissions: { ffi: [LIBC] },
  tools: [{ name: "system", description: "Runs a command through libc", parameters: { type: "object" },
    execute: ({ command }) => {
      const libc = Deno.dlopen(LIBC, { system: { parameters: ["buffer"], result: "i32" } });
      const status = libc.symbols.system(new TextEncoder().encode(command + "\\0"));
      return { content: [{ type: "text", text: "system() = " + status }] };
    } }],
};`,
  );
  return { root, plugin };
}

const call = { toolCallId: "1", signal: new AbortController().signal };

Deno.test({
  name: "a plugin declaring an ffi grant is refused at load unless allowRunEscape",
  ignore: LIBC === undefined || skipWithoutBwrap("ffi grant refused"),
  async fn() {
    const { root, plugin } = await nativePlugin();
    try {
      // Before: it loaded silently, and system() ran any program.
      await rejects(loadPlugin(plugin, { sandbox: true, root, stderr: "capture" }), {
        message:
          `Cannot load plugin "${plugin}": it asks for ffi access to "${LIBC}", which escapes every sandbox (${NOTE}); pass allowRunEscape: true if you mean it`,
      });
      // Given by the caller, not declared: refused the same.
      await rejects(
        loadPlugin(plugin, { sandbox: true, root, permissions: { ffi: true }, stderr: "capture" }),
        {
          message:
            `Cannot load plugin "${plugin}": it asks for ffi access to "*", which escapes every sandbox (${NOTE}); pass allowRunEscape: true if you mean it`,
        },
      );
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "a knowingly allowed ffi grant loads with a warning, and is what the refusal says: a shell in the sandbox, the host's rights without it",
  ignore: LIBC === undefined || skipWithoutBwrap("ffi grant allowed"),
  async fn() {
    const { root, plugin } = await nativePlugin();
    try {
      const warnings: string[] = [];
      const confined = await loadPlugin(plugin, {
        sandbox: true,
        root,
        allowRunEscape: true,
        stderr: "capture",
        onWarning: (warning) => warnings.push(warning),
      });
      try {
        deepEqual(warnings, [
          `plugin "native": has ffi access to ${LIBC} and can escape its sandbox (${NOTE})`,
        ]);
        // No run grant, yet a shell runs: its exit status 7 comes back as 7 << 8.
        const result = await confined.tools![0].execute({ command: "exit 7" }, call);
        deepEqual(result.content, [{ type: "text", text: `system() = ${7 << 8}` }]);
      } finally {
        await confined.dispose?.();
      }
      warnings.length = 0;
      const open = await loadPlugin(plugin, {
        sandbox: true,
        root,
        confine: false,
        allowRunEscape: true,
        stderr: "capture",
        onWarning: (warning) => warnings.push(warning),
      });
      try {
        deepEqual(warnings, [
          `plugin "native": ${NOT_CONFINED_WARNING}`,
          `plugin "native": has ffi access to ${LIBC} and can escape its sandbox (${NOTE})`,
        ]);
        // No write grant, yet a file outside every grant is written.
        const result = await open.tools![0].execute(
          { command: `echo pwned > ${root}/outside/proof` },
          call,
        );
        deepEqual(result.content, [{ type: "text", text: "system() = 0" }]);
        equal(await Deno.readTextFile(`${root}/outside/proof`), "pwned\n");
      } finally {
        await open.dispose?.();
      }
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test({
  name: "inspect warns that an ffi grant escapes every sandbox",
  ignore: LIBC === undefined || skipWithoutBwrap("ffi grant inspected"),
  async fn() {
    const { root, plugin } = await nativePlugin();
    try {
      const report = await inspectPlugin(plugin, { root, stderr: "capture" });
      deepEqual(report.permissions, { ffi: [LIBC] });
      deepEqual(report.warnings, [
        `it asks for ffi access to ${LIBC}, which escapes every sandbox (${NOTE})`,
      ]);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});
