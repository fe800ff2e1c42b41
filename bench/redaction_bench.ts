/**
 * The cassette redaction's cost on adversarial text: a recorded run can hold anything a model
 * or a tool wrote, so `redactSecrets` must stay linear in it. Each case is 4 MB of one
 * repeated unit that starts a match attempt at every step (a run of key characters, an
 * escaped quote, a token's prefix). Before the scan that starts once per run of key
 * characters, the key/value pattern scanned up to 256 characters from each word and quote:
 * ~0.5–0.9 s a 2 MB text (10.6 s for these ten at 4 MB); `docs/durable.md` quotes this file.
 *
 *   cd bench && deno bench -A redaction_bench.ts
 *
 * @module
 */

import { redactSecrets } from "@tack/agent/sdk/replay";

const SIZE = 4 << 20;
const UNITS = ["a-", '"\\', "a:", "a=", "--a", "eyJ-", "xoxb-", '"a":"', "//a@", "password:"];

for (const unit of UNITS) {
  const text = unit.repeat(SIZE / unit.length);
  Deno.bench({
    name: `redactSecrets, 4 MB of ${JSON.stringify(unit)}…`,
    group: "adversarial",
    n: 5,
    warmup: 1,
    fn() {
      redactSecrets(text);
    },
  });
}
