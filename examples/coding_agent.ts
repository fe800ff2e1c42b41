/**
 * A small coding agent: `fs` and `shell` tools on a project, `confirm` before anything
 * that writes or runs (deny rules included), and an `audit` log of every call.
 *
 * ```sh
 * # Offline (the default): a scripted model and a scripted user fix a typo in a temp project.
 * deno run -A examples/coding_agent.ts
 * # A real model on your project (OPENAI_API_KEY, optionally OPENAI_BASE_URL); asks in the terminal.
 * deno run -A examples/coding_agent.ts --model gpt-4.1 --root . "Fix the failing test"
 * # Either, with the run's timeline page written to run.html.
 * deno run -A examples/coding_agent.ts --trace run.html
 * ```
 *
 * Without a terminal and without `--yes`, calls that need confirmation are denied, so it
 * never hangs in CI.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { type Agent, createAgent, type Model, scriptedModel, text, toolCall } from "@tack/agent";
import { audit } from "@tack/agent/plugins/audit";
import {
  type AskFunction,
  confirm,
  formatConfirmRequest,
  interactiveAsk,
} from "@tack/agent/plugins/confirm";
import { fs } from "@tack/agent/plugins/fs";
import type { Rule } from "@tack/agent/plugins/rules";
import { shell } from "@tack/agent/plugins/shell";
import { openai } from "../sdk/providers/openai/mod.ts";
import { recordTimeline } from "../cli/trace_recorder.ts";
import { heading, printEvents } from "./print_events.ts";

/** What the agent may never do, what it must ask about, and what it may do unasked. */
const POLICY: Rule[] = [
  // Parsed as shell: catches `rm -r -f`, `rm -Rf`, `rm --recursive --force`, and rm after
  // `&&`, `;`, in a pipe or a subshell.
  { name: "no-rm-rf", action: "deny", tool: "bash", args: { command: { shell: "rm -rf" } } },
  { name: "no-git-writes", action: "deny", effect: "write", args: { path: { glob: ".git/**" } } },
  { name: "no-env", action: "deny", effect: "write", args: { path: { glob: ".env" } } },
  { name: "git-push", action: "ask", tool: "bash", args: { command: { shell: "git push" } } },
  {
    name: "read-only-git",
    action: "allow",
    tool: "bash",
    args: { command: { regex: "^git (status|diff|log)\\b" } },
  },
];

const SYSTEM_PROMPT = "You are a careful coding agent. Read before you edit; make the smallest " +
  "change that works; check it with the shell; then say what you changed.";

/** The offline run: what the scripted model does, turn by turn. */
function scriptedCodingModel(): Model {
  return scriptedModel([
    [toolCall("ls", { path: "." }), toolCall("read", { path: "src/greet.ts" })],
    [toolCall("edit", { path: "src/greet.ts", oldText: "Helo", newText: "Hello" })],
    [toolCall("bash", { command: "grep -n Hello src/greet.ts" })],
    [toolCall("bash", { command: "rm -rf .git && git init" })],
    [toolCall("bash", { command: "grep -c Hello src/greet.ts" })],
    [text("Fixed the typo in src/greet.ts (Helo → Hello) and checked it with grep.")],
  ]);
}

/** The offline user: answers each question the way a person might, and says so. */
function scriptedUser(): AskFunction {
  const answers = ["yes", "always"] as const;
  let next = 0;
  return (request) => {
    const answer = answers[Math.min(next++, answers.length - 1)];
    console.log(`  ? ${formatConfirmRequest(request).replace("\n", "\n    ")}\n  → ${answer}`);
    return Promise.resolve(answer);
  };
}

async function makeDemoProject(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "tack_coding_agent_" });
  await Deno.mkdir(`${root}/src`);
  await Deno.mkdir(`${root}/.git`);
  await Deno.writeTextFile(`${root}/.git/HEAD`, "ref: refs/heads/main\n");
  await Deno.writeTextFile(
    `${root}/src/greet.ts`,
    "export function greet(name: string): string {\n  return `Helo, ${name}!`;\n}\n",
  );
  return root;
}

/** The options of {@linkcode buildCodingAgent}. */
export interface CodingAgentOptions {
  model: Model;
  root: string;
  /** How to ask; `undefined` means no one can be asked. */
  ask?: AskFunction;
  /** With no one to ask: run what needs confirmation (`true`) or deny it. */
  yes?: boolean;
  auditPath: string;
}

/**
 * Assembles the coding agent: audit first (its fail-closed block comes before any
 * question), the tools, and confirm last (it judges the arguments as earlier plugins left
 * them; its verifyToolCall re-checks the final ones).
 *
 * @param options The model, the project root, how to ask, where to log.
 * @returns The agent.
 */
export function buildCodingAgent(options: CodingAgentOptions): Agent {
  return createAgent({
    model: options.model,
    systemPrompt: SYSTEM_PROMPT,
    // audit first (it sees every call, and fails closed before anyone is asked);
    // confirm last (it asks about the final arguments; its verifyToolCall stops any
    // call whose arguments changed after that).
    plugins: [
      audit({ path: options.auditPath }),
      fs({ root: options.root }),
      shell({ root: options.root }),
      confirm({
        rules: POLICY,
        ask: options.ask,
        whenNonInteractive: options.yes ? "allow" : "deny",
      }),
    ],
  });
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: {
      model: { type: "string" },
      root: { type: "string" },
      yes: { type: "boolean", default: false },
      trace: { type: "string" },
    },
    allowPositionals: true,
  });
  const offline = values.model === undefined;
  const root = values.root ?? (offline ? await makeDemoProject() : ".");
  const auditPath = `${root}/.tack/audit.jsonl`;
  const agent = buildCodingAgent({
    model: offline ? scriptedCodingModel() : openai({ model: values.model! }),
    root,
    ask: offline ? scriptedUser() : interactiveAsk(),
    yes: values.yes,
    auditPath,
  });
  heading(offline ? `Coding agent (offline, in ${root})` : `Coding agent on ${values.model}`);
  printEvents(agent);
  const timeline = values.trace ? recordTimeline(agent) : undefined;
  try {
    await agent.prompt(positionals.join(" ") || "Fix the greeting in src/greet.ts.");
    if (offline) {
      heading("src/greet.ts after the run");
      console.log(await Deno.readTextFile(`${root}/src/greet.ts`));
    }
    heading(`Audit log (${auditPath})`);
    // No line when no tool ran (the model answered at once, or could not be reached).
    const logged = await Deno.readTextFile(auditPath).catch(() => "");
    const lines = logged.split("\n").filter((line) => line.trim() !== "");
    if (lines.length === 0) console.log("  (no tool calls)");
    for (const line of lines) {
      const entry = JSON.parse(line);
      if (entry.phase !== "end") continue; // intent lines precede the calls that ran
      const by = entry.blockedBy ? ` by ${entry.blockedBy}` : "";
      console.log(`  ${entry.tool} ${JSON.stringify(entry.args)} → ${entry.outcome}${by}`);
    }
    if (timeline) {
      await timeline.write(values.trace!, "examples/coding_agent.ts");
      heading(`Timeline: ${values.trace}`);
    }
  } finally {
    await agent.dispose();
    if (offline && values.root === undefined) await Deno.remove(root, { recursive: true });
  }
}
