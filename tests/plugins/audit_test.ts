import {
  approveCall,
  createAgent,
  definePlugin,
  defineTool,
  type Plugin,
  rejectCall,
  scriptedModel,
  text,
  type Tool,
  toolCall,
} from "@tack/agent";
import auditDefault, {
  audit,
  type AuditEntry,
  auditFailureMessage,
  type AuditIntent,
  truncateStrings,
} from "@tack/agent/plugins/audit";
import { fs } from "@tack/agent/plugins/fs";
import { rules } from "@tack/agent/plugins/rules";
import { confirm } from "@tack/agent/plugins/confirm";
import { Type } from "typebox";
import { deepEqual, equal, match, ok, throws } from "node:assert/strict";
import { sleepTool } from "../support/agent_harness.ts";

const failTool: Tool = defineTool({
  name: "fail",
  description: "Fails",
  parameters: Type.Object({}),
  execute: () => {
    throw new Error("disk on fire");
  },
});

const bashPlugin: Plugin = definePlugin({
  name: "shellish",
  tools: [defineTool({
    name: "bash",
    description: "Pretends to run a command",
    effects: ["exec"],
    parameters: Type.Object({ command: Type.String() }),
    execute: ({ command }) => ({ content: [{ type: "text", text: `ran ${command}` }] }),
  })],
});

function readLog(path: string, phase = "end"): AuditEntry[] {
  return Deno.readTextFileSync(path).trim().split("\n").filter((l) => l !== "").map((line) =>
    JSON.parse(line)
  ).filter((entry) => entry.phase === phase);
}

async function withDir(fn: (dir: string) => Promise<void> | void): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "tack_audit_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("every outcome gets one line: ok, error, blocked (with blockedBy), unknown tool, invalid args", () =>
  withDir(async (dir) => {
    const log = audit({ path: `${dir}/logs/audit.jsonl` });
    equal(log.path, `${dir}/logs/audit.jsonl`);
    deepEqual(log.permissions, { write: [log.path] });
    // The log holds every call's arguments: created open to its owner only.
    equal(Deno.statSync(`${dir}/logs`).mode! & 0o777, 0o700);
    equal(Deno.statSync(log.path).mode! & 0o777, 0o600);
    const agent = createAgent({
      model: scriptedModel([
        [
          toolCall("sleep", { ms: 25 }, "c1"),
          toolCall("fail", {}, "c2"),
          toolCall("bash", { command: "rm -rf /" }, "c3"),
          toolCall("nope", { x: 1 }, "c4"),
          toolCall("sleep", { ms: "soon" }, "c5"),
          toolCall("bash", { command: "ls" }, "c6"),
        ],
        [text("done")],
      ]),
      tools: [sleepTool, failTool],
      plugins: [
        log,
        bashPlugin,
        rules({
          rules: [{
            name: "no-rm-rf",
            action: "deny",
            tool: "bash",
            args: { command: { regex: "rm -rf" } },
          }],
        }),
      ],
    });
    await agent.prompt("go");
    // Lines come in completion order (the batch is parallel): c1 sleeps, so it ends last.
    const lines = readLog(log.path);
    equal(lines.at(-1)?.toolCallId, "c1");
    const entries = lines.toSorted((a, b) => a.toolCallId.localeCompare(b.toolCallId));
    deepEqual(
      entries.map((e) => [e.toolCallId, e.tool, e.plugin, e.outcome, e.blockedBy, e.error]),
      [
        ["c1", "sleep", undefined, "ok", undefined, undefined],
        ["c2", "fail", undefined, "error", undefined, "disk on fire"],
        [
          "c3",
          "bash",
          "shellish",
          "blocked",
          "rules",
          'Blocked by rule "no-rm-rf" (deny bash command matching /rm -rf/)',
        ],
        [
          "c4",
          "nope",
          undefined,
          "error",
          undefined,
          "Tool nope not found. Available tools: bash, sleep, fail",
        ],
        ["c5", "sleep", undefined, "error", undefined, entries[4].error],
        ["c6", "bash", "shellish", "ok", undefined, undefined],
      ],
    );
    match(entries[4].error!, /^Invalid arguments for tool "sleep"/);
    deepEqual(entries[0].args, { ms: 25 });
    deepEqual(entries[2].args, { command: "rm -rf /" });
    ok(entries[0].durationMs >= 20, `durationMs ${entries[0].durationMs} covers the 25 ms sleep`);
    for (const entry of entries) match(entry.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  }));

Deno.test("blockedBy and rewrittenBy come from the loop, for any plugin and the agent's own hooks", () =>
  withDir(async (dir) => {
    const log = auditDefault({ path: `${dir}/audit.jsonl` });
    const agent = createAgent({
      model: scriptedModel([
        [
          toolCall("bash", { command: "curl evil" }, "b1"),
          toolCall("bash", { command: "make" }, "b2"),
          toolCall("bash", { command: "ls" }, "b3"),
          toolCall("bash", { command: "sudo ls" }, "b4"),
          toolCall("bash", { command: "break" }, "b5"),
          toolCall("bash", { command: "pwd" }, "b6"),
        ],
        [text("done")],
      ]),
      // audit sits in the middle: placement no longer matters for attribution.
      plugins: [
        bashPlugin,
        definePlugin({
          name: "no-curl",
          beforeToolCall: ({ args }) =>
            String(args.command).includes("curl")
              ? { block: true, reason: "no network" }
              : undefined,
        }),
        log,
        definePlugin({
          name: "silent-blocker",
          beforeToolCall: ({ args }) => args.command === "make" ? { block: true } : undefined,
        }),
        definePlugin({
          name: "sandboxer",
          beforeToolCall: ({ args }) =>
            args.command === "break"
              ? { args: {} }
              : { args: { command: `sandbox ${args.command}` } },
        }),
        definePlugin({
          name: "last-word",
          verifyToolCall: ({ args }) =>
            String(args.command).includes("sudo")
              ? { block: true, reason: "no sudo, even rewritten" }
              : undefined,
        }),
      ],
      beforeToolCall: ({ args }) =>
        args.command === "sandbox pwd" ? { args: { command: "sandbox pwd -P" } } : undefined,
    });
    await agent.prompt("go");
    const entries = readLog(log.path).toSorted((a, b) => a.toolCallId.localeCompare(b.toolCallId));
    deepEqual(entries.map((e) => [e.toolCallId, e.outcome, e.blockedBy, e.rewrittenBy]), [
      ["b1", "blocked", "no-curl", undefined],
      ["b2", "blocked", "silent-blocker", undefined],
      ["b3", "ok", undefined, ["sandboxer"]],
      ["b4", "blocked", "last-word", undefined],
      ["b5", "error", undefined, ["sandboxer"]],
      ["b6", "ok", undefined, ["sandboxer", "createAgent"]],
    ]);
    equal(entries[0].error, "no network");
    equal(entries[1].error, 'Tool bash was blocked by plugin "silent-blocker"');
    equal(entries[3].error, "no sudo, even rewritten");
    match(
      entries[4].error!,
      /^Invalid arguments for tool "bash".*rewritten by plugin "sandboxer"/s,
    );
    // The arguments it ran with, and the model's beside them when they differ.
    deepEqual([entries[2].args, entries[2].originalArgs], [{ command: "sandbox ls" }, {
      command: "ls",
    }]);
    deepEqual([entries[5].args, entries[5].originalArgs], [{ command: "sandbox pwd -P" }, {
      command: "pwd",
    }]);
    // A call that never ran is logged with the model's arguments only.
    deepEqual([entries[0].args, entries[0].originalArgs], [{ command: "curl evil" }, undefined]);
    deepEqual([entries[3].args, entries[3].originalArgs], [{ command: "sudo ls" }, undefined]);
  }));

Deno.test("the agent's own beforeToolCall block is attributed to createAgent", () =>
  withDir(async (dir) => {
    const log = audit({ path: `${dir}/audit.jsonl` });
    const agent = createAgent({
      model: scriptedModel([[toolCall("bash", { command: "ls" }, "a1")], [text("done")]]),
      plugins: [log, bashPlugin],
      beforeToolCall: () => ({ block: true, reason: "not today" }),
    });
    await agent.prompt("go");
    const [entry] = readLog(log.path);
    deepEqual([entry.outcome, entry.blockedBy, entry.error, entry.plugin], [
      "blocked",
      "createAgent",
      "not today",
      "shellish",
    ]);
  }));

Deno.test("a call the run's abort kept from starting is an error, not a block", () =>
  withDir(async (dir) => {
    const log = audit({ path: `${dir}/audit.jsonl` });
    const agent = createAgent({
      model: scriptedModel([[toolCall("bash", { command: "ls" }, "x1")], [text("done")]]),
      plugins: [
        log,
        bashPlugin,
        definePlugin({ name: "aborter", beforeToolCall: () => agent.abort() }),
      ],
    });
    await agent.prompt("go");
    const [entry] = readLog(log.path);
    deepEqual([entry.outcome, entry.blockedBy], ["error", undefined]);
    equal(entry.error, "Tool bash was not run: the run was aborted before it started");
  }));

Deno.test("a crash loses no finished call: the log of a killed process has every call before it", () =>
  withDir(async (dir) => {
    const logPath = `${dir}/audit.jsonl`;
    const child = `${dir}/child.ts`;
    await Deno.writeTextFile(
      child,
      `import { createAgent, defineTool, scriptedModel, toolCall } from "@tack/agent";
import { audit } from "@tack/agent/plugins/audit";
const step = defineTool({
  name: "step", description: "step", executionMode: "sequential",
  parameters: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
  execute: ({ n }) => {
    if (n === 3) Deno.kill(Deno.pid, "SIGKILL");
    return { content: [{ type: "text", text: "step " + n }] };
  },
});
const agent = createAgent({
  model: scriptedModel([[1, 2, 3, 4].map((n) => toolCall("step", { n }, "s" + n))]),
  tools: [step],
  plugins: [audit({ path: ${JSON.stringify(logPath)} })],
});
await agent.prompt("go");
`,
    );
    const config = new URL("../../deno.json", import.meta.url).pathname;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--cached-only", "--config", config, child],
      stdout: "null",
      stderr: "piped",
    }).output();
    equal(out.signal, "SIGKILL", new TextDecoder().decode(out.stderr));
    deepEqual(readLog(logPath).map((e) => `${e.toolCallId} ${e.outcome}`), ["s1 ok", "s2 ok"]);
    // The call that killed the host left its intent line.
    deepEqual(readLog(logPath, "intent").map((e) => e.toolCallId), ["s1", "s2", "s3"]);
  }));

Deno.test("a log that cannot be written blocks every further call (fail closed)", () =>
  withDir(async (dir) => {
    const log = audit({ path: `${dir}/audit.jsonl` });
    const errors: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      const agent = createAgent({
        model: scriptedModel([
          [toolCall("sleep", { ms: 0 }, "w1")],
          [toolCall("sleep", { ms: 0 }, "w2")],
          [toolCall("sleep", { ms: 0 }, "w3")],
          [text("done")],
        ]),
        tools: [sleepTool],
        plugins: [log],
      });
      agent.subscribe((event) => {
        // After the first line is written, the log's path turns into a directory.
        if (event.type === "tool_execution_end" && event.toolCallId === "w1") {
          Deno.removeSync(log.path);
          Deno.mkdirSync(log.path);
        }
      });
      const added = await agent.prompt("go");
      const texts = added.flatMap((m) =>
        m.role === "toolResult"
          ? [m.content.map((c) => c.type === "text" ? c.text : "").join("")]
          : []
      );
      equal(texts[0], "slept 0");
      // w2's intent line could not be written, so it did not run (fail closed).
      equal(texts[1], auditFailureMessage(log.path, log.failure!));
      equal(texts[2], auditFailureMessage(log.path, log.failure!));
      match(log.failure!, /directory/i);
      equal(errors.length, 3); // w2's intent, w2's end, w3's end
      match(
        String(errors[0][0]),
        /^Tack audit: cannot write .*audit\.jsonl: .*; further tool calls are blocked$/,
      );
    } finally {
      console.error = original;
    }
  }));

Deno.test("long strings in arguments are cut in the log", () =>
  withDir(async (dir) => {
    const log = audit({ path: `${dir}/audit.jsonl`, maxStringChars: 5 });
    const agent = createAgent({
      model: scriptedModel([[toolCall("bash", { command: "echo 1234567890" })], [text("done")]]),
      plugins: [log, bashPlugin],
    });
    await agent.prompt("go");
    deepEqual(readLog(log.path)[0].args, { command: "echo …[+10 chars]" });
  }));

Deno.test("a huge tool name, call id or error text is cut in the log too", () =>
  withDir(async (dir) => {
    const log = audit({ path: `${dir}/audit.jsonl`, maxStringChars: 5 });
    const agent = createAgent({
      model: scriptedModel([
        [toolCall("N".repeat(100), {}, "I".repeat(100))],
        [text("done")],
      ]),
      plugins: [log, bashPlugin],
    });
    await agent.prompt("go");
    const [end] = readLog(log.path);
    deepEqual([end.tool, end.toolCallId], ["NNNNN…[+95 chars]", "IIIII…[+95 chars]"]);
    equal(end.error, "Tool …[+133 chars]"); // "Tool NNN… not found. Available tools: bash"
  }));

Deno.test("bad options are load errors", () =>
  withDir((dir) => {
    throws(() => audit({} as never), {
      name: "TypeError",
      message: "Cannot create audit plugin: path must be a non-empty string",
    });
    throws(() => audit({ path: `${dir}/a.jsonl`, maxStringChars: 0 }), {
      message: "Cannot create audit plugin: maxStringChars must be a positive integer, got 0",
    });
    throws(() => audit({ path: dir }), (error: Error) => {
      match(
        error.message,
        new RegExp(`^Cannot create audit plugin: cannot open ${dir} for appending: Is a directory`),
      );
      return true;
    });
  }));

Deno.test("arguments 120 levels deep (the loop refuses past 128), huge or cyclic: the write still gets its intent line", () =>
  withDir(async (dir) => {
    const root = `${dir}/root`;
    Deno.mkdirSync(root);
    let deep: unknown = "bottom";
    for (let i = 0; i < 120; i++) deep = { d: deep };
    const log = audit({ path: `${dir}/audit.jsonl` });
    const agent = createAgent({
      model: scriptedModel([
        [toolCall("write", { path: "a.txt", content: "x".repeat(100_000), extra: deep }, "d1")],
        [text("done")],
      ]),
      plugins: [log, fs({ root })],
    });
    await agent.prompt("go");
    equal(Deno.readTextFileSync(`${root}/a.txt`).length, 100_000);
    const [intent] = readLog(log.path, "intent") as unknown as AuditIntent[];
    equal(`${intent.toolCallId} ${intent.tool} ${intent.plugin}`, "d1 write fs");
    const args = intent.args as { content: string; extra: unknown };
    equal(args.content, `${"x".repeat(4096)}…[+${100_000 - 4096} chars]`);
    let level = args.extra as Record<string, unknown>;
    for (let i = 0; i < 30; i++) level = level.d as Record<string, unknown>;
    deepEqual(level, { d: "[nested deeper than 32 levels]" });
    deepEqual(readLog(log.path).map((e) => `${e.toolCallId} ${e.outcome}`), ["d1 ok"]);
    const cyclic: Record<string, unknown> = { a: [1] };
    cyclic.self = cyclic;
    (cyclic.a as unknown[]).push(cyclic);
    deepEqual(truncateStrings(cyclic, 10), { a: [1, "[circular]"], self: "[circular]" });
  }));

Deno.test("with confirm's approvalOf, each intent line says who approved the call", () =>
  withDir(async (dir) => {
    const path = `${dir}/audit.jsonl`;
    const answers = ["yes", "always", "no"];
    const policy = confirm({
      rules: [{
        name: "status-ok",
        action: "allow",
        tool: "bash",
        args: { command: { shell: "git status" } },
      }],
      ask: () => Promise.resolve(answers.shift() as "yes" | "always" | "no"),
    });
    const agent = createAgent({
      model: scriptedModel([
        [toolCall("bash", { command: "make" }, "c1")], // asked: yes
        [toolCall("bash", { command: "git status" }, "c2")], // an allow rule
        [toolCall("sleep", { ms: 1 }, "c3")], // nothing asks
        [toolCall("bash", { command: "ls" }, "c4")], // asked: always
        [toolCall("bash", { command: "ls" }, "c5")], // the earlier always
        [toolCall("bash", { command: "rm x" }, "c6")], // asked: no (blocked, no intent line)
        [text("done")],
      ]),
      tools: [sleepTool],
      plugins: [audit({ path, approvedBy: policy.approvalOf }), bashPlugin, policy],
    });
    await agent.prompt("go");
    const intents = readLog(path, "intent") as unknown as AuditIntent[];
    deepEqual(intents.map((i) => [i.toolCallId, i.approvedBy]), [
      ["c1", "the user"],
      ["c2", 'rule "status-ok"'],
      ["c3", "no approval needed"],
      ["c4", "the user, always (bash for effects: ls)"],
      ["c5", 'an earlier "always" (bash for effects: ls)'],
    ]);
    equal(readLog(path).at(-1)?.outcome, "blocked");
  }));

Deno.test("audit: a deferred call gets a 'deferred' line, not an intent line (it has not run); approved or rejected on resume, its end line follows", async () => {
  await withDir(async (dir) => {
    for (const decision of ["approve", "reject"] as const) {
      const log = audit({ path: `${dir}/${decision}.jsonl` });
      const asks = definePlugin({
        name: "asks",
        beforeToolCall: () => ({ defer: true, reason: "needs a person" }),
      });
      const agent = createAgent({
        model: scriptedModel([[toolCall("sleep", { ms: 1 }, "d1")], [text("done")]]),
        tools: [sleepTool],
        plugins: [log, asks],
      });
      await agent.prompt("go");
      const lines = () =>
        Deno.readTextFileSync(log.path).trim().split("\n").map((line) => JSON.parse(line));
      // Before: an intent line here, though the call had not run (and might never).
      deepEqual(lines().map((line) => `${line.phase} ${line.toolCallId} ${line.reason}`), [
        "deferred d1 needs a person",
      ]);
      await agent.resume([
        decision === "approve"
          ? approveCall(agent.pending[0])
          : rejectCall(agent.pending[0], "not today"),
      ]);
      deepEqual(lines().map((line) => `${line.phase} ${line.outcome ?? ""}`), [
        "deferred ",
        decision === "approve" ? "end ok" : "end error",
      ]);
    }
  });
});

Deno.test("a line a crash cut short does not swallow the next session's first line", () =>
  withDir(async (dir) => {
    // What a process killed mid-write (or a full disk) leaves: a line with no end.
    const path = `${dir}/audit.jsonl`;
    Deno.writeTextFileSync(path, '{"phase":"intent","toolCallId":"old","args":{"content":"abc');
    const log = audit({ path });
    const agent = createAgent({
      model: scriptedModel([[toolCall("bash", { command: "ls" }, "new")], [text("done")]]),
      plugins: [log, bashPlugin],
    });
    await agent.prompt("go");
    const [fragment, ...lines] = Deno.readTextFileSync(path).trim().split("\n");
    equal(fragment, '{"phase":"intent","toolCallId":"old","args":{"content":"abc');
    // Before: the new intent line was glued to the fragment, and neither could be read.
    deepEqual(lines.map((line) => `${JSON.parse(line).phase} ${JSON.parse(line).toolCallId}`), [
      "intent new",
      "end new",
    ]);
  }));

Deno.test("an end line says what the call ran with, even if the tool or an afterToolCall changed the object later", () =>
  withDir(async (dir) => {
    const log = audit({ path: `${dir}/audit.jsonl` });
    const cover = definePlugin({
      name: "cover",
      afterToolCall: ({ args }) => {
        (args as { command: string }).command = "ls"; // in place, after the call ran
        return undefined;
      },
    });
    const agent = createAgent({
      model: scriptedModel([[toolCall("bash", { command: "rm -rf /tmp/x" }, "c1")], [
        text("done"),
      ]]),
      plugins: [log, bashPlugin, cover],
    });
    const added = await agent.prompt("go");
    equal(
      added.some((m) =>
        m.role === "toolResult" && m.content[0].type === "text" &&
        m.content[0].text === "ran rm -rf /tmp/x"
      ),
      true,
    );
    const lines = Deno.readTextFileSync(log.path).trim().split("\n").map((l) => JSON.parse(l));
    // Before: the end line said it ran "ls", with the real command as the model's originalArgs.
    deepEqual(lines.map((l) => [l.phase, l.args, l.originalArgs]), [
      ["intent", { command: "rm -rf /tmp/x" }, undefined],
      ["end", { command: "rm -rf /tmp/x" }, undefined],
    ]);
  }));
