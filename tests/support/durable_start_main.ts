// A starter process of the start-race test. `<kv> <dir> <rounds> <name>`: for each round i,
// writes <dir>/ready-<i>-<name>, waits until the other starter's ready file of that round is
// there too, then starts run "run-<i>" (its answer: "by <name>") and prints one line of JSON:
// {"round": i, "ok": true} or {"round": i, "ok": false, "name": <error>, "message": <its text>}.
import { openRunStore, scriptedModel, startRun, text } from "@tack/agent";
import { meetAt } from "./race_barrier.ts";

const [kvPath, dir, rounds, name] = Deno.args;
const store = await openRunStore(kvPath);

for (let round = 0; round < Number(rounds); round++) {
  await meetAt(dir, round, name);
  const options = { model: scriptedModel([[text(`by ${name}`)]]) };
  try {
    await startRun(store, `run-${round}`, options, "go", name);
    console.log(JSON.stringify({ round, ok: true }));
  } catch (error) {
    const { name, message } = error as Error;
    console.log(JSON.stringify({ round, ok: false, name, message }));
  }
}
store.close();
