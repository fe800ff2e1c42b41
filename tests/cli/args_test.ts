import { deepEqual, equal, match } from "node:assert/strict";
import { HELP_TEXT, parseCliArgs } from "../../cli/args.ts";

function ok(argv: string[]) {
  const parsed = parseCliArgs(argv);
  if (parsed.kind !== "ok") throw new Error(`expected ok, got: ${parsed.message}`);
  return parsed.args;
}

function error(argv: string[]): string {
  const parsed = parseCliArgs(argv);
  if (parsed.kind !== "error") throw new Error(`expected an error for ${JSON.stringify(argv)}`);
  return parsed.message;
}

Deno.test("no arguments is an interactive session with defaults", () => {
  deepEqual(ok([]), {
    command: "run",
    model: undefined,
    baseURL: undefined,
    config: undefined,
    plugins: [],
    yes: false,
    json: false,
    session: undefined,
    resume: false,
    trace: undefined,
  });
});

Deno.test("every flag is read, positional words join into the prompt", () => {
  const args = ok([
    "--model",
    "gpt-4.1",
    "--base-url=http://127.0.0.1:1/v1",
    "--config",
    "my.jsonc",
    "--plugin",
    "./a.ts",
    "--plugin",
    "npm:b",
    "--yes",
    "--json",
    "--session",
    "s.jsonl",
    "--resume",
    "what",
    "is here?",
  ]);
  equal(args.command, "run");
  equal(args.prompt, "what is here?");
  equal(args.model, "gpt-4.1");
  equal(args.baseURL, "http://127.0.0.1:1/v1");
  equal(args.config, "my.jsonc");
  deepEqual(args.plugins, ["./a.ts", "npm:b"]);
  equal(args.yes, true);
  equal(args.json, true);
  equal(args.session, "s.jsonl");
  equal(args.resume, true);
});

Deno.test("--help, -h, --version and -V win over everything else", () => {
  equal(ok(["--help", "hi"]).command, "help");
  equal(ok(["-h"]).command, "help");
  equal(ok(["--version"]).command, "version");
  equal(ok(["-V"]).command, "version");
  equal(ok(["-y", "x"]).yes, true);
});

Deno.test("help text shows usage, every flag and examples", () => {
  for (
    const flag of [
      "--model",
      "--base-url",
      "--config",
      "--plugin",
      "--yes",
      "--json",
      "--session",
      "--resume",
      "--help",
      "--version",
      "Examples:",
      'tack "what files are here?"',
      "--api",
      "deno task install",
      "plugins inspect",
    ]
  ) equal(HELP_TEXT.includes(flag), true, flag);
});

Deno.test("plugins inspect takes exactly one specifier", () => {
  const args = ok(["plugins", "inspect", "./p.ts"]);
  equal(args.command, "inspect");
  equal(args.inspect, "./p.ts");
  equal(args.prompt, undefined);
  equal(
    error(["plugins", "inspect"]),
    'Usage: tack plugins inspect <specifier>\nRun "tack --help" for usage.',
  );
  equal(
    error(["plugins", "inspect", "a", "b"]),
    'Usage: tack plugins inspect <specifier>\nRun "tack --help" for usage.',
  );
  // "plugins" on its own is just a prompt.
  equal(ok(["plugins"]).prompt, "plugins");
});

Deno.test("bad input gets a usage error that says what is wrong", () => {
  equal(error(["--nope"]), "Unknown option '--nope'\nRun \"tack --help\" for usage.");
  equal(
    error(["--model"]),
    "Option '--model <value>' argument missing\nRun \"tack --help\" for usage.",
  );
  equal(error(["--model", ""]), '--model needs a value\nRun "tack --help" for usage.');
  equal(error(["--plugin", " "]), '--plugin needs a value\nRun "tack --help" for usage.');
  equal(
    error(["--json=yes"]),
    "Option '--json' does not take an argument\nRun \"tack --help\" for usage.",
  );
  equal(error(["  "]), 'The prompt is empty\nRun "tack --help" for usage.');
});

Deno.test("-- ends the flags", () => {
  equal(ok(["--", "--json"]).prompt, "--json");
  equal(ok(["--", "--json"]).json, false);
});

Deno.test("--api takes chat or responses", () => {
  equal(ok(["--api", "responses", "hi"]).api, "responses");
  equal(ok(["--api", "chat", "hi"]).api, "chat");
  equal(ok(["hi"]).api, undefined);
});

Deno.test("`trust` alone is the trust command; more words are a prompt; --config needs no trust", () => {
  const trust = parseCliArgs(["trust"]);
  equal(trust.kind === "ok" && trust.args.command, "trust");
  const prompt = parseCliArgs(["trust", "me"]);
  equal(prompt.kind === "ok" && prompt.args.prompt, "trust me");
  const chosen = parseCliArgs(["--config", "my.jsonc", "trust"]);
  equal(
    chosen.kind === "error" && chosen.message,
    'A --config file needs no trust: tack trust is for ./tack.jsonc\nRun "tack --help" for usage.',
  );
  match(HELP_TEXT, /tack trust +show what \.\/tack\.jsonc does, and trust it as it is now/);
});
