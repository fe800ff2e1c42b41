// A sandbox's stderr lines are bounded in number: at most 200 a second are shown, the rest
// are dropped with a note counting them, and the last lines of a stream that ends
// mid-flood are shown after all (a crash's last words, V8's out-of-memory report).
import { deepEqual, equal, match } from "node:assert/strict";
import { loadPlugin } from "../../sdk/sandbox/mod.ts";
import { sandboxStderr } from "../../sdk/sandbox/sandbox_stderr.ts";
import { callTool as call } from "../support/sandboxed_calls.ts";

const encoder = new TextEncoder();

/** A sink whose clock the test moves, and what it printed. */
function sink(print = true) {
  const printed: string[] = [];
  const clock = { ms: 0 };
  const stderr = sandboxStderr({
    label: "p",
    print: print ? (line) => printed.push(line) : undefined,
    now: () => clock.ms,
  });
  const write = (from: number, count: number) => {
    for (let i = from; i < from + count; i++) stderr.line(encoder.encode(`line ${i}`), 0);
  };
  return { stderr, printed, clock, write };
}

const lines = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `[p] line ${from + i}`);

Deno.test("a flood in one second: 200 lines, a note counting the rest, then the last 16", () => {
  const { stderr, printed, write } = sink();
  write(0, 100_000);
  deepEqual(printed, lines(0, 200));
  stderr.end();
  const note = "… [99784 lines dropped: more than 200 in a second; the last 16 follow]";
  deepEqual(printed, [...lines(0, 200), `[p] ${note}`, ...lines(99_984, 16)]);
  const shown = printed.slice(-17).map((line) => line.slice("[p] ".length)).join("\n");
  equal(stderr.tail().endsWith(`line 199\n${shown}\n`), true, stderr.tail());
});

Deno.test("a few lines over the bound are all shown at the end, without a note", () => {
  const { stderr, printed, write } = sink();
  write(0, 210);
  stderr.end();
  deepEqual(printed, lines(0, 210));
});

Deno.test("each second has its own 200 lines, counted from its first line", () => {
  const { stderr, printed, clock, write } = sink();
  clock.ms = 5_000;
  write(0, 200);
  clock.ms = 6_000;
  write(200, 200);
  clock.ms = 6_999;
  write(400, 200);
  stderr.end();
  deepEqual(printed, [
    ...lines(0, 400),
    "[p] … [184 lines dropped: more than 200 in a second; the last 16 follow]",
    ...lines(584, 16),
  ]);
});

Deno.test("when the second is over, a note counts what it dropped and lines show again", async () => {
  const { stderr, printed, write } = sink();
  write(0, 250);
  deepEqual(printed, lines(0, 200));
  // The window ends on a timer, a second after its first line (the clock stands still).
  const deadline = Date.now() + 30_000;
  while (printed.length === 200 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  write(250, 5);
  stderr.end();
  deepEqual(printed, [
    ...lines(0, 200),
    "[p] … [50 lines dropped: more than 200 in a second]",
    ...lines(250, 5),
  ]);
});

/** Settles with `promise`, or fails after a generous wait. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} never happened`)), 30_000);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("past 20,000 lines in a second, reading pauses until the second is over", async () => {
  const { stderr, printed, write } = sink();
  write(0, 19_999);
  equal(stderr.pause(), undefined);
  write(19_999, 1);
  const paused = stderr.pause();
  equal(paused instanceof Promise, true);
  equal(stderr.pause(), paused, "one pause for the second");
  await within(paused!, "the end of the second");
  deepEqual(printed.slice(200), ["[p] … [19800 lines dropped: more than 200 in a second]"]);
  equal(stderr.pause(), undefined);
  write(20_000, 1);
  stderr.end();
  deepEqual(printed.slice(201), ["[p] line 20000"]);
});

Deno.test("once the writer is gone, reading no longer pauses", async () => {
  const { stderr, write } = sink();
  write(0, 20_000);
  const paused = stderr.pause();
  stderr.release();
  await within(paused!, "the release");
  write(20_000, 50_000);
  equal(stderr.pause(), undefined);
  stderr.end();
});

Deno.test("lines shown after all are cut and stripped like the others", () => {
  const { stderr, printed, write } = sink();
  stderr.line(encoder.encode("\x1b[31mred\x1b[0m"), 10);
  write(1, 199);
  write(200, 20);
  stderr.line(encoder.encode("\x1b]52;c;cm0gLXJmIC8=\x07last\r"), 5);
  stderr.end();
  deepEqual(printed, [
    "[p] red… [10 more bytes cut]",
    ...lines(1, 199),
    "[p] … [5 lines dropped: more than 200 in a second; the last 16 follow]",
    ...lines(205, 15),
    "[p] last… [5 more bytes cut]",
  ]);
});

Deno.test("V8's out-of-memory report is noticed in the last lines of a flood, captured", () => {
  const { stderr, printed, write } = sink(false);
  write(0, 300);
  for (const line of ["#", "# Fatal JavaScript out of memory: Reached heap limit", "#"]) {
    stderr.line(encoder.encode(line), 0);
  }
  write(300, 3);
  stderr.end();
  equal(stderr.outOfMemory(), true);
  deepEqual(printed, []);
  match(
    stderr.tail(),
    /\nline 199\n… \[90 lines dropped: more than 200 in a second; the last 16 follow\]\nline 290\n[^]*\n# Fatal JavaScript out of memory: Reached heap limit\n#\nline 300\nline 301\nline 302\n$/,
  );
});

Deno.test("V8's out-of-memory report is noticed while dropped, however many lines follow it", () => {
  // Its C stack trace can be longer than the last lines kept (a CI run reported an
  // out-of-memory sandbox as crashed with exit code 133).
  const { stderr, write } = sink(false);
  write(0, 300);
  stderr.line(encoder.encode("# Fatal JavaScript out of memory: Reached heap limit"), 0);
  write(300, 40);
  stderr.end();
  equal(stderr.outOfMemory(), true);
  equal(stderr.tail().includes("Fatal JavaScript"), false, "the report is among the kept lines");
});

Deno.test("Rust's allocation failure is noticed while dropped; other dropped lines are not reports", () => {
  const { stderr, write } = sink(false);
  write(0, 300);
  stderr.line(encoder.encode("# not a report"), 0);
  stderr.line(encoder.encode("more lines"), 0);
  equal(stderr.outOfMemory(), false);
  stderr.line(encoder.encode("memory allocation of 1073741824 bytes failed"), 0);
  write(300, 40);
  stderr.end();
  equal(stderr.outOfMemory(), true);
});

// The real thing: a sandboxed plugin flooding its stderr.

const FIXTURE = "./tests/fixtures/sandbox/hostile_plugin.ts";

Deno.test("50,000 lines on a plugin's stderr: each is shown or counted, at most 200 shown and ~20,000 read a second", async () => {
  const host = new URL("../fixtures/sandbox/stderr_host.ts", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", host, 'chatter:{"lines":50000}'],
    stdout: "piped",
    stderr: "piped",
  }).output();
  equal(new TextDecoder().decode(output.stdout), "wrote 50000 lines\n");
  const label = `[${FIXTURE}] `;
  const printed = new TextDecoder().decode(output.stderr).split("\n");
  equal(printed.pop(), "");
  // Each second shows at most 200 lines and reads at most 20,000 and the rest of the 64
  // KiB chunk they came in ("line 0\n" is 7 bytes); a second that drops ends in a note,
  // and the last one (cut short when the plugin is disposed) shows its last 16 lines.
  const mostRead = 20_000 + Math.ceil(65_536 / 7);
  let shown = 0;
  let dropped = 0;
  let inWindow = 0;
  let next = 0;
  for (const line of printed) {
    equal(line.startsWith(label), true, line);
    const text = line.slice(label.length);
    const note = /^… \[(\d+) lines dropped: more than 200 in a second(; the last 16 follow)?\]$/
      .exec(text);
    if (note !== null) {
      equal(inWindow + Number(note[1]) <= mostRead, true, `a second read more: ${text}`);
      dropped += Number(note[1]);
      next += Number(note[1]);
      inWindow = note[2] === undefined ? 0 : -16;
      continue;
    }
    equal(text, `line ${next}`, "lines are shown in order, none missing but those counted");
    next++;
    shown++;
    inWindow++;
    equal(inWindow <= 200, true, "more than 200 lines in one window");
  }
  equal(shown + dropped, 50_000);
  equal(next, 50_000);
  equal(dropped > 0, true, "nothing was dropped");
});

Deno.test("a plugin that floods its stderr and crashes: its last words are in the error", async () => {
  const plugin = await loadPlugin(FIXTURE, { sandbox: true, stderr: "capture" });
  try {
    const said = Array.from({ length: 15 }, (_, i) => `line ${985 + i}`).join(String.raw`\\n`);
    match(
      await call(plugin, "chatter_then_crash"),
      new RegExp(
        String
          .raw`^error: Tool chatter_then_crash failed: the sandbox of plugin "hostile" crashed \(exit code 3\) while running it; its last words on stderr: ".*\\nline 199\\n… \[785 lines dropped: more than 200 in a second; the last 16 follow\]\\n` +
          said + String.raw`\\ngoodbye"; it restarts for the next call$`,
      ),
    );
    equal(await call(plugin, "echo", { text: "still here" }), "still here");
  } finally {
    await plugin.dispose?.();
  }
});

Deno.test("a plugin that floods its stderr until it runs out of memory: the error names the limit", async () => {
  const plugin = await loadPlugin(FIXTURE, { sandbox: true, stderr: "capture" });
  try {
    equal(
      await call(plugin, "chatter_while_hogging"),
      'error: Tool chatter_while_hogging failed: the sandbox of plugin "hostile" exceeded its memory limit (256 MB) while running it; it restarts for the next call',
    );
    equal(await call(plugin, "echo", { text: "still here" }), "still here");
  } finally {
    await plugin.dispose?.();
  }
});
