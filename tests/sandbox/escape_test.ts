// The escape suite: a sandboxed plugin granted only `read: ["./ws"]` tries every way
// out; each attempt must end as an error result naming the permission.
import { skipWithoutBwrap } from "../support/os_layer.ts";
import { createAgent, scriptedModel, text, type ToolResultMessage } from "@tack/agent";
import { toolCall } from "@tack/agent/sdk/testing";
import { deepEqual, equal, rejects } from "node:assert/strict";
import {
  bwrapAvailable,
  inspectPlugin,
  loadPlugin,
  NOT_CONFINED_WARNING,
} from "../../sdk/sandbox/mod.ts";

const FIXTURE = "./tests/fixtures/sandbox/escape_plugin.ts";
const SECRET_JSON = new URL("./secret_credentials.json", import.meta.url).pathname;
const SECRET_MODULE = new URL("./secret_module.ts", import.meta.url).pathname;
const linux = Deno.build.os === "linux";

async function workspace(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "tack-escape-" });
  await Deno.mkdir(`${root}/ws`);
  await Deno.mkdir(`${root}/outside`);
  await Deno.writeTextFile(`${root}/ws/notes.txt`, "inside the grant");
  await Deno.writeTextFile(`${root}/outside/secret.txt`, "outside the grant");
  await Deno.symlink(`${root}/outside/secret.txt`, `${root}/ws/link`);
  return root;
}

/** A loopback TCP server that counts the connections it sees. */
function loopback(): { port: number; connections: () => number; close: () => Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let count = 0;
  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        count++;
        conn.close();
      }
    } catch {
      // Closed.
    }
  })();
  return {
    port: listener.addr.port,
    connections: () => count,
    close: async () => {
      listener.close();
      await accepting;
    },
  };
}

const denied = (name: string, value?: string) => ({
  text: `Permission denied: ${name} access${
    value === undefined ? "" : ` to ${JSON.stringify(value)}`
  } is not granted to plugin "escaper"`,
  details: { permission: value === undefined ? { name } : { name, value } },
});

Deno.test({
  name: "escape suite: every way out of a read-only sandbox is a denial the model reads",
  ignore: skipWithoutBwrap("escape suite"),
  async fn() {
    equal(await bwrapAvailable(), true, "bubblewrap must be installed for the escape suite");
    const root = await workspace();
    const server = loopback();
    Deno.env.set("OPENAI_API_KEY", "sk-host-secret");
    const warnings: string[] = [];
    const plugin = await loadPlugin(FIXTURE, {
      sandbox: true,
      root,
      stderr: "capture",
      onWarning: (warning) => warnings.push(warning),
    });
    try {
      deepEqual(warnings, []);
      const attempts: [string, string | undefined, ReturnType<typeof denied>][] = [
        ["read", "/etc/passwd", denied("read", "/etc/passwd")],
        ["read", `${root}/ws/../outside/secret.txt`, denied("read", `${root}/outside/secret.txt`)],
        ["read", `${root}/ws/link`, denied("read", `${root}/outside/secret.txt`)],
        ["write", `${root}/ws/new.txt`, denied("write", `${root}/ws/new.txt`)],
        ["write", "/tmp/pwned.txt", denied("write", "/tmp/pwned.txt")],
        ["connect", `127.0.0.1:${server.port}`, denied("net", `127.0.0.1:${server.port}`)],
        ["fetch", `http://127.0.0.1:${server.port}/`, denied("net", `127.0.0.1:${server.port}`)],
        ["spawn", "sh", denied("run", "sh")],
        ["env", "OPENAI_API_KEY", denied("env", "OPENAI_API_KEY")],
        ["env", "HOME", denied("env", "HOME")],
        ["env_all", undefined, denied("env")],
        [
          "dlopen",
          "/usr/lib/x86_64-linux-gnu/libc.so.6",
          denied("ffi", "/usr/lib/x86_64-linux-gnu/libc.so.6"),
        ],
        ["import", "npm:left-pad@1.3.0", denied("import", "npm:left-pad")],
        ["import", SECRET_MODULE, denied("read", SECRET_MODULE)],
        ["import_json_computed", SECRET_JSON, denied("read", SECRET_JSON)],
        ["import_json_literal", undefined, denied("read", SECRET_JSON)],
      ];
      const calls = attempts.map(([kind, target], i) =>
        toolCall("attempt", target === undefined ? { kind } : { kind, target }, `call-${i}`)
      );
      calls.push(toolCall("attempt", { kind: "read", target: `${root}/ws/notes.txt` }, "allowed"));
      const agent = createAgent({
        model: scriptedModel([calls, [text("I stayed inside.")]]),
        plugins: [plugin],
      });
      await agent.prompt("Try to get out.");
      const results = agent.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
      equal(results.length, attempts.length + 1);
      attempts.forEach(([kind, target, expected], i) => {
        const result = results[i];
        const label = `${kind} ${target ?? ""}`;
        equal(result.isError, true, label);
        deepEqual(result.content, [{ type: "text", text: expected.text }], label);
        deepEqual(result.details, expected.details, label);
      });
      const allowed = results.at(-1)!;
      equal(allowed.isError, false);
      deepEqual(allowed.content, [{ type: "text", text: 'escaped: "inside the grant"' }]);
      equal(server.connections(), 0, "the loopback server saw a connection");
      await rejects(Deno.stat(`${root}/ws/new.txt`));
    } finally {
      Deno.env.delete("OPENAI_API_KEY");
      await plugin.dispose?.();
      await server.close();
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test("without the OS layer: flags still deny, but module loading is not confined (and says so)", async () => {
  const root = await workspace();
  const warnings: string[] = [];
  const plugin = await loadPlugin(FIXTURE, {
    sandbox: true,
    root,
    confine: false,
    stderr: "capture",
    onWarning: (warning) => warnings.push(warning),
  });
  try {
    deepEqual(warnings, [`plugin "escaper": ${NOT_CONFINED_WARNING}`]);
    const [tool] = plugin.tools!;
    const signal = new AbortController().signal;
    await rejects(
      Promise.resolve(
        tool.execute({ kind: "read", target: "/etc/passwd" }, { toolCallId: "1", signal }),
      ),
      { message: denied("read", "/etc/passwd").text },
    );
    // The holes the OS layer closes, pinned so a change in Deno is noticed:
    const json = await tool.execute({ kind: "import_json_literal" }, { toolCallId: "2", signal });
    deepEqual(json.content, [{
      type: "text",
      text: 'escaped: {"default":{"apiKey":"sk-this-must-never-leak"}}',
    }]);
    const link = await tool.execute({ kind: "read", target: `${root}/ws/link` }, {
      toolCallId: "3",
      signal,
    });
    deepEqual(link.content, [{ type: "text", text: 'escaped: "outside the grant"' }]);
  } finally {
    await plugin.dispose?.();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a plugin that statically imports a file outside its folder is refused at load", async () => {
  const fixture = "./tests/fixtures/sandbox/static_escape_plugin.ts";
  const folder = new URL("../fixtures/sandbox", import.meta.url).pathname;
  await rejects(loadPlugin(fixture, { sandbox: true, stderr: "capture" }), {
    message:
      `Cannot load plugin "${fixture}": it imports "${SECRET_MODULE}", which is outside its folder "${folder}" and its read grant`,
  });
});

Deno.test("a plugin asking for run access to a shell is refused unless the user allows it knowingly", async () => {
  await rejects(
    loadPlugin(FIXTURE, { sandbox: true, permissions: { run: ["git", "sh"] }, stderr: "capture" }),
    {
      message:
        `Cannot load plugin "${FIXTURE}": it asks for run access to "sh", which escapes every sandbox; pass allowRunEscape: true if you mean it`,
    },
  );
});

Deno.test("a run grant on a symlink to a shell is refused at load, whatever the link is called", async () => {
  const bash = ["/usr/bin/bash", "/bin/bash"].find((path) => {
    try {
      return Deno.statSync(path).isFile;
    } catch {
      return false;
    }
  });
  equal(bash !== undefined, true, "bash must be installed");
  const root = await workspace();
  const fmt = `${root}/fmt`;
  await Deno.symlink(bash!, fmt);
  const options = {
    sandbox: true,
    root,
    confine: false,
    permissions: { read: ["./ws"], run: [fmt] },
    stderr: "capture" as const,
  };
  try {
    // Before: judged by its name ("fmt"), it loaded, and `fmt -c …` was bash with the
    // host's rights.
    await rejects(loadPlugin(FIXTURE, options), {
      message: `Cannot load plugin "${FIXTURE}": it asks for run access to "${fmt}" (that is ${
        Deno.realPathSync(bash!)
      }), which escapes every sandbox; pass allowRunEscape: true if you mean it`,
    });
    // Knowingly allowed, it is what the refusal says: a shell.
    const warnings: string[] = [];
    const plugin = await loadPlugin(FIXTURE, {
      ...options,
      allowRunEscape: true,
      onWarning: (warning) => warnings.push(warning),
    });
    try {
      deepEqual(warnings, [
        `plugin "escaper": ${NOT_CONFINED_WARNING}`,
        `plugin "escaper": has run access to ${fmt} (that is ${
          Deno.realPathSync(bash!)
        }) and can escape its sandbox`,
      ]);
      const result = await plugin.tools![0].execute({ kind: "spawn", target: fmt }, {
        toolCallId: "1",
        signal: new AbortController().signal,
      });
      deepEqual(result.content, [{ type: "text", text: "escaped: 0" }]);
    } finally {
      await plugin.dispose?.();
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test({
  name: "inspectPlugin reports tools and declared permissions before anything runs with them",
  ignore: skipWithoutBwrap("inspectPlugin reports tools"),
  async fn() {
    equal(await bwrapAvailable(), true, "bubblewrap must be installed");
    const root = await workspace();
    try {
      const { manifestHash, ...report } = await inspectPlugin(FIXTURE, {
        root,
        stderr: "capture",
      });
      equal(/^sha256-[0-9a-f]{64}$/.test(manifestHash), true);
      deepEqual(report, {
        name: "escaper",
        version: undefined,
        description: undefined,
        tools: [{
          name: "attempt",
          description: "Tries one way out of the sandbox",
          // It declares no effects; its read grant gives it "read".
          effects: ["read"],
          executionMode: undefined,
        }],
        hooks: [],
        permissions: { read: [`${root}/ws`] },
        limits: { memoryMb: 512, frameMb: 16 },
        confined: true,
        warnings: [],
      });
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
});

Deno.test("a plugin asking for more than the host has is refused, listing asked and missing and the flag", async () => {
  const host = new URL("../fixtures/sandbox/ceiling_host.ts", import.meta.url).pathname;
  const plugin = "./tests/fixtures/sandbox/greedy_plugin.ts";
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--allow-run", host, plugin],
    stdout: "piped",
    stderr: "piped",
  }).output();
  equal(
    new TextDecoder().decode(output.stdout).trim(),
    `Cannot load plugin "${plugin}": it asks for read: ["${Deno.cwd()}"], net: true; the host process lacks net: true (add --allow-net to the host's flags)`,
  );
});

Deno.test({
  name: "what is granted works under bubblewrap: write, net to one host, one env var",
  ignore: !linux,
  async fn() {
    const root = await workspace();
    const server = loopback();
    Deno.env.set("TACK_SANDBOX_VISIBLE", "visible");
    const plugin = await loadPlugin(FIXTURE, {
      sandbox: true,
      root,
      permissions: {
        read: ["./ws"],
        write: ["./ws"],
        net: [`127.0.0.1:${server.port}`],
        env: ["TACK_SANDBOX_VISIBLE"],
      },
      stderr: "capture",
    });
    try {
      const [tool] = plugin.tools!;
      const run = (kind: string, target: string, id: string) =>
        tool.execute({ kind, target }, { toolCallId: id, signal: new AbortController().signal });
      await run("write", `${root}/ws/new.txt`, "w");
      equal(await Deno.readTextFile(`${root}/ws/new.txt`), "pwned");
      await run("connect", `127.0.0.1:${server.port}`, "c");
      equal(server.connections(), 1);
      deepEqual((await run("env", "TACK_SANDBOX_VISIBLE", "e")).content, [
        { type: "text", text: 'escaped: "visible"' },
      ]);
      await rejects(Promise.resolve(run("env", "HOME", "h")), {
        message: denied("env", "HOME").text,
      });
      await rejects(Promise.resolve(run("write", `${root}/outside/secret.txt`, "o")), {
        message: denied("write", `${root}/outside/secret.txt`).text,
      });
    } finally {
      Deno.env.delete("TACK_SANDBOX_VISIBLE");
      await plugin.dispose?.();
      await server.close();
      await Deno.remove(root, { recursive: true });
    }
  },
});
