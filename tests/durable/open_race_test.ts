// Two processes that open one new store file at the same moment both open it: the one that
// does not create it may find it locked while the other sets it up, and waits.
import { deepEqual, equal } from "node:assert/strict";

const OPENER = new URL("../support/durable_open_main.ts", import.meta.url).pathname;
const ROUNDS = 150;

async function opener(dir: string, name: string): Promise<string[]> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-kv", OPENER, dir, String(ROUNDS), name],
    stdout: "piped",
    stderr: "piped",
  }).output();
  equal(output.code, 0, new TextDecoder().decode(output.stderr));
  return new TextDecoder().decode(output.stdout).trim().split("\n");
}

Deno.test(`two processes open one new store file at the same moment (${ROUNDS} rounds): both open it`, async () => {
  const dir = Deno.makeTempDirSync({ prefix: "tack_open_race_" });
  const outcomes = await Promise.all(["a", "b"].map((name) => opener(dir, name)));
  // Before, now and then: `Cannot open run store "<file>": database is locked`.
  for (const lines of outcomes) deepEqual(lines, Array(ROUNDS).fill("ok"));
  await Deno.remove(dir, { recursive: true });
});
