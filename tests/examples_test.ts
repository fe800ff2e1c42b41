import { deepEqual, equal, ok } from "node:assert/strict";
import { denoCacheDir } from "../sdk/sandbox/deno_dir.ts";
import { runErrors } from "../examples/errors.ts";
import { runPolicies } from "../examples/policy.ts";
import { runWeather } from "../examples/weather.ts";

function quietly<T>(run: () => Promise<T>): Promise<T> {
  const log = console.log;
  console.log = () => {};
  return run().finally(() => (console.log = log));
}

Deno.test("examples/weather.ts: the answer uses the tool's result", async () => {
  equal(await quietly(runWeather), "Right now in Paris: Sunny, 21°C in Paris.");
});

Deno.test("examples/errors.ts: the model reads each error path's exact text", async () => {
  deepEqual(await quietly(runErrors), [
    "Tool banana not found. Available tools: get_weather",
    'Invalid arguments for tool "get_weather":\n  - city: is required\nReceived arguments: {"town":"Paris"}',
    "Looking up Atlantis is not allowed by policy.",
    "No weather station in Springfield. Known cities: Paris, Oslo",
  ]);
});

Deno.test("examples/policy.ts: the write runs only under the allow-all policy", async () => {
  deepEqual(await quietly(runPolicies), {
    "CI: allow all": true,
    "interactive: ask (the user says no to writes)": false,
    "read-only: block writes": false,
  });
});

Deno.test("deno task demo runs with no permissions, no key and no network", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "examples/demo.ts"],
    cwd: new URL("..", import.meta.url),
    // The same cache as this run (CI's is a fresh DENO_DIR), nothing else of the env.
    env: { NO_COLOR: "1", DENO_DIR: await denoCacheDir() },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  const stderr = new TextDecoder().decode(output.stderr);
  equal(output.code, 0, stderr);
  equal(stderr.includes("Download"), false, `the demo fetched something: ${stderr}`);
  ok(stdout.includes("tool_execution_end   get_weather ✓ ok: Sunny, 21°C in Paris"));
  ok(stdout.includes("Tool banana not found"));
  ok(stdout.includes("Read-only mode: write_note would write, so it was not run."));
});
