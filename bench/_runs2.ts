import { runTackLoop } from "./tack.ts";
import { runFloor } from "./floor.ts";
const gc = (globalThis as any).gc;
for (const [name, fn] of [["tack", runTackLoop], ["floor", runFloor]] as const) {
  for (const turns of [0, 1, 2, 5]) {
    for (let i = 0; i < 200; i++) await fn(turns);
    const times: number[] = [];
    for (let i = 0; i < 200; i++) { if (Deno.args[0]) gc?.(); const t = performance.now(); await fn(turns); times.push(performance.now() - t); }
    times.sort((a, b) => a - b);
    console.log(name, turns, "median µs", (times[100]*1000).toFixed(0), "min", (times[0]*1000).toFixed(0));
  }
}
