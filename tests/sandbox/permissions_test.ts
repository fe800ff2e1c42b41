// Grants to flags, denials to results (in-process too), and load errors.
import { HAVE_BWRAP, skipWithoutBwrap } from "../support/os_layer.ts";
import { deepEqual, equal, match, rejects, throws } from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { outputWithin } from "../support/run_script.ts";
import { permissionDenial } from "../../core/create_error_tool_result.ts";
import {
  describeGrants,
  escapingRunGrants,
  inspectPlugin,
  loadPlugin,
  NOT_CONFINED_WARNING,
  permissionFlags,
  resolveGrants,
  runOnRequestGrants,
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
    // With any env grant: the variables fetch's proxy comes from stay denied.
    "--deny-env=HTTP_PROXY,http_proxy,HTTPS_PROXY,https_proxy,ALL_PROXY,all_proxy,NO_PROXY,no_proxy",
  ]);
  // The graph's hosts join an import grant (once each); `import: true` stays whole.
  const importing = (granted: true | string[]) =>
    permissionFlags(resolveGrants({ import: granted }, "/"), ["jsr.io"]).at(-1);
  equal(importing(["esm.sh", "jsr.io"]), "--allow-import=esm.sh,jsr.io");
  equal(importing(true), "--allow-import");
  equal(permissionFlags(resolveGrants({}, "/")).at(-1), "--deny-import");
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

/** A temp folder with an executable file at `bin/<name>` and a link `<link>` to it. */
async function linkedProgram(name: string, link: string): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-run-" }));
  await Deno.mkdir(`${dir}/bin`);
  await Deno.writeTextFile(`${dir}/bin/${name}`, "#!/bin/true\n", { mode: 0o755 });
  await Deno.symlink(`${dir}/bin/${name}`, `${dir}/${link}`);
  return dir;
}

Deno.test("run grants: an interpreter with a version suffix escapes like its plain name", () => {
  const versioned = [
    "python3.11",
    "perl5.36.0",
    "tclsh8.6",
    "ruby3.1",
    "php8.2",
    "lua5.4",
    "node18",
    "pypy3",
    "nodejs",
    "rbash",
    "zsh-5.9",
    "/usr/bin/python3.12",
  ];
  deepEqual(escapingRunGrants({ run: ["stty", ...versioned, "python3-config"] }), versioned);
});

Deno.test("run grants: a symlink to a shell escapes, by path and by a bare name on PATH", async () => {
  const dir = await linkedProgram("bash", "fmt");
  try {
    await Deno.symlink(`${dir}/fmt`, `${dir}/lint`);
    await Deno.symlink(`${dir}/bin`, `${dir}/tools`);
    const paths = [`${dir}/fmt`, `${dir}/lint`, `${dir}/tools/bash`];
    deepEqual(escapingRunGrants({ run: paths }), paths);
    // The sandbox's PATH is the host's: a bare name is judged by the file it finds there.
    // (Only prepended, and only for this synchronous check: other spawns resolve as before.)
    const path = Deno.env.get("PATH") ?? "";
    Deno.env.set("PATH", `${dir}:${path}`);
    try {
      deepEqual(escapingRunGrants({ run: ["fmt", "stty"] }), ["fmt"]);
    } finally {
      Deno.env.set("PATH", path);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("run grants: /proc, /dev/fd and anything that is the deno binary escape", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-run-" }));
  try {
    await Deno.symlink("/proc/self/exe", `${dir}/self`);
    await Deno.symlink("/dev/fd", `${dir}/fds`);
    await Deno.symlink(Deno.execPath(), `${dir}/tool`);
    const run = [
      "/proc/self/exe",
      "/proc/1/exe",
      "/proc/self/fd/3",
      "/dev/fd/3",
      "/dev/stdin",
      `${dir}/self`,
      `${dir}/fds/3`,
      `${dir}/tool`,
    ];
    deepEqual(escapingRunGrants({ run: [...run, "/usr/bin/stty"] }), run);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("run grants: the dynamic loader escapes, under any of its names", async () => {
  const loaders = [
    "/lib64/ld-linux-x86-64.so.2",
    "/lib/ld-linux-aarch64.so.1",
    "ld.so",
    "/lib/ld-musl-x86_64.so.1",
    "/lib/libc.musl-x86_64.so.1",
    "/lib/x86_64-linux-gnu/ld-2.31.so",
  ];
  deepEqual(escapingRunGrants({ run: [...loaders, "/usr/lib/libc.so.6"] }), loaders);
  const dir = await linkedProgram("ld-linux-x86-64.so.2", "runner");
  try {
    deepEqual(escapingRunGrants({ run: [`${dir}/runner`] }), [`${dir}/runner`]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("run grants: launchers beyond env and setsid escape", () => {
  const launchers = [
    "prlimit",
    "setarch",
    "linux32",
    "linux64",
    "x86_64",
    "i386",
    "uname26",
    "time",
    "valgrind",
    "fakeroot",
    "sg",
    "newgrp",
    "start-stop-daemon",
    "tmux",
    "screen",
    "run-parts",
    "wish",
  ];
  deepEqual(escapingRunGrants({ run: ["stty", ...launchers] }), launchers);
});

Deno.test("run grants: programs that run others on request are warned about, not refused", async () => {
  const programs = [
    "find",
    "git",
    "sed",
    "tar",
    "make",
    "vim",
    "/usr/bin/vim.basic",
    "ed",
    "less",
    "ssh",
    "rsync",
    "zip",
    // Harmless-looking ones with an option that runs a program.
    "sort",
    "split",
    "rg",
    "fd",
    "m4",
    "install",
    "wget",
  ];
  deepEqual(runOnRequestGrants({ run: ["stty", ...programs, "sh"] }), programs);
  deepEqual(escapingRunGrants({ run: programs }), []);
  const dir = await linkedProgram("git", "vcs");
  try {
    deepEqual(runOnRequestGrants({ run: [`${dir}/vcs`] }), [`${dir}/vcs`]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a run grant of a program that runs others loads with a warning, and inspect shows it", async () => {
  const warning =
    "which can run other programs on request: those escape Deno's flags (and, without an OS layer, everything)";
  const warnings: string[] = [];
  const plugin = await loadPlugin("./tests/fixtures/sandbox/faulty_plugin.ts", {
    sandbox: true,
    confine: false,
    permissions: { run: ["git", "stty"] },
    stderr: "capture",
    onWarning: (message) => warnings.push(message),
  });
  await plugin.dispose?.();
  deepEqual(warnings, [
    `plugin "faulty": ${NOT_CONFINED_WARNING}`,
    `plugin "faulty": has run access to git, ${warning}`,
  ]);
  const dir = await Deno.makeTempDir({ prefix: "tack-run-" });
  try {
    await Deno.writeTextFile(
      `${dir}/p.js`,
      'export default { name: "p", permissions: { run: ["find"] }, tools: [] };',
    );
    const report = await inspectPlugin(`${dir}/p.js`, { confine: false, stderr: "capture" });
    deepEqual(report.warnings, [
      `it asks for run access to find, ${warning}`,
      NOT_CONFINED_WARNING,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
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

Deno.test("an in-process plugin's denial is a result too, naming this process and its flag: the host's flags are the ceiling", async () => {
  const host = new URL("../fixtures/sandbox/in_process_host.ts", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", `--allow-read=${Deno.cwd()}`, host],
    stdout: "piped",
    stderr: "piped",
  }).output();
  deepEqual(JSON.parse(new TextDecoder().decode(output.stdout)), {
    content: [{
      type: "text",
      text:
        'Permission denied: read access to "/etc/passwd" is not granted to this process (grant it with --allow-read)',
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

Deno.test("loadPlugin in process: a top-level await or factory that never settles fails after startTimeoutMs", async () => {
  // In a child process: the module's own timer keeps its event loop alive (the old hang), and
  // a top-level await left pending would fail this test process at its end.
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.writeTextFile(
      `${dir}/tla.ts`,
      `setInterval(() => {}, 1_000);\nawait new Promise(() => {});\nexport default { name: "x" };\n`,
    );
    await Deno.writeTextFile(
      `${dir}/factory.ts`,
      `setInterval(() => {}, 1_000);\nexport default () => new Promise(() => {});\n`,
    );
    const loader = new URL("../../sdk/sandbox/load_plugin.ts", import.meta.url).href;
    await Deno.writeTextFile(
      `${dir}/host.ts`,
      `import { loadPlugin } from ${JSON.stringify(loader)};
try { await loadPlugin(Deno.args[0], { startTimeoutMs: 200 }); console.log("loaded"); }
catch (error) { console.log(error.message); }
Deno.exit(0);
`,
    );
    for (const name of ["tla.ts", "factory.ts"]) {
      const output = await outputWithin(
        new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", `--config=${CONFIG}`, `${dir}/host.ts`, `${dir}/${name}`],
          stdout: "piped",
          stderr: "piped",
        }),
        20_000,
      );
      equal(output.signal, null, "killed by the test's guard: loadPlugin hung");
      equal(output.code, 0, output.stderr);
      equal(
        output.stdout.trim(),
        `Cannot load plugin "${pathToFileURL(`${dir}/${name}`).href}": it did not finish loading ` +
          "within 200 ms (a top-level await or a factory that never settles? if it is only slow, raise startTimeoutMs)",
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const CONFIG = new URL("../../deno.json", import.meta.url).pathname;
