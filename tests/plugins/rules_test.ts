import {
  createAgent,
  defineTool,
  type Plugin,
  scriptedModel,
  text,
  type Tool,
  toolCall,
  type ToolResultMessage,
} from "@tack/agent";
import rulesDefault, {
  compileRules,
  defaultDenyMessage,
  type Rule,
  rules,
} from "@tack/agent/plugins/rules";
import { parse } from "@std/jsonc";
import { Type } from "typebox";
import { deepEqual, equal, throws } from "node:assert/strict";
import { bashTool, readTool, writeTool } from "../support/effect_tools.ts";

async function run(
  plugin: Plugin,
  tools: Tool[],
  calls: [string, Record<string, unknown>][],
): Promise<string[]> {
  const agent = createAgent({
    model: scriptedModel([calls.map(([name, args]) => toolCall(name, args)), [text("done")]]),
    tools,
    plugins: [plugin],
  });
  const added = await agent.prompt("go");
  return added
    .filter((m): m is ToolResultMessage => m.role === "toolResult")
    .map((m) =>
      `${m.isError ? "error" : "ok"}: ${
        m.content.map((c) => c.type === "text" ? c.text : "").join("")
      }`
    );
}

async function withRoot(fn: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "tack_rules_" });
  try {
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const NO_RM_RF: Rule = {
  name: "no-rm-rf",
  action: "deny",
  tool: "bash",
  args: { command: { regex: "rm -rf" } },
};

Deno.test("a deny rule blocks a matching bash command, names the rule, and the command never runs", () =>
  withRoot(async (root) => {
    await Deno.mkdir(`${root}/victim`);
    const results = await run(rules({ rules: [NO_RM_RF] }), [bashTool(root)], [
      ["bash", { command: "rm -rf ./victim" }],
      ["bash", { command: "echo still-here" }],
    ]);
    deepEqual(results, [
      'error: Blocked by rule "no-rm-rf" (deny bash command matching /rm -rf/)',
      "ok: still-here",
    ]);
    equal((await Deno.stat(`${root}/victim`)).isDirectory, true);
  }));

Deno.test("path globs catch .git/ and .env under every spelling, and nothing else", () =>
  withRoot(async (root) => {
    const policy = rules({
      rules: [
        { name: "no-git", action: "deny", effect: "write", args: { path: { glob: ".git/**" } } },
        { name: "no-env", action: "deny", effect: "write", args: { path: { glob: ".env" } } },
      ],
    });
    const paths = [
      ".git/config",
      "./src/../.git/HEAD",
      "sub//.git/hooks/pre-commit",
      "a/b/../../.git/index",
      ".env",
      "config/.env",
      ".envrc",
      ".gitignore",
      "src/git/env.ts",
    ];
    const results = await run(
      policy,
      [writeTool(root)],
      paths.map((path) => ["write", { path, content: "x" }]),
    );
    const git =
      'error: Blocked by rule "no-git" (deny any tool with effect write, path matching glob ".git/**")';
    const env =
      'error: Blocked by rule "no-env" (deny any tool with effect write, path matching glob ".env")';
    deepEqual(results, [
      git,
      git,
      git,
      git,
      env,
      env,
      "ok: wrote .envrc",
      "ok: wrote .gitignore",
      "ok: wrote src/git/env.ts",
    ]);
    deepEqual(
      (await Array.fromAsync(Deno.readDir(root))).map((e) => e.name).sort(),
      [".envrc", ".gitignore", "src"],
    );
  }));

Deno.test("an absolute path is matched at any depth", async () => {
  const results = await run(
    rules({
      rules: [{
        name: "no-git",
        action: "deny",
        tool: "read",
        args: { path: { glob: ".git/**" } },
      }],
    }),
    [readTool()],
    [["read", { path: "/home/me/repo/.git/config" }], ["read", {
      path: "/home/me/repo/git/config",
    }]],
  );
  deepEqual(results, [
    'error: Blocked by rule "no-git" (deny read path matching glob ".git/**")',
    "ok: read /home/me/repo/git/config",
  ]);
});

Deno.test("a deny beats an allow given before it, and an effect alone can deny", () =>
  withRoot(async (root) => {
    const results = await run(
      rules({
        rules: [
          { name: "bash-ok", action: "allow", tool: "bash" },
          { name: "no-exec", action: "deny", effect: "exec", reason: "this agent only reads" },
        ],
      }),
      [bashTool(root), readTool()],
      [["bash", { command: "echo hi" }], ["read", { path: "a" }]],
    );
    deepEqual(results, [
      'error: Blocked by rule "no-exec" (deny any tool with effect exec): this agent only reads',
      "ok: read a",
    ]);
  }));

Deno.test('default "deny" blocks what no rule allows; ask rules count as matched', () =>
  withRoot(async (root) => {
    const results = await run(
      rules({
        default: "deny",
        rules: [
          { name: "reads", action: "allow", tool: ["read", "ls"] },
          { name: "ask-shell", action: "ask", tool: "bash" },
        ],
      }),
      [bashTool(root), readTool(), writeTool(root)],
      [["read", { path: "a" }], ["bash", { command: "echo asked" }], ["write", {
        path: "w",
        content: "",
      }]],
    );
    deepEqual(results, [
      "ok: read a",
      "ok: asked",
      `error: ${defaultDenyMessage("rules", "write")}`,
    ]);
    equal(
      defaultDenyMessage("rules", "write"),
      'Blocked by plugin "rules": no rule allows write and the default is "deny"',
    );
  }));

Deno.test("tool globs, regex flags and non-string arguments", async () => {
  const tools = ["mcp_search", "mcp_delete", "local"].map((name) =>
    defineTool({
      name,
      description: name,
      parameters: Type.Object({ q: Type.Optional(Type.String()), n: Type.Optional(Type.Number()) }),
      execute: () => ({ content: [{ type: "text", text: name }] }),
    })
  );
  const results = await run(
    rules({
      rules: [
        {
          name: "no-mcp-delete",
          action: "deny",
          tool: "mcp_*",
          args: { q: { regex: "^DROP", flags: "i" } },
        },
        { name: "small-n", action: "deny", tool: "*", args: { n: /^\d{3,}$/ } },
      ],
    }),
    tools,
    [
      ["mcp_search", { q: "drop table" }],
      ["mcp_delete", { q: "keep" }],
      ["local", { q: "DROP" }],
      ["local", { n: 1000 }],
      ["local", { n: 10 }],
    ],
  );
  deepEqual(results, [
    'error: Blocked by rule "no-mcp-delete" (deny mcp_* q matching /^DROP/i)',
    "ok: mcp_delete",
    "ok: local",
    'error: Blocked by rule "small-n" (deny * n matching /^\\d{3,}$/)',
    "ok: local",
  ]);
});

Deno.test("rules load from tack.jsonc text as plain JSON, through the default export", () =>
  withRoot(async (root) => {
    await Deno.writeTextFile(
      `${root}/tack.jsonc`,
      `{
        // policy
        "plugins": [{ "specifier": "rules", "options": { "rules": [
          { "name": "no-rm-rf", "action": "deny", "tool": "bash", "args": { "command": { "regex": "rm\\\\s+-(rf|fr)" } } },
        ] } }],
      }`,
    );
    const config = parse(await Deno.readTextFile(`${root}/tack.jsonc`)) as {
      plugins: { options: { rules: Rule[] } }[];
    };
    await Deno.mkdir(`${root}/victim`);
    const results = await run(rulesDefault(config.plugins[0].options), [bashTool(root)], [
      ["bash", { command: "rm  -fr victim" }],
    ]);
    deepEqual(results, [
      String.raw`error: Blocked by rule "no-rm-rf" (deny bash command matching /rm\s+-(rf|fr)/)`,
    ]);
    equal((await Deno.stat(`${root}/victim`)).isDirectory, true);
  }));

Deno.test("malformed rules are load errors naming the rule and the field", () => {
  const cases: [unknown, string][] = [
    [{}, "rules must be an array of rules"],
    [[null], "rules[0]: must be an object"],
    [[{ action: "deny", tool: "x" }], "rules[0]: needs a non-empty name"],
    [
      [{ name: "a", action: "block", tool: "x" }],
      'rules[0] ("a"): action must be "allow", "deny" or "ask", got "block"',
    ],
    [
      [{ name: "a", action: "deny" }],
      'rules[0] ("a"): matches every call: give it a tool, effect or args (tool "*" matches every tool)',
    ],
    [
      [{ name: "a", action: "deny", tool: "x" }, { name: "a", action: "allow", tool: "y" }],
      'rules[1] ("a"): another rule has the same name',
    ],
    [
      [{ name: "a", action: "deny", effect: "delete" }],
      'rules[0] ("a"): effect must be "read", "write", "exec" or "net" (or a list of them)',
    ],
    [
      [{ name: "a", action: "deny", tool: [] }],
      'rules[0] ("a"): tool must be a glob or a non-empty list of globs',
    ],
    [
      [{ name: "a", action: "deny", tool: "x{y" }],
      'rules[0] ("a"): tool has an invalid glob: Cannot compile glob "x{y": a "{" is not closed',
    ],
    [
      [{ name: "a", action: "deny", args: { c: { regex: "(" } } }],
      'rules[0] ("a"): args.c has an invalid regex: Invalid regular expression: /(/: Unterminated group',
    ],
    [
      [{ name: "a", action: "deny", args: { c: { regex: "x", glob: "y" } } }],
      'rules[0] ("a"): args.c must have exactly one of "regex" (a string) or "glob" (a string)',
    ],
    [
      [{ name: "a", action: "deny", args: { c: "rm" } }],
      'rules[0] ("a"): args.c must be { "regex": "…" } or { "glob": "…" }, got "rm"',
    ],
    [
      [{ name: "a", action: "deny", args: { c: { regex: "x", flags: "q" } } }],
      `rules[0] ("a"): args.c has an invalid regex: Invalid flags supplied to RegExp constructor 'q'`,
    ],
  ];
  for (const [input, why] of cases) {
    throws(() => rules({ rules: input as Rule[] }), {
      name: "TypeError",
      message: `Cannot create rules plugin: ${why}`,
    });
  }
  throws(() => rules({ default: "ask" as "deny" }), {
    message: 'Cannot create rules plugin: default must be "allow" or "deny", got "ask"',
  });
  equal(compileRules(undefined).length, 0);
});

Deno.test("the loop names the blocking rules plugin, under its own name, on tool_execution_end", async () => {
  const agent = createAgent({
    model: scriptedModel([[toolCall("read", { path: "a" }), toolCall("read", { path: "b" })], [
      text("done"),
    ]]),
    tools: [readTool()],
    plugins: [rules({
      name: "team-policy",
      default: "deny",
      rules: [{ name: "a-only", action: "allow", tool: "read", args: { path: { glob: "a" } } }],
    })],
  });
  const ends: [string | undefined, boolean][] = [];
  agent.subscribe((event) => {
    if (event.type === "tool_execution_end") ends.push([event.blockedBy, event.isError]);
  });
  await agent.prompt("go");
  deepEqual(ends.toSorted((x, y) => Number(x[1]) - Number(y[1])), [
    [undefined, false],
    ["team-policy", true],
  ]);
});

Deno.test("a rewrite after rules looked (the agent's own beforeToolCall runs last) is checked again before it runs", () =>
  withRoot(async (root) => {
    await Deno.mkdir(`${root}/victim`);
    // An alias expander: "clean" stands for a command the deny rule forbids.
    const agent = createAgent({
      model: scriptedModel([[toolCall("bash", { command: "clean" }, "c1")], [text("done")]]),
      tools: [bashTool(root)],
      plugins: [rules({ rules: [NO_RM_RF] })],
      beforeToolCall: ({ args }) =>
        args.command === "clean" ? { args: { command: "rm -rf ./victim" } } : undefined,
    });
    let blockedBy: string | undefined;
    agent.subscribe((event) => {
      if (event.type === "tool_execution_end") blockedBy = event.blockedBy;
    });
    const [result] = (await agent.prompt("go")).filter((m): m is ToolResultMessage =>
      m.role === "toolResult"
    );
    // Before: rules judged "clean", and "rm -rf ./victim" ran.
    equal((await Deno.stat(`${root}/victim`)).isDirectory, true);
    equal(blockedBy, "rules");
    deepEqual(result.content, [{
      type: "text",
      text: 'Blocked by rule "no-rm-rf" (deny bash command matching /rm -rf/)',
    }]);
  }));

Deno.test("verifyToolCall skips the frozen arguments rules let through, and judges any others", async () => {
  // The skip: the same frozen object beforeToolCall passed is not judged a second time; a
  // rewritten object, or one that is not frozen (it may have changed since), is.
  const plugin = rules({ rules: [NO_RM_RF] });
  let reads = 0;
  const counted = (command: string) => ({
    get command() {
      reads++;
      return command;
    },
  });
  const hook = (name: "beforeToolCall" | "verifyToolCall", args: Record<string, unknown>) =>
    // deno-lint-ignore no-explicit-any
    (plugin[name] as any)({ tool: bashTool("/"), args });
  const passed = Object.freeze(counted("ls"));
  equal(await hook("beforeToolCall", passed), undefined);
  equal(reads, 1);
  equal(await hook("verifyToolCall", passed), undefined);
  equal(reads, 1); // not judged again
  const rewritten = Object.freeze(counted("rm -rf ./victim"));
  deepEqual(await hook("verifyToolCall", rewritten), {
    block: true,
    reason: 'Blocked by rule "no-rm-rf" (deny bash command matching /rm -rf/)',
  });
  equal(reads, 2);
  const unfrozen = counted("ls");
  equal(await hook("beforeToolCall", unfrozen), undefined);
  equal(await hook("verifyToolCall", unfrozen), undefined);
  equal(reads, 4); // judged both times
});
