import { deepEqual, equal, match, throws } from "node:assert/strict";
import { join } from "node:path";
import { emptyUsage, type Message } from "@tack/agent";
import {
  interruptedToolResults,
  latestSession,
  loadSession,
  newSessionPath,
  openSession,
} from "../../cli/session.ts";

const user = (text: string): Message => ({ role: "user", content: text, timestamp: 1 });
const callMessage = (...ids: string[]): Message => ({
  role: "assistant",
  content: ids.map((id) => ({ type: "toolCall", id, name: "bash", arguments: { command: "ls" } })),
  stopReason: "toolUse",
  usage: emptyUsage(),
  provider: "openai",
  model: "m",
  timestamp: 2,
});
const result = (id: string): Message => ({
  role: "toolResult",
  toolCallId: id,
  toolName: "bash",
  content: [{ type: "text", text: "ok" }],
  isError: false,
  timestamp: 3,
});
const lines = (...messages: Message[]) => messages.map((m) => JSON.stringify(m) + "\n").join("");

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function open(path: string) {
  const opened = await openSession(path);
  if (opened.kind !== "ok") throw new Error(opened.message);
  return opened.value;
}

Deno.test("each append is one line, and the file reads back in order", () =>
  withDir(async (dir) => {
    const path = join(dir, "nested", "s.jsonl");
    const session = await open(path);
    deepEqual(session.messages, []);
    // Nothing is created until the first message.
    equal(await Deno.stat(join(dir, "nested")).then(() => true, () => false), false);
    session.append(user("one"));
    session.append(user("two"));
    const text = await Deno.readTextFile(path);
    equal(text, lines(user("one"), user("two")));
    deepEqual((await open(path)).messages, [user("one"), user("two")]);
    // A transcript holds what the tools read: owner only.
    equal((await Deno.stat(join(dir, "nested"))).mode! & 0o777, 0o700);
    equal((await Deno.stat(path)).mode! & 0o777, 0o600);
  }));

Deno.test("an existing session file keeps its mode", () =>
  withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    await Deno.writeTextFile(path, "");
    await Deno.chmod(path, 0o640);
    (await open(path)).append(user("one"));
    equal((await Deno.stat(path)).mode! & 0o777, 0o640);
  }));

Deno.test("a torn last line is skipped with a warning and cut off, so appends stay whole", () =>
  withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    await Deno.writeTextFile(path, lines(user("kept")) + '{"role":"assistant","cont');
    const loaded = await loadSession(path);
    if (loaded.kind !== "ok") throw new Error(loaded.message);
    deepEqual(loaded.value.messages, [user("kept")]);
    equal(loaded.value.warnings.length, 1);
    match(
      loaded.value.warnings[0],
      /^Skipped the last line of .*s\.jsonl \(line 2\): it is not valid JSON \(.*\), probably cut off by a crash$/,
    );
    const session = await open(path);
    session.append(user("after"));
    equal(await Deno.readTextFile(path), lines(user("kept"), user("after")));
    const again = await loadSession(path);
    deepEqual(again.kind === "ok" && again.value.warnings, []);
  }));

Deno.test("a last line that is JSON but not a message is skipped too", () =>
  withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    await Deno.writeTextFile(path, lines(user("kept")) + '{"hello":1}\n');
    const loaded = await loadSession(path);
    if (loaded.kind !== "ok") throw new Error(loaded.message);
    equal(loaded.value.messages.length, 1);
    match(
      loaded.value.warnings[0],
      /\(line 2\): it is not a message \(it needs a role and content\)/,
    );
  }));

Deno.test("a bad line before the last is an error naming the file and line", () =>
  withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    await Deno.writeTextFile(path, lines(user("a")) + "not json\n" + lines(user("b")));
    const loaded = await loadSession(path);
    equal(loaded.kind, "error");
    match(
      loaded.kind === "error" ? loaded.message : "",
      new RegExp(`^Cannot load session ${path}: line 2 is not valid JSON \\(`),
    );
    const opened = await openSession(path);
    equal(opened.kind, "error");
    // The file is left alone.
    equal(await Deno.readTextFile(path), lines(user("a")) + "not json\n" + lines(user("b")));
  }));

Deno.test("blank lines between messages are ignored", () =>
  withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    await Deno.writeTextFile(path, lines(user("a")) + "\n" + lines(user("b")));
    const loaded = await loadSession(path);
    deepEqual(loaded.kind === "ok" && loaded.value.messages, [user("a"), user("b")]);
    deepEqual(loaded.kind === "ok" && loaded.value.warnings, []);
  }));

Deno.test("tool calls a crash left without results are closed as error results", () =>
  withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    await Deno.writeTextFile(path, lines(user("go"), callMessage("c1", "c2"), result("c1")));
    const session = await open(path);
    equal(session.messages.length, 4);
    const repaired = session.messages[3];
    equal(repaired.role, "toolResult");
    if (repaired.role !== "toolResult") return;
    equal(repaired.toolCallId, "c2");
    equal(repaired.isError, true);
    deepEqual(repaired.content, [{
      type: "text",
      text: "Tool bash was interrupted: the session ended before it finished",
    }]);
    deepEqual(session.warnings, [
      "Closed 1 tool call(s) the last session left running, as error results",
    ]);
    // The repair is written, so the next open finds nothing to repair.
    const again = await open(path);
    equal(again.messages.length, 4);
    deepEqual(again.warnings, []);
  }));

Deno.test("interruptedToolResults looks only at the last assistant message", () => {
  deepEqual(interruptedToolResults([]), []);
  deepEqual(interruptedToolResults([user("hi")]), []);
  deepEqual(interruptedToolResults([callMessage("a"), result("a")]), []);
  equal(interruptedToolResults([callMessage("a"), result("a"), callMessage("b")]).length, 1);
});

Deno.test("latestSession picks the most recently written file", () =>
  withDir(async (dir) => {
    equal(await latestSession(join(dir, "missing")), undefined);
    const older = join(dir, "b-older.jsonl");
    const newer = join(dir, "a-newer.jsonl");
    await Deno.writeTextFile(older, lines(user("1")));
    await Deno.writeTextFile(newer, lines(user("2")));
    await Deno.writeTextFile(join(dir, "notes.txt"), "not a session");
    await Deno.utime(older, new Date(1000), new Date(1000));
    await Deno.utime(newer, new Date(2000), new Date(2000));
    equal(await latestSession(dir), newer);
    await Deno.utime(older, new Date(3000), new Date(3000));
    equal(await latestSession(dir), older);
  }));

Deno.test("new session names sort by time and do not collide", () => {
  const a = newSessionPath("/s", new Date("2026-01-02T03:04:05.006Z"));
  match(a, /^\/s\/2026-01-02T03-04-05-006Z-[0-9a-f]{8}\.jsonl$/);
  const b = newSessionPath("/s", new Date("2026-01-02T03:04:05.006Z"));
  equal(a === b, false);
});

Deno.test("a line whose blocks are not blocks is an error naming the line, not a crash on resume", () =>
  withDir(async (dir) => {
    const bad = [
      '{"role":"assistant","content":[null],"stopReason":"toolUse","timestamp":2}',
      '{"role":"assistant","content":[{"type":"toolCall","id":7,"name":"bash"}],"timestamp":2}',
      '{"role":"toolResult","content":[{"type":"text","text":"x"}],"timestamp":3}',
      '{"role":"user","content":[42],"timestamp":1}',
    ];
    for (const line of bad) {
      const path = join(dir, "s.jsonl");
      await Deno.writeTextFile(path, lines(user("a")) + line + "\n" + lines(user("b")));
      // Before: the first was read as a message, and --resume died on a TypeError.
      const opened = await openSession(path);
      deepEqual(opened, {
        kind: "error",
        message:
          `Cannot load session ${path}: line 2 is not a message (it needs a role and content)`,
      });
    }
  }));

Deno.test("a session below the workspace is not read, truncated or written through a symlink", async () => {
  // Found by an attack: a repository's .tack/sessions -> elsewhere took every transcript
  // there, and a torn session file would have been truncated through the link.
  const root = await Deno.realPath(await Deno.makeTempDir());
  const outside = await Deno.realPath(await Deno.makeTempDir());
  try {
    await Deno.mkdir(`${root}/.tack`);
    await Deno.symlink(outside, `${root}/.tack/sessions`);
    const path = `${root}/.tack/sessions/s.jsonl`;
    const opened = await openSession(path, root);
    deepEqual(opened, {
      kind: "error",
      message:
        `Cannot open session: Cannot write ${path}: ${root}/.tack/sessions is a symlink (to ${outside}); a run's records go only to real files and folders under ${root}`,
    });
    deepEqual([...Deno.readDirSync(outside)], []);
    // A link the run's own tools make after the session opened: the next line is refused too.
    await Deno.remove(`${root}/.tack/sessions`);
    const fresh = await openSession(path, root);
    if (fresh.kind !== "ok") throw new Error(fresh.message);
    fresh.value.append({ role: "user", content: "first", timestamp: 1 });
    await Deno.rename(path, `${outside}/moved.jsonl`);
    await Deno.symlink(`${outside}/victim`, path);
    throws(
      () => fresh.value.append({ role: "user", content: "secret", timestamp: 2 }),
      /is a symlink/,
    );
    equal(await Deno.stat(`${outside}/victim`).then(() => true, () => false), false);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});
