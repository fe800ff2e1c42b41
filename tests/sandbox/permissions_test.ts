// Grants to flags, denials to results (in-process too), and load errors.
import { HAVE_BWRAP, skipWithoutBwrap } from "../support/os_layer.ts";
import { deepEqual, equal, match, rejects, throws } from "node:assert/strict";
import { permissionDenial } from "../../core/create_error_tool_result.ts";
import {
  describeGrants,
  escapingRunGrants,
  loadPlugin,
  permissionFlags,
  resolveGrants,
} from "../../sdk/sandbox/mod.ts";

Deno.test("grants resolve against the root and become one flag per permission", () => {
  const grants = resolveGrants(
    { read: ["./ws", "/etc/hosts"], write: ["out"], net: ["api.example.com"], env: true, run: [] },
    "/home/me",
  );
  deepEqual(permissionFlags(grants, ["jsr.io"]), [
    "--allow-read=/home/me/ws,/etc/hosts",
    "--allow-write=/home/me/out",
    "--allow-net=api.example.com",
    "--allow-env",
    "--deny-run",
    "--deny-ffi",
    "--deny-sys",
    "--allow-import=jsr.io",
  ]);
  equal(
    describeGrants(grants),
    'read: ["/home/me/ws","/etc/hosts"], write: ["/home/me/out"], net: ["api.example.com"], env: true',
  );
});

Deno.test("a grant entry with a comma cannot be expressed as a flag", () => {
  throws(() => resolveGrants({ read: ["a,b"] }, "/"), {
    name: "TypeError",
    message:
      'Cannot grant read access to "a,b": an entry must be a non-empty string without commas',
  });
});

Deno.test("run grants that escape: true, shells, interpreters, launchers, deno itself", () => {
  deepEqual(escapingRunGrants({ run: true }), ["*"]);
  const launchers = ["setsid", "nohup", "timeout", "nice", "xargs", "/usr/bin/stdbuf", "awk"];
  deepEqual(escapingRunGrants({ run: ["stty", ...launchers] }), launchers);
  deepEqual(escapingRunGrants({ run: ["git", "/bin/bash", Deno.execPath()] }), [
    "/bin/bash",
    Deno.execPath(),
  ]);
  deepEqual(escapingRunGrants({ run: ["git"] }), []);
});

Deno.test("permissionDenial recognises NotCapable, a TypeError caused by one, and a denied import", () => {
  const notCapable = new Deno.errors.NotCapable(
    'Requires net access to "example.com:443", run again with the --allow-net flag',
  );
  deepEqual(permissionDenial(notCapable), { name: "net", value: "example.com:443" });
  deepEqual(permissionDenial(new TypeError("fetch failed", { cause: notCapable })), {
    name: "net",
    value: "example.com:443",
  });
  deepEqual(
    permissionDenial(
      new TypeError(
        'Requires import access to "deno.land:443", run again with the --allow-import flag',
      ),
    ),
    { name: "import", value: "deno.land:443" },
  );
  deepEqual(permissionDenial(new Deno.errors.NotCapable("Requires env access")), { name: "env" });
  equal(permissionDenial(new TypeError("x is not a function")), undefined);
  equal(permissionDenial("Requires read access"), undefined);
});

Deno.test("an in-process plugin's denial is a result too: the host's flags are the ceiling", async () => {
  const host = new URL("../fixtures/sandbox/in_process_host.ts", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", `--allow-read=${Deno.cwd()}`, host],
    stdout: "piped",
    stderr: "piped",
  }).output();
  deepEqual(JSON.parse(new TextDecoder().decode(output.stdout)), {
    content: [{
      type: "text",
      text: 'Permission denied: read access to "/etc/passwd" is not granted to plugin "weather"',
    }],
    details: { permission: { name: "read", value: "/etc/passwd" } },
  });
});

Deno.test("loadPlugin without sandbox imports the module in-process", async () => {
  const plugin = await loadPlugin("./tests/fixtures/sandbox/faulty_plugin.ts");
  equal(plugin.name, "faulty");
  equal(typeof plugin.beforeToolCall, "function");
});

Deno.test("a default export that is not a plugin is a load error, in-process and sandboxed", async () => {
  const fixture = "./tests/fixtures/sandbox/not_a_plugin.ts";
  const url = new URL("../fixtures/sandbox/not_a_plugin.ts", import.meta.url).href;
  await rejects(loadPlugin(fixture), {
    message:
      `Cannot load plugin "${url}": its default export is not a plugin (an object with a name) nor a factory of one`,
  });
  await rejects(loadPlugin(fixture, { sandbox: true, stderr: "capture" }), {
    message:
      `Cannot load plugin "${fixture}": it failed to load its module: the default export of ${url} is not a plugin (an object with a name) nor a factory of one`,
  });
});

Deno.test("a module whose top level throws fails to load sandboxed, with its error", async () => {
  const fixture = "./tests/fixtures/sandbox/broken_plugin.ts";
  const error = await loadPlugin(fixture, { sandbox: true, stderr: "capture" }).then(
    () => undefined,
    (error: Error) => error,
  );
  match(
    error?.message ?? "",
    /^Cannot load plugin "\.\/tests\/fixtures\/sandbox\/broken_plugin\.ts": it crashed \(exit code 1\); its last words on stderr: ".*the plugin's top level failed on purpose/s,
  );
});

Deno.test({
  name: "a knowingly allowed run escape loads, with a warning",
  ignore: skipWithoutBwrap("a knowingly allowed run escape loads"),
}, async () => {
  equal(HAVE_BWRAP, true, "bubblewrap must be installed");
  const warnings: string[] = [];
  const plugin = await loadPlugin("./tests/fixtures/sandbox/faulty_plugin.ts", {
    sandbox: true,
    permissions: { run: ["sh"] },
    allowRunEscape: true,
    stderr: "capture",
    onWarning: (warning) => warnings.push(warning),
  });
  await plugin.dispose?.();
  deepEqual(warnings, ['plugin "faulty": has run access to sh and can escape its sandbox']);
});

Deno.test("a module that never finishes loading is killed at the start timeout", async () => {
  const fixture = "./tests/fixtures/sandbox/hanging_plugin.ts";
  await rejects(loadPlugin(fixture, { sandbox: true, startTimeoutMs: 300, stderr: "capture" }), {
    message: `Cannot load plugin "${fixture}": it did not report its manifest within 300 ms`,
  });
});

Deno.test({
  name:
    "a write grant that does not exist refuses the load (its writes would vanish with the sandbox); once it exists, what the plugin writes there reaches the host",
  ignore: skipWithoutBwrap("a write grant that does not exist refuses the load"),
  async fn() {
    equal(HAVE_BWRAP, true, "bubblewrap must be installed");
    const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-write-" }));
    const fixture = "./tests/fixtures/sandbox/scribe_plugin.ts";
    const warnings: string[] = [];
    const load = () =>
      loadPlugin(fixture, {
        sandbox: true,
        root,
        stderr: "capture",
        onWarning: (warning) => warnings.push(warning),
      });
    try {
      // Before: it loaded with a warning, its calls said "saved" and the files were written
      // into the sandbox's own memory.
      await rejects(load(), {
        message: `Cannot load plugin "${fixture}": its write grant "${root}/notes" does not ` +
          "exist, and bubblewrap mounts only what exists (writes there would vanish with the " +
          "sandbox): create it (a folder, or the file), or grant a folder that exists",
      });
      equal((await Array.fromAsync(Deno.readDir(root))).length, 0, "nothing was created");
      await Deno.mkdir(`${root}/notes`);
      const plugin = await load();
      try {
        const save = plugin.tools!.find((tool) => tool.name === "save")!;
        const signal = new AbortController().signal;
        const result = await save.execute({ path: `${root}/notes/a.md`, text: "milk" }, {
          toolCallId: "1",
          signal,
        });
        deepEqual(result.content, [{ type: "text", text: `saved ${root}/notes/a.md` }]);
        equal(await Deno.readTextFile(`${root}/notes/a.md`), "milk");
      } finally {
        await plugin.dispose?.();
      }
      deepEqual(warnings, []);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test("a module that needs permissions at load says how to give them", async () => {
  const fixture = "./tests/fixtures/sandbox/needy_plugin.ts";
  const source = new URL("../fixtures/sandbox/needy_plugin.ts", import.meta.url).pathname;
  await rejects(loadPlugin(fixture, { sandbox: true, stderr: "capture" }), {
    message:
      `Cannot load plugin "${fixture}": it failed to load its module: Requires read access to "${source}", run again with the --allow-read flag (its manifest is read in a sandbox with no permissions: pass what its module's top level needs as \`permissions\`)`,
  });
  const plugin = await loadPlugin(fixture, {
    sandbox: true,
    permissions: { read: [source] },
    stderr: "capture",
  });
  equal(plugin.description, `${(await Deno.readTextFile(source)).length} bytes of source`);
  await plugin.dispose?.();
});
