/**
 * Sessions: the transcript as a JSONL file, one message a line, appended as each
 * message completes, with timing lines between them (`{"event":…,"at":…}`, read by
 * `tack trace`; skipped here). A crash loses at most the message in flight; a torn last line is
 * skipped (and cut off) with a warning when the session is opened again.
 *
 * @module
 */

import { dirname, join } from "node:path";
import type { Message, ToolResultMessage } from "../core/messages.ts";
import { appendPrivateText, makePrivateDir, refuseLinksBelow } from "../sdk/private_files.ts";
import { isTraceRecord, type SessionLine } from "./trace_record.ts";
import { malformedAssistantMessage } from "../core/check_assistant_message.ts";

/** Where sessions go unless the config says otherwise. */
export const DEFAULT_SESSION_DIR: string = ".tack/sessions";

/** A transcript read back from a session file. */
export interface LoadedSession {
  /** The whole messages, in order. */
  messages: Message[];
  /** Things the reader skipped or repaired, to show the user. */
  warnings: string[];
  /** Bytes of the file that hold whole messages (a torn tail starts here). */
  validBytes: number;
  /** Whether the file existed. */
  exists: boolean;
}

/** The outcome of reading a session: the transcript, or an error naming file and line. */
export type SessionResult<T> = { kind: "ok"; value: T } | { kind: "error"; message: string };

const ROLES = new Set(["user", "assistant", "toolResult"]);

/**
 * Whether a session line is a whole message: a known role, content as the role has it (a
 * string only for a user message), its blocks typed, a tool result's call id.
 *
 * @param value A parsed line.
 * @returns Whether it is a message.
 *
 * @example
 * ```ts
 * import { isSessionMessage } from "./session.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(isSessionMessage({ role: "user", content: "hi", timestamp: 1 }), true);
 * equal(isSessionMessage({ role: "assistant", content: "hello" }), false);
 * ```
 */
export function isSessionMessage(value: unknown): value is Message {
  if (typeof value !== "object" || value === null) return false;
  const { role, content, toolCallId } = value as {
    role?: unknown;
    content?: unknown;
    toolCallId?: unknown;
  };
  if (typeof role !== "string" || !ROLES.has(role)) return false;
  if (typeof content === "string") return role === "user";
  if (!Array.isArray(content)) return false;
  // Its blocks too: the session is read back by code that takes each for what it says it is.
  if (role === "assistant") return malformedAssistantMessage(value) === undefined;
  const blocks = content.every((block) =>
    typeof block === "object" && block !== null && typeof block.type === "string"
  );
  return blocks && (role !== "toolResult" || typeof toolCallId === "string");
}

/**
 * Reads a session file. A missing file is an empty session. A last line that is not a
 * whole message (torn by a crash) is skipped with a warning; a bad line before it is an
 * error, since dropping it would lose part of the conversation.
 *
 * @param path The JSONL file.
 * @returns The messages and warnings, or an error to print.
 *
 * @example A torn last line
 * ```ts
 * import { loadSession } from "./session.ts";
 * import { equal } from "node:assert/strict";
 *
 * const path = await Deno.makeTempFile({ suffix: ".jsonl" });
 * await Deno.writeTextFile(path, '{"role":"user","content":"hi","timestamp":1}\n{"role":"ass');
 * const loaded = await loadSession(path);
 * equal(loaded.kind === "ok" && loaded.value.messages.length, 1);
 * equal(loaded.kind === "ok" && loaded.value.warnings.length, 1);
 * await Deno.remove(path);
 * ```
 */
export async function loadSession(path: string): Promise<SessionResult<LoadedSession>> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return { kind: "ok", value: { messages: [], warnings: [], validBytes: 0, exists: false } };
    }
    return { kind: "error", message: `Cannot load session ${path}: ${(error as Error).message}` };
  }
  const text = new TextDecoder().decode(bytes);
  const lines = text.split("\n");
  const messages: Message[] = [];
  const warnings: string[] = [];
  const encoder = new TextEncoder();
  let validBytes = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const isLast = i === lines.length - 1 || (i === lines.length - 2 && lines.at(-1) === "");
    const lineBytes = encoder.encode(line).length + (i < lines.length - 1 ? 1 : 0);
    if (line.trim() === "") {
      validBytes += lineBytes;
      continue;
    }
    let parsed: unknown;
    let problem: string | undefined;
    try {
      parsed = JSON.parse(line);
      if (!isSessionMessage(parsed) && !isTraceRecord(parsed)) {
        problem = "is not a message (it needs a role and content)";
      }
    } catch (error) {
      problem = `is not valid JSON (${(error as Error).message})`;
    }
    if (problem !== undefined) {
      if (isLast) {
        warnings.push(
          `Skipped the last line of ${path} (line ${
            i + 1
          }): it ${problem}, probably cut off by a crash`,
        );
        break;
      }
      return { kind: "error", message: `Cannot load session ${path}: line ${i + 1} ${problem}` };
    }
    if (!isTraceRecord(parsed)) messages.push(parsed as Message);
    validBytes += lineBytes;
  }
  return { kind: "ok", value: { messages, warnings, validBytes, exists: true } };
}

/**
 * Error results for the tool calls of the last assistant message that never got one
 * (the process died while they ran), so the transcript can be sent to a model again.
 *
 * @param messages The transcript.
 * @returns The results to append (often none).
 *
 * @example A call that was running when the process died
 * ```ts
 * import { interruptedToolResults } from "./session.ts";
 * import { emptyUsage } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const results = interruptedToolResults([{
 *   role: "assistant", stopReason: "toolUse", usage: emptyUsage(), provider: "p", model: "m",
 *   timestamp: 1, content: [{ type: "toolCall", id: "c1", name: "shell", arguments: {} }],
 * }]);
 * equal(results[0].toolCallId, "c1");
 * equal(results[0].isError, true);
 * ```
 */
export function interruptedToolResults(messages: readonly Message[]): ToolResultMessage[] {
  let last = messages.length - 1;
  while (last >= 0 && messages[last].role !== "assistant") last--;
  if (last < 0) return [];
  const answered = new Set<string>();
  for (let i = last + 1; i < messages.length; i++) {
    const message = messages[i];
    if (message.role === "toolResult") answered.add(message.toolCallId);
  }
  const results: ToolResultMessage[] = [];
  const assistant = messages[last];
  if (assistant.role !== "assistant") return results;
  for (const block of assistant.content) {
    if (block.type !== "toolCall" || answered.has(block.id)) continue;
    results.push({
      role: "toolResult",
      toolCallId: block.id,
      toolName: block.name,
      content: [{
        type: "text",
        text: `Tool ${block.name} was interrupted: the session ended before it finished`,
      }],
      isError: true,
      timestamp: Date.now(),
    });
  }
  return results;
}

/** An open session: the transcript so far and a way to append to it. */
export interface Session {
  /** The JSONL file. */
  readonly path: string;
  /** The messages it held when opened (repairs included). */
  readonly messages: readonly Message[];
  /** What was skipped or repaired on open. */
  readonly warnings: readonly string[];
  /** Appends one message or timing record as one line, synchronously (a crash cannot reorder or mix lines). */
  append(line: SessionLine): void;
}

/**
 * Opens a session file for appending, loading what it holds. Cuts off a torn last line
 * and closes tool calls a crash left without results, so new lines follow whole ones.
 *
 * @param path The JSONL file (created, with its folder, at the first append).
 * @returns The session, or an error naming the file and line.
 *
 * @example Appending and reading back
 * ```ts
 * import { openSession } from "./session.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * const opened = await openSession(`${dir}/s.jsonl`);
 * if (opened.kind === "ok") opened.value.append({ role: "user", content: "hi", timestamp: 1 });
 * const again = await openSession(`${dir}/s.jsonl`);
 * equal(again.kind === "ok" && again.value.messages.length, 1);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function openSession(
  path: string,
  root?: string,
): Promise<SessionResult<Session>> {
  // A symlink below the workspace (.tack/sessions -> elsewhere) would have the session read,
  // truncated and appended to there.
  try {
    if (root !== undefined) refuseLinksBelow(root, path);
  } catch (error) {
    return { kind: "error", message: `Cannot open session: ${(error as Error).message}` };
  }
  const loaded = await loadSession(path);
  if (loaded.kind === "error") return loaded;
  const { messages, warnings, validBytes, exists } = loaded.value;
  try {
    if (exists && warnings.length > 0) await Deno.truncate(path, validBytes);
  } catch (error) {
    return { kind: "error", message: `Cannot open session ${path}: ${(error as Error).message}` };
  }
  const encoder = new TextEncoder();
  let created = exists;
  const append = (message: SessionLine) => {
    if (root !== undefined) refuseLinksBelow(root, path); // a link made since, by a tool
    if (!created) {
      makePrivateDir(dirname(path));
      created = true;
    }
    appendPrivateText(path, encoder.encode(JSON.stringify(message) + "\n"));
  };
  const repairs = interruptedToolResults(messages);
  for (const result of repairs) append(result);
  if (repairs.length > 0) {
    warnings.push(
      `Closed ${repairs.length} tool call(s) the last session left running, as error results`,
    );
  }
  return { kind: "ok", value: { path, messages: [...messages, ...repairs], warnings, append } };
}

/**
 * A fresh session file name in `dir`: the time, so names sort oldest first.
 *
 * @param dir The session folder.
 * @param now The time to name it after.
 * @returns The path (not created).
 *
 * @example Naming a new session
 * ```ts
 * import { newSessionPath } from "./session.ts";
 * import { match } from "node:assert/strict";
 *
 * match(newSessionPath(".tack/sessions", new Date(0)), /1970-01-01T00-00-00-000Z-\w+\.jsonl$/);
 * ```
 */
export function newSessionPath(dir: string, now: Date = new Date()): string {
  const stamp = now.toISOString().replaceAll(":", "-").replace(".", "-");
  return join(dir, `${stamp}-${crypto.randomUUID().slice(0, 8)}.jsonl`);
}

/**
 * The most recently written session in `dir` (by modification time).
 *
 * @param dir The session folder.
 * @returns Its path, or `undefined` when there is none.
 *
 * @example An empty folder
 * ```ts
 * import { latestSession } from "./session.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * equal(await latestSession(dir), undefined);
 * await Deno.remove(dir);
 * ```
 */
export async function latestSession(dir: string): Promise<string | undefined> {
  let best: { path: string; mtime: number } | undefined;
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile || !entry.name.endsWith(".jsonl")) continue;
      const path = join(dir, entry.name);
      const mtime = (await Deno.stat(path)).mtime?.getTime() ?? 0;
      if (!best || mtime > best.mtime || (mtime === best.mtime && path > best.path)) {
        best = { path, mtime };
      }
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  return best?.path;
}
