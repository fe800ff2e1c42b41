// A rule on a path glob sees where an fs call will really go: a symlink inside the root
// (a cloned repository may ship `hooks -> .git/hooks`) no longer takes a write past a rule
// denying `.git/**` (found by an attack: the hook was planted, .git/config rewritten).
import { createAgent, scriptedModel, text, toolCall, type ToolResultMessage } from "@tack/agent";
import { fs } from "@tack/agent/plugins/fs";
import { rules } from "@tack/agent/plugins/rules";
import { deepEqual, equal, rejects } from "node:assert/strict";

Deno.test("rules see the real path of an fs call that goes through a symlink in the root", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.mkdir(`${root}/.git/hooks`, { recursive: true });
    await Deno.writeTextFile(`${root}/.git/config`, "[core]\n");
    await Deno.writeTextFile(`${root}/.env`, "KEY=1\n");
    await Deno.symlink(".git/hooks", `${root}/hooks`);
    await Deno.symlink(".git", `${root}/g`);
    await Deno.symlink(".env", `${root}/settings.txt`);
    await Deno.mkdir(`${root}/src`);
    const calls = [
      toolCall("write", { path: "hooks/pre-commit", content: "#!/bin/sh\necho pwned\n" }, "a"),
      toolCall(
        "edit",
        { path: "g/config", oldText: "[core]", newText: "[core]\n\tfsmonitor = x" },
        "b",
      ),
      toolCall("read", { path: "settings.txt" }, "c"),
      toolCall("write", { path: "src/ok.txt", content: "fine" }, "d"),
    ];
    const agent = createAgent({
      model: scriptedModel([calls, [text("done")]]),
      plugins: [
        fs({ root }),
        rules({
          rules: [
            {
              name: "no-git-writes",
              action: "deny",
              effect: "write",
              args: { path: { glob: ".git/**" } },
            },
            { name: "no-env", action: "deny", tool: "read", args: { path: { glob: ".env" } } },
          ],
        }),
      ],
    });
    await agent.prompt("go");
    const results = agent.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
    deepEqual(
      results.map((
        r,
      ) => [r.isError, r.content.map((b) => b.type === "text" ? b.text : "").join("")]),
      [
        [
          true,
          'Blocked by rule "no-git-writes" (deny any tool with effect write, path matching glob ".git/**")',
        ],
        [
          true,
          'Blocked by rule "no-git-writes" (deny any tool with effect write, path matching glob ".git/**")',
        ],
        [true, 'Blocked by rule "no-env" (deny read path matching glob ".env")'],
        [false, "Created src/ok.txt (4 B)"],
      ],
    );
    await rejects(Deno.stat(`${root}/.git/hooks/pre-commit`), Deno.errors.NotFound);
    equal(await Deno.readTextFile(`${root}/.git/config`), "[core]\n");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
