import { deepEqual, equal } from "node:assert/strict";
import { join } from "node:path";
import { loadConfig, MAX_CONFIG_BYTES, parseConfig } from "../../cli/config.ts";

function fails(text: string): string {
  const result = parseConfig(text, "tack.jsonc");
  if (result.kind !== "error") throw new Error(`expected an error for ${text}`);
  return result.message;
}

Deno.test("a full config file with comments and trailing commas", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "tack.jsonc");
    await Deno.writeTextFile(
      file,
      `{
  // the model
  "model": "llama3.2",
  "baseURL": "http://127.0.0.1:11434/v1",
  "systemPrompt": "Be brief.", /* block comment */
  "sessionDir": "state/sessions",
  "maxTurns": 12,
  "plugins": [
    "fs",
    { "specifier": "./my_plugin.ts", "options": { "level": 3, "tags": ["a"] } },
    { "specifier": "npm:some-plugin", "sandbox": true, "permissions": { "net": ["api.x.com"], "env": false } },
  ],
  "rules": [{ "name": "no-push", "action": "deny", "tool": "bash", "args": { "command": { "regex": "git push" } } }],
}`,
    );
    const result = await loadConfig(file, true);
    if (result.kind !== "ok") throw new Error(result.message);
    const config = result.config;
    equal(config.path, file);
    equal(config.model, "llama3.2");
    equal(config.baseURL, "http://127.0.0.1:11434/v1");
    equal(config.systemPrompt, "Be brief.");
    equal(config.sessionDir, join(dir, "state/sessions"));
    equal(config.maxTurns, 12);
    deepEqual(config.plugins, [
      { specifier: "fs", baseDir: dir, source: `${file}:9:5` },
      {
        specifier: "./my_plugin.ts",
        options: { level: 3, tags: ["a"] },
        baseDir: dir,
        source: `${file}:10:5`,
      },
      {
        specifier: "npm:some-plugin",
        sandbox: true,
        permissions: { net: ["api.x.com"], env: false },
        baseDir: dir,
        source: `${file}:11:5`,
      },
    ]);
    equal(config.rules?.[0].name, "no-push");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an empty file and an empty object are empty configs", () => {
  deepEqual(parseConfig("", "t.jsonc"), { kind: "ok", config: { path: "t.jsonc" } });
  deepEqual(parseConfig("// nothing\n{}", "t.jsonc"), { kind: "ok", config: { path: "t.jsonc" } });
});

Deno.test("syntax errors name the file, line and column", () => {
  equal(
    fails('{\n  "model": "a"\n  "baseURL": "b"\n}'),
    'Cannot load config: tack.jsonc:3:3: invalid JSONC: expected ","',
  );
  equal(
    fails('{ "model": }'),
    "Cannot load config: tack.jsonc:1:12: invalid JSONC: expected a value",
  );
  equal(
    fails('{ "model": "x'),
    "Cannot load config: tack.jsonc:1:12: invalid JSONC: unterminated string",
  );
  equal(fails("[1, 2"), 'Cannot load config: tack.jsonc:1:6: invalid JSONC: expected "]"');
});

Deno.test("shape errors name the file, line, column and key", () => {
  equal(
    fails("[]"),
    'Cannot load config: tack.jsonc:1:1: "" must be an object, got an array',
  );
  equal(
    fails('{\n  "modle": "gpt"\n}'),
    'Cannot load config: tack.jsonc:2:3: "modle" is not a known key (expected one of: $schema, ' +
      "model, baseURL, systemPrompt, plugins, sessionDir, maxTurns, rules, price)",
  );
  equal(
    fails('{ "model": "" }'),
    'Cannot load config: tack.jsonc:1:12: "model" must be a non-empty string, got a string ("")',
  );
  equal(
    fails('{ "baseURL": null }'),
    'Cannot load config: tack.jsonc:1:14: "baseURL" must be a non-empty string, got null',
  );
  equal(
    fails('{ "maxTurns": 1.5 }'),
    'Cannot load config: tack.jsonc:1:15: "maxTurns" must be a positive integer, got a number (1.5)',
  );
  equal(
    fails('{ "plugins": "fs" }'),
    'Cannot load config: tack.jsonc:1:14: "plugins" must be an array, got a string ("fs")',
  );
  equal(
    fails('{ "plugins": [\n  "fs",\n  42\n] }'),
    'Cannot load config: tack.jsonc:3:3: "plugins[1]" must be a specifier string or ' +
      '{ "specifier": … }, got a number (42)',
  );
  equal(
    fails('{ "plugins": [{ "options": {} }] }'),
    'Cannot load config: tack.jsonc:1:15: "plugins[0].specifier" is missing',
  );
  equal(
    fails('{ "plugins": [{ "specifier": "fs", "sandboxed": true }] }'),
    'Cannot load config: tack.jsonc:1:36: "plugins[0].sandboxed" is not a known key ' +
      "(expected one of: specifier, options, sandbox, permissions, hooks, manifestHash, allowRunEscape, limits, hookTimeoutMs, maxToolTimeoutMs, startTimeoutMs)",
  );
  equal(
    fails('{ "plugins": [{ "specifier": "fs", "sandbox": "yes" }] }'),
    'Cannot load config: tack.jsonc:1:47: "plugins[0].sandbox" must be true or false, got a string ("yes")',
  );
  equal(
    fails('{ "plugins": [{ "specifier": "fs", "options": [1] }] }'),
    'Cannot load config: tack.jsonc:1:47: "plugins[0].options" must be an object, got an array',
  );
  equal(
    fails('{ "plugins": [{ "specifier": "fs", "permissions": { "disk": true } }] }'),
    'Cannot load config: tack.jsonc:1:53: "plugins[0].permissions.disk" is not a known key ' +
      "(expected one of: read, write, net, env, run, ffi, sys, import)",
  );
  equal(
    fails('{ "plugins": [{ "specifier": "fs", "permissions": { "net": [1] } }] }'),
    'Cannot load config: tack.jsonc:1:61: "plugins[0].permissions.net[0]" must be a non-empty ' +
      "string, got a number (1)",
  );
  equal(
    fails('{ "plugins": [{ "specifier": "fs", "permissions": { "net": "all" } }] }'),
    'Cannot load config: tack.jsonc:1:60: "plugins[0].permissions.net" must be true, false or ' +
      'a list of strings, got a string ("all")',
  );
});

Deno.test("bad rules name the rule's line and what is wrong with it", () => {
  equal(
    fails('{ "rules": {} }'),
    'Cannot load config: tack.jsonc:1:12: "rules" must be an array, got an object',
  );
  equal(
    fails(
      '{ "rules": [\n  { "name": "a", "action": "deny", "tool": "x" },\n  { "name": "b", "action": "nope", "tool": "y" }\n] }',
    ),
    'Cannot load config: tack.jsonc:3:3: "rules[1]" action must be "allow", "deny" or "ask", got "nope"',
  );
  equal(
    fails(
      '{ "rules": [\n  { "name": "a", "action": "deny", "tool": "x" },\n  { "name": "a", "action": "ask", "tool": "y" }\n] }',
    ),
    'Cannot load config: tack.jsonc:3:3: "rules[1]" another rule has the same name',
  );
});

Deno.test("a missing file is an empty config unless it was asked for", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "tack.jsonc");
    deepEqual(await loadConfig(file, false), { kind: "ok", config: {} });
    deepEqual(await loadConfig(file, true), {
      kind: "error",
      message: `Cannot load config: ${file}: no such file`,
    });
    await Deno.mkdir(join(dir, "folder.jsonc"));
    const folder = await loadConfig(join(dir, "folder.jsonc"), true);
    equal(folder.kind, "error");
    equal(
      folder.kind === "error" &&
        folder.message.startsWith(`Cannot load config: ${dir}/folder.jsonc: `),
      true,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test('"price" needs input and output dollars per million tokens', () => {
  equal(
    fails('{ "price": { "input": 0.15 } }'),
    'Cannot load config: tack.jsonc:1:12: "price" needs "input" and "output" (dollars per million tokens)',
  );
  equal(
    fails('{ "price": { "input": 0.15, "output": "cheap" } }'),
    'Cannot load config: tack.jsonc:1:39: "price.output" must be a number of dollars ≥ 0, got a string ("cheap")',
  );
});

Deno.test('a sandboxed entry\'s "hooks", "manifestHash" and "allowRunEscape" are read; a bad hooks grant is named', () => {
  const result = parseConfig(
    `{ "plugins": [{ "specifier": "./guard.ts", "sandbox": true, "hooks": "all",
      "manifestHash": "sha256-ab", "allowRunEscape": true }] }`,
    "/p/tack.jsonc",
  );
  if (result.kind !== "ok") throw new Error(result.message);
  deepEqual(result.config.plugins, [{
    specifier: "./guard.ts",
    sandbox: true,
    hooks: "all",
    manifestHash: "sha256-ab",
    allowRunEscape: true,
    baseDir: "/p",
    source: "/p/tack.jsonc:1:15",
  }]);
  equal(
    fails('{ "plugins": [{ "specifier": "./g.ts", "sandbox": true, "hooks": "every" }] }'),
    'Cannot load config: tack.jsonc:1:66: "plugins[0].hooks" must be "own" or "all", got a string ("every")',
  );
  equal(
    fails('{ "plugins": [{ "specifier": "./g.ts", "manifestHash": 1 }] }'),
    'Cannot load config: tack.jsonc:1:56: "plugins[0].manifestHash" must be a non-empty string, got a number (1)',
  );
});

Deno.test('a sandboxed entry\'s "limits", "hookTimeoutMs" and "maxToolTimeoutMs" are read; bad ones are named', () => {
  const result = parseConfig(
    `{ "plugins": [{ "specifier": "./big.ts", "sandbox": true,
      "limits": { "memoryMb": 1024, "frameMb": 4 }, "hookTimeoutMs": 5000, "maxToolTimeoutMs": 60000 }] }`,
    "/p/tack.jsonc",
  );
  if (result.kind !== "ok") throw new Error(result.message);
  deepEqual(result.config.plugins, [{
    specifier: "./big.ts",
    sandbox: true,
    limits: { memoryMb: 1024, frameMb: 4 },
    hookTimeoutMs: 5000,
    maxToolTimeoutMs: 60000,
    baseDir: "/p",
    source: "/p/tack.jsonc:1:15",
  }]);
  equal(
    fails('{ "plugins": [{ "specifier": "./g.ts", "limits": { "memoryMb": 0 } }] }'),
    'Cannot load config: tack.jsonc:1:64: "plugins[0].limits.memoryMb" must be a positive integer, got a number (0)',
  );
  equal(
    fails('{ "plugins": [{ "specifier": "./g.ts", "limits": { "cpu": 1 } }] }'),
    'Cannot load config: tack.jsonc:1:52: "plugins[0].limits.cpu" is not a known key (expected one of: memoryMb, frameMb)',
  );
  equal(
    fails('{ "plugins": [{ "specifier": "./g.ts", "hookTimeoutMs": "1s" }] }'),
    'Cannot load config: tack.jsonc:1:57: "plugins[0].hookTimeoutMs" must be a positive integer, got a string ("1s")',
  );
});

Deno.test("a config saved with a byte order mark loads", async () => {
  // Found by an attack: an editor's BOM was "tack.jsonc:1:1: invalid JSONC: unexpected symbol".
  const file = await Deno.makeTempFile({ suffix: ".jsonc" });
  try {
    await Deno.writeTextFile(file, '\uFEFF{ "model": "gpt-4.1" } // saved by an editor\n');
    const result = await loadConfig(file, true);
    equal(result.kind === "ok" && result.config.model, "gpt-4.1");
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("a tack.jsonc that is a link to a device, a FIFO or too large is refused, not read", async () => {
  const dir = await Deno.makeTempDir();
  const main = new URL("../../cli/main.ts", import.meta.url).pathname;
  const run = async () => {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", main, "hello"],
      cwd: dir,
      env: { NO_COLOR: "1", OPENAI_API_KEY: "sk-test" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(20_000), // before: /dev/zero was read until memory ran out
    }).output();
    return { code: output.code, stderr: new TextDecoder().decode(output.stderr).trim() };
  };
  try {
    await Deno.symlink("/dev/zero", `${dir}/tack.jsonc`);
    deepEqual(await run(), {
      code: 2,
      stderr: "Cannot load config: tack.jsonc: not a regular file",
    });
    await Deno.remove(`${dir}/tack.jsonc`);
    const fifo = await new Deno.Command("mkfifo", { args: [`${dir}/tack.jsonc`] }).output();
    equal(fifo.success, true);
    deepEqual(await run(), {
      code: 2,
      stderr: "Cannot load config: tack.jsonc: not a regular file",
    });
    await Deno.remove(`${dir}/tack.jsonc`);
    await Deno.writeTextFile(
      `${dir}/tack.jsonc`,
      `{ "model": "m" }${" ".repeat(MAX_CONFIG_BYTES)}`,
    );
    deepEqual(await run(), {
      code: 2,
      stderr: `Cannot load config: tack.jsonc: ${
        MAX_CONFIG_BYTES + 16
      } bytes, over the ${MAX_CONFIG_BYTES} a config may have`,
    });
    // A /proc file says it has 0 bytes and never ends: the read is bounded too.
    if (Deno.build.os === "linux") {
      await Deno.remove(`${dir}/tack.jsonc`);
      await Deno.symlink("/proc/self/pagemap", `${dir}/tack.jsonc`);
      deepEqual(await run(), {
        code: 2,
        stderr: `Cannot load config: tack.jsonc: more than the ${MAX_CONFIG_BYTES} bytes ` +
          "a config may have",
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
