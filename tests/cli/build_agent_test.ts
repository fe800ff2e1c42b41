import { deepEqual, equal, match } from "node:assert/strict";
import { join } from "node:path";
import { emptyUsage, type Message, scriptedModel, text, toolCall } from "@tack/agent";
import { buildAgent, defaultSystemPrompt, pluginEntries } from "../../cli/build_agent.ts";
import type { ConfirmRequest } from "../../cli/ask.ts";
import type { TackConfig } from "../../cli/config.ts";

async function withWorkspace(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function resultText(messages: readonly Message[], index: number): string {
  const message = messages[index];
  if (message?.role !== "toolResult") throw new Error(`message ${index} is not a tool result`);
  return message.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}

async function build(options: {
  cwd: string;
  script: Parameters<typeof scriptedModel>[0];
  config?: TackConfig;
  yes?: boolean;
  ask?: (request: ConfirmRequest) => Promise<"yes" | "no" | "always">;
  flagPlugins?: string[];
  messages?: Message[];
}) {
  const result = await buildAgent({
    model: scriptedModel(options.script),
    config: options.config ?? {},
    flagPlugins: options.flagPlugins ?? [],
    yes: options.yes ?? false,
    ask: options.ask,
    messages: options.messages ?? [],
    cwd: options.cwd,
  });
  if (result.kind !== "ok") throw new Error(result.message);
  return result;
}

Deno.test("by default: fs and shell on the folder, then confirm; nothing that writes runs unasked", () =>
  withWorkspace(async (cwd) => {
    await Deno.writeTextFile(join(cwd, "a.txt"), "hello");
    const { agent, plugins } = await build({
      cwd,
      script: [
        [toolCall("read", { path: "a.txt" }), toolCall("bash", { command: "touch made.txt" })],
        [text("ok")],
      ],
    });
    try {
      deepEqual(plugins.map((p) => p.name), ["fs", "shell", "confirm"]);
      equal(agent.systemPrompt, defaultSystemPrompt(cwd));
      const added = await agent.prompt("go");
      match(resultText(added, 2), /hello/);
      equal(
        resultText(added, 3),
        "Tool bash needs the user's confirmation (bash has effect exec), but no one can be asked " +
          '(non-interactive), and whenNonInteractive is "deny"',
      );
      equal(await Deno.stat(join(cwd, "made.txt")).then(() => true, () => false), false);
    } finally {
      await agent.dispose();
    }
  }));

Deno.test("with an ask function the user decides, and the tool runs in the folder", () =>
  withWorkspace(async (cwd) => {
    const asked: ConfirmRequest[] = [];
    const { agent } = await build({
      cwd,
      script: [[toolCall("bash", { command: "pwd" }, "c1")], [text("done")]],
      ask: (request) => (asked.push(request), Promise.resolve("yes")),
    });
    try {
      const added = await agent.prompt("where am I?");
      equal(resultText(added, 2).trim(), cwd);
      deepEqual(asked, [{
        toolName: "bash",
        args: { command: "pwd" },
        reason: "bash has effect exec",
        toolCallId: "c1",
        always: "exactly this bash command",
        plugin: "confirm",
        flagged: ["pwd"],
      }]);
    } finally {
      await agent.dispose();
    }
  }));

Deno.test("--yes adds no policy: everything runs", () =>
  withWorkspace(async (cwd) => {
    const { agent, plugins } = await build({
      cwd,
      yes: true,
      script: [[toolCall("write", { path: "b.txt", content: "hi" })], [text("done")]],
    });
    try {
      deepEqual(plugins.map((p) => p.name), ["fs", "shell"]);
      await agent.prompt("write");
      equal(await Deno.readTextFile(join(cwd, "b.txt")), "hi");
    } finally {
      await agent.dispose();
    }
  }));

Deno.test("--yes with rules: deny rules still block, the rest runs", () =>
  withWorkspace(async (cwd) => {
    const { agent } = await build({
      cwd,
      yes: true,
      config: {
        rules: [
          {
            name: "no-push",
            action: "deny",
            tool: "bash",
            args: { command: { regex: "git push" } },
          },
          { name: "ask-all", action: "ask", tool: "*" },
        ],
      },
      script: [
        [
          toolCall("bash", { command: "git push origin main" }),
          toolCall("bash", { command: "echo fine" }),
        ],
        [text("done")],
      ],
    });
    try {
      const added = await agent.prompt("push");
      match(resultText(added, 2), /^Blocked by rule "no-push"/);
      equal(resultText(added, 3), "fine\n");
    } finally {
      await agent.dispose();
    }
  }));

Deno.test("config plugins replace the defaults; --plugin adds after them", () =>
  withWorkspace(async (cwd) => {
    await Deno.writeTextFile(join(cwd, "extra.ts"), `export default { name: "extra" };`);
    const config: TackConfig = {
      plugins: [{
        specifier: "fs",
        options: { root: cwd },
        baseDir: cwd,
        source: "tack.jsonc:2:3",
      }],
      systemPrompt: "Be terse.",
      maxTurns: 1,
    };
    deepEqual(pluginEntries(config, ["./extra.ts"], cwd).map((e) => e.specifier), [
      "fs",
      "./extra.ts",
    ]);
    const { agent, plugins } = await build({
      cwd,
      config,
      flagPlugins: ["./extra.ts"],
      script: [[toolCall("ls", {})], [text("never")]],
    });
    try {
      deepEqual(plugins.map((p) => p.name), ["fs", "extra", "confirm"]);
      equal(agent.systemPrompt, "Be terse.");
      const added = await agent.prompt("go");
      const last = added.at(-1);
      equal(last?.role === "assistant" && last.stopReason, "error"); // maxTurns: 1
    } finally {
      await agent.dispose();
    }
  }));

Deno.test("a resumed transcript is where the agent starts", () =>
  withWorkspace(async (cwd) => {
    const earlier: Message[] = [
      { role: "user", content: "hi", timestamp: 1 },
      {
        role: "assistant",
        content: [{ type: "text", text: "hello" }],
        stopReason: "stop",
        usage: emptyUsage(),
        provider: "openai",
        model: "m",
        timestamp: 2,
      },
    ];
    const { agent } = await build({ cwd, messages: earlier, script: [[text("again")]] });
    try {
      equal(agent.messages.length, 2);
      await agent.prompt("more");
      equal(agent.messages.length, 4);
    } finally {
      await agent.dispose();
    }
  }));

Deno.test("load and assembly failures are errors to print, not throws", () =>
  withWorkspace(async (cwd) => {
    const missing = await buildAgent({
      model: scriptedModel([]),
      config: {},
      flagPlugins: ["./missing.ts"],
      yes: true,
      messages: [],
      cwd,
    });
    match(
      missing.kind === "error" ? missing.message : "",
      /^Cannot load plugin "\.\/missing\.ts" \(--plugin\): its module failed to load: Module not found/,
    );
    const twice = await buildAgent({
      model: scriptedModel([]),
      config: {},
      flagPlugins: ["fs"],
      yes: true,
      messages: [],
      cwd,
    });
    equal(
      twice.kind === "error" && twice.message,
      'Cannot create agent: two plugins are named "fs"',
    );
  }));

Deno.test("--plugin confirm is refused with what to do instead (the CLI adds confirm itself)", async () => {
  const built = await buildAgent({
    model: scriptedModel([]),
    config: { plugins: [] },
    flagPlugins: ["confirm"],
    yes: false,
    messages: [],
    cwd: Deno.cwd(),
  });
  deepEqual(built, {
    kind: "error",
    message: 'Cannot load plugin "confirm" (--plugin): the CLI adds confirm itself, last (it ' +
      "asks before writes and commands; --yes leaves it out). Put its rules in tack.jsonc " +
      '"rules" instead.',
  });
});

Deno.test("an audit log from tack.jsonc says who approved each call: confirm tells it", () =>
  withWorkspace(async (cwd) => {
    const log = join(cwd, "audit.jsonl");
    const { agent } = await build({
      cwd,
      config: {
        plugins: [
          { specifier: "fs", options: { root: cwd }, baseDir: cwd, source: "tack.jsonc:1:1" },
          { specifier: "audit", options: { path: log }, baseDir: cwd, source: "tack.jsonc:1:2" },
        ],
      },
      script: [[toolCall("write", { path: "n.txt", content: "x" })], [text("ok")]],
      ask: () => Promise.resolve("yes"),
    });
    try {
      await agent.prompt("go");
      const intent = JSON.parse((await Deno.readTextFile(log)).split("\n")[0]);
      deepEqual([intent.phase, intent.tool, intent.approvedBy], ["intent", "write", "the user"]);
    } finally {
      await agent.dispose();
    }
  }));
