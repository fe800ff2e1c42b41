import { deepEqual, equal, match } from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { PluginEntry } from "../../cli/config.ts";
import { createPluginLoader, loadPlugins, resolvePluginSpecifier } from "../../cli/load_plugins.ts";

async function withPlugins(
  files: Record<string, string>,
  fn: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(join(dir, name), text);
    }
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const entry = (
  specifier: string,
  baseDir: string,
  extra: Partial<PluginEntry> = {},
): PluginEntry => ({
  specifier,
  baseDir,
  source: "tack.jsonc:3:5",
  ...extra,
});

async function failure(entries: PluginEntry[]): Promise<string> {
  const result = await loadPlugins(entries, createPluginLoader(() => {}));
  if (result.kind !== "error") throw new Error("expected a load error");
  return result.message;
}

Deno.test("specifiers resolve: built-ins, paths against the base folder, registries as they are", () => {
  const base = "/work/project";
  for (
    const name of ["fs", "shell", "http", "read_only", "read-only", "audit", "budget", "rules"]
  ) {
    const resolved = resolvePluginSpecifier(name, base);
    const folder = name === "read-only" ? "read_only" : name;
    equal(resolved.kind === "ok" && resolved.url.endsWith(`/plugins/${folder}/mod.ts`), true, name);
  }
  deepEqual(resolvePluginSpecifier("./p.ts", base), {
    kind: "ok",
    url: "file:///work/project/p.ts",
  });
  deepEqual(resolvePluginSpecifier("../p.ts", base), { kind: "ok", url: "file:///work/p.ts" });
  deepEqual(resolvePluginSpecifier("/abs/p.js", base), { kind: "ok", url: "file:///abs/p.js" });
  deepEqual(resolvePluginSpecifier("plugins/p.ts", base), {
    kind: "ok",
    url: "file:///work/project/plugins/p.ts",
  });
  for (const spec of ["jsr:@x/y", "npm:z@1", "https://x.dev/p.ts", "file:///p.ts"]) {
    deepEqual(resolvePluginSpecifier(spec, base), { kind: "ok", url: spec });
  }
  const bad = resolvePluginSpecifier("my-plugin", base);
  equal(
    bad.kind === "error" && bad.message,
    '"my-plugin" is not a plugin specifier: use a built-in name (fs, shell, http, rules, confirm, ' +
      "read_only, audit, budget, mcp), a path like ./my_plugin.ts, or a jsr:, npm: or https: specifier",
  );
});

Deno.test("a factory gets its options; a plain plugin loads as it is; order is kept", () =>
  withPlugins({
    "factory.ts":
      `export default (o: { who?: string }) => ({ name: "hello-" + (o.who ?? "nobody") });`,
    "async_factory.ts": `export default async () => { await 0; return { name: "later" }; };`,
    "plain.ts": `export default { name: "plain", tools: [] };`,
  }, async (dir) => {
    const result = await loadPlugins(
      [
        entry("./factory.ts", dir, { options: { who: "you" } }),
        entry("./async_factory.ts", dir),
        entry(join(dir, "plain.ts"), "/elsewhere"),
      ],
      createPluginLoader(() => {}),
    );
    if (result.kind !== "ok") throw new Error(result.message);
    deepEqual(result.plugins.map((p) => p.name), ["hello-you", "later", "plain"]);
  }));

Deno.test("the built-in fs plugin loads by its short name", async () => {
  const result = await loadPlugins([entry("fs", Deno.cwd())]);
  if (result.kind !== "ok") throw new Error(result.message);
  equal(result.plugins[0].name, "fs");
  equal((result.plugins[0].tools ?? []).some((tool) => tool.name === "read"), true);
});

Deno.test("every broken module is an error naming the plugin, where it was listed and why", () =>
  withPlugins({
    "none.ts": `export const x = 1;`,
    "number.ts": `export default 42;`,
    "nameless.ts": `export default { tools: [] };`,
    "throws.ts": `export default () => { throw new Error("missing API token\\nstack..."); };`,
    "returns.ts": `export default () => "nope";`,
    "syntax.ts": `export default {{;`,
    "top_level.ts": `throw new Error("boom at load");`,
    "plain.ts": `export default { name: "plain" };`,
  }, async (dir) => {
    const where = (spec: string) => `Cannot load plugin "${spec}" (tack.jsonc:3:5): `;
    equal(
      await failure([entry("./none.ts", dir)]),
      where("./none.ts") + "its module has no default export (export a Plugin or a factory)",
    );
    equal(
      await failure([entry("./number.ts", dir)]),
      where("./number.ts") + "its default export is neither a plugin nor a factory function",
    );
    equal(
      await failure([entry("./nameless.ts", dir)]),
      where("./nameless.ts") + "its default export is neither a plugin nor a factory function",
    );
    equal(
      await failure([entry("./throws.ts", dir)]),
      where("./throws.ts") + "its factory threw: missing API token",
    );
    equal(
      await failure([entry("./returns.ts", dir)]),
      where("./returns.ts") +
        "its factory did not return a plugin (an object with a non-empty name)",
    );
    match(
      await failure([entry("./syntax.ts", dir)]),
      new RegExp(`^${where("./syntax.ts").replace(/[().]/g, "\\$&")}its module failed to load: `),
    );
    equal(
      await failure([entry("./top_level.ts", dir)]),
      where("./top_level.ts") + "its module failed to load: boom at load",
    );
    match(
      await failure([entry("./missing.ts", dir)]),
      /^Cannot load plugin "\.\/missing\.ts" \(tack\.jsonc:3:5\): its module failed to load: Module not found/,
    );
    equal(
      await failure([entry("./plain.ts", dir, { options: { a: 1 } })]),
      where("./plain.ts") +
        "it takes no options (its default export is a plugin, not a factory)",
    );
    equal(
      await failure([entry("./plain.ts", dir, { permissions: { net: true } })]),
      where("./plain.ts") +
        `"permissions" only apply with "sandbox": true (a plugin loaded into the CLI's process ` +
        "has the CLI's permissions)",
    );
  }));

Deno.test("plugins loaded before a failure are disposed", () =>
  withPlugins({
    "first.ts":
      `export default () => ({ name: "first", dispose() { globalThis.__tackDisposed = true; } });`,
  }, async (dir) => {
    const message = await failure([entry("./first.ts", dir), entry("nope", dir)]);
    match(
      message,
      /^Cannot load plugin "nope" \(tack\.jsonc:3:5\): "nope" is not a plugin specifier/,
    );
    equal((globalThis as { __tackDisposed?: boolean }).__tackDisposed, true);
  }));

Deno.test("a sandboxed entry runs in its own process with the options it was given", () =>
  withPlugins({
    "greeter.ts": `export default (o: { greeting: string }) => ({
      name: "greeter",
      permissions: {},
      tools: [{ name: "greet", description: "Greets", parameters: { type: "object" },
        execute: () => ({ content: [{ type: "text", text: o.greeting + " from pid " + Deno.pid }] }) }],
    });`,
  }, async (dir) => {
    const warnings: string[] = [];
    const result = await loadPlugins(
      [entry("./greeter.ts", dir, { sandbox: true, options: { greeting: "hey" } })],
      createPluginLoader((w) => warnings.push(w)),
    );
    if (result.kind !== "ok") throw new Error(result.message);
    const [plugin] = result.plugins;
    try {
      const tool = plugin.tools![0];
      const out = await tool.execute({}, { toolCallId: "1", signal: new AbortController().signal });
      const text = out.content[0].type === "text" ? out.content[0].text : "";
      match(text, /^hey from pid \d+$/);
      equal(text === `hey from pid ${Deno.pid}`, false);
    } finally {
      await plugin.dispose?.();
    }
  }));

Deno.test("a sandboxed entry asking for more than allowed is refused with the sandbox's reason", () =>
  withPlugins({
    "runner.ts": `export default { name: "runner", permissions: { run: ["bash"] }, tools: [] };`,
  }, async (dir) => {
    const message = await failure([entry("./runner.ts", dir, { sandbox: true })]);
    match(
      message,
      /^Cannot load plugin "\.\/runner\.ts" \(tack\.jsonc:3:5\): it asks for run access to "bash"/,
    );
    // The suggestion names what works in tack.jsonc, and following it loads the plugin.
    match(message, /set "allowRunEscape": true on its tack\.jsonc entry/);
    const result = await loadPlugins(
      [entry("./runner.ts", dir, { sandbox: true, allowRunEscape: true })],
      createPluginLoader(() => {}),
    );
    if (result.kind !== "ok") throw new Error(result.message);
    equal(result.plugins[0].name, "runner");
    await result.plugins[0].dispose?.();
  }));

Deno.test("file URLs of plugins are accepted as they are", () =>
  withPlugins({ "p.ts": `export default { name: "by-url" };` }, async (dir) => {
    const url = pathToFileURL(join(dir, "p.ts")).href;
    const result = await loadPlugins([entry(url, "/")]);
    equal(result.kind === "ok" && result.plugins[0].name, "by-url");
  }));

Deno.test('tack.jsonc\'s "hooks" and "manifestHash" reach the sandbox: a broad grant is warned about, another manifest refused', () =>
  withPlugins({
    "guard.ts": `export default { name: "guard", tools: [], beforeToolCall: () => undefined };`,
  }, async (dir) => {
    // Without "sandbox" they mean nothing, and saying so beats ignoring them.
    match(
      await failure([entry("./guard.ts", dir, { hooks: "all" })]),
      /^Cannot load plugin "\.\/guard\.ts" \(tack\.jsonc:3:5\): "hooks" only applies with "sandbox": true/,
    );
    const refused = await failure([
      entry("./guard.ts", dir, { sandbox: true, manifestHash: `sha256-${"0".repeat(64)}` }),
    ]);
    match(
      refused,
      /^Cannot load plugin "\.\/guard\.ts" \(tack\.jsonc:3:5\): plugin "guard": its manifest \(tools, schemas, hooks, permissions\) differs from the one inspected \(sha256-0{64}, now sha256-[0-9a-f]{64}\); it is refused/,
    );
    const actual = /now (sha256-[0-9a-f]{64})/.exec(refused)![1];
    const warnings: string[] = [];
    const result = await loadPlugins(
      [entry("./guard.ts", dir, { sandbox: true, hooks: "all", manifestHash: actual })],
      createPluginLoader((w) => warnings.push(w)),
    );
    if (result.kind !== "ok") throw new Error(result.message);
    try {
      deepEqual(warnings.filter((w) => w.includes("hooks")), [
        'plugin "guard": its hooks are granted every tool (hooks: "all"): beforeToolCall: ' +
        "observe, block, rewrite arguments (every tool's calls, and the whole transcript)",
      ]);
    } finally {
      await result.plugins[0].dispose?.();
    }
  }));

Deno.test('tack.jsonc\'s "limits", "hookTimeoutMs" and "maxToolTimeoutMs" reach the sandbox', () =>
  withPlugins({
    "slow.ts": `export default { name: "slow",
      tools: [{ name: "wait", description: "Waits", parameters: { type: "object" }, timeoutMs: 90000,
        execute: () => ({ content: [{ type: "text", text: "waited" }] }) }],
      beforeToolCall: () => new Promise(() => {}) };`,
  }, async (dir) => {
    match(
      await failure([entry("./slow.ts", dir, { limits: { memoryMb: 256 } })]),
      /^Cannot load plugin "\.\/slow\.ts" \(tack\.jsonc:3:5\): "limits" only applies with "sandbox": true/,
    );
    const result = await loadPlugins(
      [entry("./slow.ts", dir, {
        sandbox: true,
        limits: { memoryMb: 256 },
        hookTimeoutMs: 300,
        maxToolTimeoutMs: 60_000,
      })],
      createPluginLoader(() => {}),
    );
    if (result.kind !== "ok") throw new Error(result.message);
    const [plugin] = result.plugins;
    try {
      deepEqual((plugin as { limits?: unknown }).limits, { memoryMb: 256, frameMb: 16 });
      equal(plugin.tools![0].timeoutMs, 60_000);
      const tool = plugin.tools![0];
      const verdict = await Promise.resolve(plugin.beforeToolCall!({
        toolCall: { type: "toolCall", id: "c1", name: "wait", arguments: {} },
        tool,
        args: {},
        assistantMessage: {
          role: "assistant",
          content: [],
          stopReason: "toolUse",
          usage: { input: 0, output: 0, totalTokens: 0 },
          provider: "test",
          model: "test",
          timestamp: 0,
        },
        context: { systemPrompt: "", messages: [], tools: [tool] },
      } as never, new AbortController().signal)).then(() => "answered", (e: Error) => e.message);
      match(String(verdict), /its beforeToolCall hook did not answer within 300 ms/);
    } finally {
      await plugin.dispose?.();
    }
  }));
