/**
 * Loop overhead per tool call, Tack against `@mariozechner/pi-agent-core` at both API
 * levels (bare loop, agent) and the floor (a minimal loop doing the same work), under
 * `deno bench`: a scripted model asking for 8 parallel calls of a trivial tool per turn,
 * 200 and 2,000 turns. `deno bench` reports the time of one whole run; divide by
 * `turns × 8` for the per-call cost, or run `compare.ts`, which prints it directly along
 * with the other peers.
 *
 * `cd bench && deno bench -A loop_bench.ts`
 *
 * @module
 */

import { runFloor } from "./floor.ts";
import { runPi, runPiLoop } from "./peers/pi.ts";
import { runTack, runTackLoop } from "./tack.ts";
import { checkOutcome, type LoopRunner } from "./workload.ts";

function bench(name: string, run: LoopRunner, turns: number, baseline: boolean): void {
  Deno.bench({
    name,
    group: `${turns} turns × 8 calls`,
    baseline,
    warmup: 5,
    n: turns >= 2_000 ? 20 : 100,
    async fn() {
      checkOutcome(name, turns, await run(turns));
    },
  });
}

for (const turns of [200, 2_000]) {
  bench("tack runLoop", runTackLoop, turns, true);
  bench("pi-agent-core runAgentLoop", runPiLoop, turns, false);
  bench("tack createAgent", runTack, turns, false);
  bench("pi-agent-core Agent", runPi, turns, false);
  bench("floor (minimal loop)", runFloor, turns, false);
}
