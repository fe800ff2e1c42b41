import { runTackLoop } from "./tack.ts";
import { runFloor } from "./floor.ts";
const gc = (globalThis as any).gc;
const mode = Deno.args[0];
for (const turns of [200, 2000]) for (const [name, fn] of [["tack", runTackLoop], ["floor", runFloor]] as const) {
    for (let i = 0; i < 20; i++) await fn(turns);
    const times: number[] = [];
    for (let i = 0; i < 40; i++) { if (mode === "gc") gc?.(); else if (mode === "minor") gc?.({type: "minor"}); const t = performance.now(); await fn(turns); times.push(performance.now() - t); }
    times.sort((a, b) => a - b);
    console.log(mode, name, turns, "µs/call median", (times[20]*1000/turns/8).toFixed(2), "min", (times[0]*1000/turns/8).toFixed(2));
}
