/**
 * `deno task demo`: the examples on the built-in scripted model, no key, no network.
 *
 * @module
 */

import { runErrors } from "./errors.ts";
import { runPolicies } from "./policy.ts";
import { runWeather } from "./weather.ts";

console.log(
  "Tack demo: a scripted model drives real tools through the real loop; every event is printed.",
);
await runWeather();
await runErrors();
await runPolicies();
console.log(
  '\nNext: `deno task test`, or a real model: OPENAI_API_KEY=… deno task agent "what files are here?"',
);
