import { deepEqual, equal, rejects, throws } from "node:assert/strict";
import { advantage, type CompareRow } from "./compare_row.ts";
import { loadFrameworks } from "./frameworks.ts";
import { measureInterleaved, median } from "./measure.ts";
import { renderTable } from "./render_table.ts";
import { checkOutcome, messagesOfRun, turnsForMessages } from "./workload.ts";
import { freshDenoDir } from "../tests/support/fresh_deno_dir.ts";
import { bareChildAnswer, writeFloorChild } from "./pipe_floor.ts";

Deno.test("median takes the middle, or the mean of the two middle values", () => {
  equal(median([5, 1, 3]), 3);
  equal(median([4, 1, 3, 2]), 2.5);
  throws(() => median([]), new Error("Cannot take the median: no values"));
});

Deno.test("checkOutcome rejects a run that skipped work, naming what is off", () => {
  const done = { executions: 16, toolResults: 16, modelTurns: 3, finalText: "done" };
  checkOutcome("x", 2, { ...done, transcript: new Array(messagesOfRun(2)) });
  throws(
    () => checkOutcome("x", 2, { ...done, executions: 8, transcript: new Array(20) }),
    new Error(
      "Cannot trust the x run: expected 16 executions and results and 3 model turns, " +
        "got 8 executions",
    ),
  );
  throws(
    () => checkOutcome("x", 2, { ...done, finalText: "", transcript: new Array(3) }),
    new Error(
      'Cannot trust the x run: expected 16 executions and results and 3 model turns, got 3 messages, final text ""',
    ),
  );
});

Deno.test("turnsForMessages reaches the transcript size asked for", () => {
  equal(turnsForMessages(10_000), 1111);
  equal(messagesOfRun(1111), 10_001);
  equal(turnsForMessages(11), 1);
});

Deno.test("measureInterleaved: warm-up unmeasured, budget stops slow contenders at minRuns", async () => {
  const calls: string[] = [];
  const times = await measureInterleaved([
    { name: "fast", run: () => void calls.push("fast") },
    {
      name: "slow",
      run: async () => {
        calls.push("slow");
        await new Promise((resolve) => setTimeout(resolve, 15));
      },
    },
  ], { warmup: 1, runs: 6, minRuns: 2, budgetMs: 20 });
  equal(times.get("fast")!.length, 6);
  equal(times.get("slow")!.length, 2);
  deepEqual(calls.slice(0, 4), ["fast", "slow", "fast", "slow"]);
});

Deno.test("advantage and the 'Tack leads' column", () => {
  const row = (tack: number, other: number, better: "lower" | "higher"): CompareRow => ({
    measure: "m",
    unit: "u",
    better,
    tack: { value: tack },
    others: { Peer: { value: other } },
  });
  equal(advantage(row(2, 6, "lower"), 6), 3);
  equal(advantage(row(200, 100, "higher"), 100), 2);
  const table = renderTable([row(2, 6, "lower"), row(2, 1, "lower"), row(100, 98, "lower")]);
  const lines = table.split("\n");
  equal(lines[2], "| 1 | m | u | 2.00 | 6.00 (3.00×) | yes |");
  equal(lines[3], "| 2 | m | u | 2.00 | 1.00 (0.50×) | **no** |");
  equal(lines[4], "| 3 | m | u | 100 | 98.0 (0.98×) | tie (±5%) |");
  const withFloor = renderTable([{
    ...row(4, 8, "lower"),
    tack: { value: 4, min: 3.5, max: 5 },
    floor: { value: 2 },
  }]).split("\n");
  equal(withFloor[0], "| # | Measure | Unit | Tack | Peer | Floor | Tack leads |");
  equal(
    withFloor[2],
    "| 1 | m | u | 4.00 [3.50–5.00] | 8.00 (2.00×) | 2.00 (Tack at 2.00×) | yes |",
  );
});

Deno.test("every adapter does the whole workload", async () => {
  const frameworks = await loadFrameworks();
  deepEqual(frameworks.map((f) => f.key), ["tack", "pi", "ai", "openai-agents", "floor"]);
  for (const framework of frameworks) {
    equal(framework.unavailable, undefined);
    checkOutcome(framework.key, 2, await framework.run!(2));
    if (framework.loop) checkOutcome(`${framework.key} loop`, 2, await framework.loop(2));
  }
  deepEqual(frameworks.filter((f) => f.loop).map((f) => f.key), ["tack", "pi", "floor"]);
  // The floor comes along whatever --only says.
  deepEqual((await loadFrameworks(["pi"])).map((f) => f.key), ["pi", "floor"]);
});

Deno.test("freshDenoDir: the npm packages are there as real files, and no store comes along", async () => {
  const shared = await Deno.makeTempDir();
  const registry = `${shared}/npm/registry.npmjs.org`;
  for (const name of ["typebox/1.4.3", "re2js/2.10.0", "zod/4.0.0"]) {
    await Deno.mkdir(`${registry}/${name}`, { recursive: true });
    await Deno.writeTextFile(`${registry}/${name}/index.js`, "export {};");
  }
  await Deno.mkdir(`${shared}/tack_graphs`);
  const fresh = await freshDenoDir(shared);
  try {
    for (const name of ["typebox/1.4.3", "re2js/2.10.0", "zod/4.0.0"]) {
      const path = `${fresh}/npm/registry.npmjs.org/${name}`;
      equal((await Deno.lstat(path)).isSymlink, false, name);
      equal(await Deno.readTextFile(`${path}/index.js`), "export {};");
    }
    equal(await Deno.stat(`${fresh}/tack_graphs`).then(() => true, () => false), false);
  } finally {
    await Deno.remove(fresh, { recursive: true });
    await Deno.remove(shared, { recursive: true });
  }
});

Deno.test("the cold-start floor: its child answers one call with two lines; a silent one fails", async () => {
  const script = await writeFloorChild();
  const silent = await Deno.makeTempFile({ suffix: ".js" });
  try {
    await bareChildAnswer(script);
    await Deno.writeTextFile(silent, "await Deno.stdin.read(new Uint8Array(1));");
    await rejects(bareChildAnswer(silent), {
      message: "Cannot run the floor: its child did not answer with two lines",
    });
  } finally {
    await Deno.remove(script);
    await Deno.remove(silent);
  }
});

Deno.test("compare.ts --quick is a smoke run: Tack, pi and the floor, no rows in other processes", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--v8-flags=--expose-gc", "compare.ts", "--quick"],
    cwd: new URL(".", import.meta.url).pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const rows = text.split("\n").filter((line) => /^\| \d+ \|/.test(line))
    .map((line) => line.split("|").map((cell) => cell.trim()));
  const measures = rows.map((cells) => cells[2]);
  // Tack and pi measured on the first loop row, ai and @openai/agents not.
  deepEqual(rows[0].slice(4, 8).map((cell) => cell !== ""), [true, true, false, false]);
  // Loop and agent rows at 200 and 2,000 turns with their growth, and the validation rows:
  // no warm-up curve, memory, provider or sandbox row (each starts processes of its own).
  deepEqual(measures.map((measure) => measure.split(/[:,(]/)[0]), [
    "loop API ",
    "loop API ",
    "loop API cost growth",
    "agent API ",
    "agent API ",
    "agent API cost growth",
    "argument validation per call",
    "argument validation per call",
  ]);
});
