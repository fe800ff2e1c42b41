import { deepEqual, equal } from "node:assert/strict";
import { confirmQuestion, createTerminalAsk } from "../../cli/ask.ts";

const request = {
  toolName: "bash",
  args: { command: "git push" },
  reason: "bash has effect exec",
  toolCallId: "c1",
};

function harness(answer: number | undefined) {
  const log: string[] = [];
  const ask = createTerminalAsk({
    before: () => log.push("before"),
    after: () => log.push("after"),
    cancelled: () => log.push("cancelled"),
    select: (options) => {
      log.push(`select:${options.message}|${options.options.join("|")}`);
      return Promise.resolve(answer);
    },
  });
  return { ask, log };
}

Deno.test("the question names the tool, its arguments and why", () => {
  equal(confirmQuestion(request), 'Run bash command="git push"? (bash has effect exec)');
  equal(confirmQuestion({ ...request, args: {}, reason: "" }), "Run bash?");
});

Deno.test("each choice maps to its answer, with the spinner paused around the question", async () => {
  for (const [index, answer] of [[0, "yes"], [1, "no"], [2, "always"]] as const) {
    const { ask, log } = harness(index);
    equal(await ask(request), answer);
    deepEqual(log, [
      "before",
      'select:Run bash command="git push"? (bash has effect exec)|Yes, run it|No, block it|' +
      "Always allow this tool in this session",
      "after",
    ]);
  }
});

Deno.test("Ctrl-C at the question answers no and aborts the run", async () => {
  const { ask, log } = harness(undefined);
  equal(await ask(request), "no");
  deepEqual(log.filter((e) => !e.startsWith("select:")), ["before", "cancelled", "after"]);
});

Deno.test("a failing prompt still resumes the spinner and reports the failure", async () => {
  const log: string[] = [];
  const ask = createTerminalAsk({
    before: () => log.push("before"),
    after: () => log.push("after"),
    cancelled: () => log.push("cancelled"),
    select: () => Promise.reject(new Error("Cannot prompt when not a tty.")),
  });
  let message = "";
  await ask(request).catch((e) => (message = e.message));
  equal(message, "Cannot prompt when not a tty.");
  deepEqual(log, ["before", "after"]);
});
