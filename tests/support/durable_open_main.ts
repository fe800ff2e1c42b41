// An opener process of the open-race test. `<dir> <rounds> <name>`: for each round i, writes
// <dir>/ready-<i>-<name>, waits until the other opener's ready file of that round is there
// too, then opens the store <dir>/runs-<i>.sqlite (new), lists it and closes it, and prints one
// line: "ok" or the error's message.
import { openRunStore } from "@tack/agent";
import { meetAt } from "./race_barrier.ts";

const [dir, rounds, name] = Deno.args;

for (let round = 0; round < Number(rounds); round++) {
  await meetAt(dir, round, name);
  try {
    const store = await openRunStore(`${dir}/runs-${round}.sqlite`);
    await store.list();
    store.close();
    console.log("ok");
  } catch (error) {
    console.log((error as Error).message);
  }
}
