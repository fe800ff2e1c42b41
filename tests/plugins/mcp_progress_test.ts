import { toolCall } from "@tack/agent";
import mcp from "@tack/agent/plugins/mcp";
import { deepEqual, equal } from "node:assert/strict";
import { firstText, fixtureServer, run, type RunOutcome } from "./mcp_fixture.ts";

const FLOODING = fixtureServer("flooding_server.ts");

/** The text of each `tool_execution_update` event. */
function updatesOf(events: RunOutcome["events"]): string[] {
  return events.flatMap((event) =>
    event.type === "tool_execution_update" && event.partialResult.content[0]?.type === "text"
      ? [event.partialResult.content[0].text]
      : []
  );
}

Deno.test("a flood of progress gives one update at once and the latest before the result, not one each", async () => {
  // 200,000 notifications made 200,000 update events (by hand,
  // `deno run -A scripts/measure_mcp_non_answers.ts progress 200000 3 1e9`).
  // An interval longer than the test keeps back all but the first, shown before the result.
  const plugin = await mcp({ name: "flooding", ...FLOODING, progressIntervalMs: 60_000 });
  try {
    const { results, events } = await run(plugin, [
      toolCall("flooding_progress", { count: 10_000 }),
    ]);
    equal(firstText(results[0]), "sent 10000 progress notifications");
    deepEqual(updatesOf(events), ["progress 1/10000", "progress 10000/10000"]);
  } finally {
    await plugin.dispose();
  }
});

Deno.test("progress kept back is shown when the interval has passed, while the call still runs", async () => {
  // The server sends 3 notifications at once, then waits until the call is cancelled: the
  // third is shown by the interval's timer (the test then aborts), not at the call's end.
  const plugin = await mcp({
    name: "flooding",
    ...FLOODING,
    progressIntervalMs: 1_000,
    timeoutMs: 20_000, // bounds how long the test takes when the third is never shown
  });
  try {
    const { results, events } = await run(
      plugin,
      [toolCall("flooding_progress", { count: 3, wait: true })],
      {},
      (agent) =>
        agent.subscribe((event) => {
          if (
            event.type === "tool_execution_update" &&
            event.partialResult.content[0]?.type === "text" &&
            event.partialResult.content[0].text === "progress 3/3"
          ) agent.abort();
        }),
    );
    deepEqual(updatesOf(events), ["progress 1/3", "progress 3/3"]);
    deepEqual([results[0].isError, firstText(results[0])], [
      true,
      "Tool flooding_progress was aborted while running",
    ]);
  } finally {
    await plugin.dispose();
  }
});

Deno.test("a call receiving more than 100,000 progress notifications ends the server; the next call restarts it", async () => {
  // The server sends them faster than the 10,000 messages a second that answer nothing it may
  // send (tests/plugins/mcp_non_answers_test.ts): that bound is lifted to reach this one.
  const plugin = await mcp({
    name: "flooding",
    ...FLOODING,
    progressIntervalMs: 60_000,
    maxNonAnswersPerSecond: 1_000_000,
  });
  try {
    const { results, events } = await run(plugin, [
      toolCall("flooding_progress", { count: 100_001 }),
    ]);
    deepEqual([results[0].isError, firstText(results[0])], [
      true,
      'MCP tool "progress" on server "flooding" failed: the server sent more than 100000 ' +
      "progress notifications for one call; it is reconnected on the next call",
    ]);
    // The last shown is the last within the bound.
    deepEqual(updatesOf(events), ["progress 1/100001", "progress 100000/100001"]);
    // Exactly the bound is allowed.
    const after = await run(plugin, [toolCall("flooding_progress", { count: 100_000 })]);
    equal(firstText(after.results[0]), "sent 100000 progress notifications");
    equal(plugin.servers.get("flooding")?.starts, 2);
  } finally {
    await plugin.dispose();
  }
});
