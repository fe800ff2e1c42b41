import { runTackLoop } from "./tack.ts";
const turns = Number(Deno.args[0]);
const n = Number(Deno.args[1]);
for (let i = 0; i < n; i++) await runTackLoop(turns);
