/**
 * Catastrophic patterns from the model (grep, find) and from rules run on the
 * linear-time engine: each call ends with its answer and the event loop keeps turning.
 * On V8's backtracking engine every one of these would freeze the host for hours.
 */

import { createAgent, scriptedModel, text, type ToolCall, toolCall } from "@tack/agent";
import { fs } from "@tack/agent/plugins/fs";
import { compileRules, evaluateRules } from "@tack/agent/plugins/rules";
import { deepEqual, equal, match, throws } from "node:assert/strict";
import { resultsOf, textOf } from "../support/agent_harness.ts";
import { withTempRoot } from "../support/temp_root.ts";

const withRoot = (body: (root: string) => Promise<void>) => withTempRoot("tack_re2_", body);

async function call(root: string, calls: ToolCall[]): Promise<[string, boolean][]> {
  const agent = createAgent({
    model: scriptedModel([calls, [text("done")]]),
    plugins: [fs({ root })],
  });
  return resultsOf(await agent.prompt("go")).map((r) => [textOf(r), r.isError]);
}

/** Counts timer ticks while `body` runs: the host's event loop stayed responsive. */
async function ticksDuring(body: () => Promise<void>): Promise<number> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  try {
    await body();
  } finally {
    clearInterval(timer);
  }
  return ticks;
}

Deno.test("grep: a catastrophic regex on a 33-byte file and a 2 MB one ends, the loop turning", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(`${root}/small.txt`, "a".repeat(32) + "b");
    await Deno.writeTextFile(`${root}/big.txt`, ("a".repeat(40) + "b\n").repeat(50_000));
    let outcomes: [string, boolean][] = [];
    const ticks = await ticksDuring(async () => {
      outcomes = await call(root, [toolCall("grep", { pattern: "^(a+)+$" })]);
    });
    deepEqual(outcomes, [["No matches for ^(a+)+$ in .", false]]);
    equal(ticks > 0, true, "the timer fired while grep searched");
  });
});

Deno.test("grep: backreferences and lookaround are refused with the syntax named", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(`${root}/a.txt`, "aa\n");
    deepEqual(await call(root, [toolCall("grep", { pattern: "(a)\\1" })]), [[
      "pattern is not a valid regular expression: invalid escape sequence: `\\1` (RE2 syntax, " +
      "no backreferences or lookaround; set literal: true to search for the text as is)",
      true,
    ]]);
  });
});

Deno.test("grep: a pattern of a million characters is refused before RE2 parses it (it took 2.3 s)", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(`${root}/a.txt`, "xx\n");
    deepEqual(await call(root, [toolCall("grep", { pattern: "x".repeat(1_000_000) })]), [[
      "pattern is not a valid regular expression: the pattern is too long: it has 1000000 " +
      "characters, over the limit of 32768 (RE2 syntax, no backreferences or lookaround; set " +
      "literal: true to search for the text as is)",
      true,
    ]]);
  });
});

Deno.test("grep: literal text is searched as text, however long (no regular expression is built)", async () => {
  await withRoot(async (root) => {
    const needle = "(a.b)*".repeat(1000);
    await Deno.writeTextFile(
      `${root}/a.txt`,
      `before\nsay ${needle} end\nafter ${needle.toUpperCase()}\n`,
    );
    const [[found, foundIsError]] = await call(root, [
      toolCall("grep", { pattern: needle, literal: true }),
    ]);
    equal(foundIsError, false);
    match(found, /^a\.txt:2: say \(a\.b\)\*/);
    equal(found.split("\n").length, 1, "the upper-case line does not match");
    const [[both]] = await call(root, [
      toolCall("grep", { pattern: needle, literal: true, ignoreCase: true }),
    ]);
    deepEqual(both.split("\n").map((line) => line.slice(0, 9)), ["a.txt:2: ", "a.txt:3: "]);
    // The same text as a regular expression is over RE2's size limit.
    const [[refused, isError]] = await call(root, [toolCall("grep", { pattern: needle })]);
    equal(isError, true);
    match(
      refused,
      /^pattern is not a valid regular expression: the pattern is too large: it compiles to \d+ instructions, over the limit of 2000 /,
    );
  });
});

Deno.test("find: a glob like *a*a*a*a*a*a*a*a*b against a 250-character name ends", async () => {
  await withRoot(async (root) => {
    await Deno.writeTextFile(`${root}/${"a".repeat(249)}c`, "");
    await Deno.writeTextFile(`${root}/${"a".repeat(20)}b`, "");
    const glob = "*a".repeat(8) + "*b";
    deepEqual(await call(root, [toolCall("find", { pattern: glob })]), [[
      `${"a".repeat(20)}b`,
      false,
    ]]);
    // The same glob as grep's file filter.
    deepEqual(await call(root, [toolCall("grep", { pattern: "x", glob })]), [[
      `No matches for x in .`,
      false,
    ]]);
  });
});

Deno.test("rules: a catastrophic regex and glob are matched in linear time", () => {
  const rules = compileRules([
    { name: "r", action: "deny", tool: "bash", args: { command: { regex: "^(a+)+$" } } },
    { name: "g", action: "deny", tool: "*a*a*a*a*a*a*a*a*b" },
    { name: "p", action: "deny", tool: "write", args: { path: { glob: "*a*a*a*a*a*a*a*a*b" } } },
    { name: "code", action: "deny", tool: "edit", args: { path: /^(x+x+)+y$/ } },
  ]);
  const long = "a".repeat(5000) + "c";
  equal(evaluateRules(rules, { toolName: "bash", args: { command: long } }), undefined);
  equal(evaluateRules(rules, { toolName: long, args: {} }), undefined);
  equal(evaluateRules(rules, { toolName: "write", args: { path: long } }), undefined);
  equal(evaluateRules(rules, { toolName: "edit", args: { path: "x".repeat(5000) } }), undefined);
  equal(
    evaluateRules(rules, { toolName: "bash", args: { command: "aaa" } })?.rule.rule.name,
    "r",
  );
});

Deno.test("rules: a lookahead regex is a load error saying RE2 lacks it", () => {
  throws(
    () => compileRules([{ name: "x", action: "deny", args: { command: { regex: "a(?=b)" } } }]),
    {
      message: 'Cannot create rules plugin: rules[0] ("x"): args.command has an invalid regex: ' +
        "invalid or unsupported Perl syntax: `(?=`",
    },
  );
});
