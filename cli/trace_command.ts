/**
 * `tack trace <session.jsonl>`: the session's timeline page, written next to it (or to
 * `--trace <file>`).
 *
 * @module
 */

import { basename } from "node:path";
import { renderTimelineHtml } from "./trace_html.ts";
import { isTraceRecord, type SessionLine } from "./trace_record.ts";
import { buildTimeline } from "./trace_timeline.ts";
import { writePrivateText } from "../sdk/private_files.ts";
import { isSessionMessage } from "./session.ts";

/** Where the command prints. */
export interface TraceCommandIo {
  /** Standard output. */
  out(text: string): void;
  /** Standard error. */
  err(text: string): void;
}

function isLine(value: unknown): value is SessionLine {
  return isTraceRecord(value) || isSessionMessage(value);
}

/**
 * Parses a session file's text into lines. A torn last line is skipped; any other bad line
 * is an error naming it.
 *
 * @param text The file's text.
 * @param path The file, for messages.
 * @returns The lines, or an error message.
 *
 * @example A bad line in the middle
 * ```ts
 * import { parseSessionLines } from "./trace_command.ts";
 * import { equal } from "node:assert/strict";
 *
 * const parsed = parseSessionLines('{"event":"turn_start","at":1}\nnope\n{"event":"turn_end","at":2}\n', "s.jsonl");
 * equal(parsed.kind === "error" && parsed.message, "Cannot trace s.jsonl: line 2 is not valid JSON");
 * ```
 */
export function parseSessionLines(
  text: string,
  path: string,
): { kind: "ok"; lines: SessionLine[] } | { kind: "error"; message: string } {
  const raw = text.split("\n");
  while (raw.length > 0 && raw.at(-1)!.trim() === "") raw.pop();
  const lines: SessionLine[] = [];
  for (let i = 0; i < raw.length; i++) {
    if (raw[i].trim() === "") continue;
    let value: unknown;
    let problem: string | undefined;
    try {
      value = JSON.parse(raw[i]);
      if (!isLine(value)) problem = "is neither a message nor a timing record";
    } catch {
      problem = "is not valid JSON";
    }
    if (problem === undefined) lines.push(value as SessionLine);
    else if (i < raw.length - 1) {
      return { kind: "error", message: `Cannot trace ${path}: line ${i + 1} ${problem}` };
    }
  }
  return { kind: "ok", lines };
}

/**
 * Writes the timeline page of a session file.
 *
 * @param sessionPath The session (JSONL).
 * @param outPath Where to write (default: the session's path with `.html`).
 * @param io Where to print.
 * @returns The exit code: 0 written, 2 the session could not be read.
 *
 * @example A missing session
 * ```ts
 * import { traceCommand } from "./trace_command.ts";
 * import { equal } from "node:assert/strict";
 *
 * let said = "";
 * equal(await traceCommand("/no/such.jsonl", undefined, { out() {}, err: (t) => said += t }), 2);
 * equal(said, "Cannot trace /no/such.jsonl: the file does not exist\n");
 * ```
 */
export async function traceCommand(
  sessionPath: string,
  outPath: string | undefined,
  io: TraceCommandIo,
): Promise<number> {
  let text: string;
  try {
    text = await Deno.readTextFile(sessionPath);
  } catch (error) {
    const why = error instanceof Deno.errors.NotFound
      ? "the file does not exist"
      : (error as Error).message;
    io.err(`Cannot trace ${sessionPath}: ${why}\n`);
    return 2;
  }
  const parsed = parseSessionLines(text, sessionPath);
  if (parsed.kind === "error") {
    io.err(parsed.message + "\n");
    return 2;
  }
  const timeline = buildTimeline(parsed.lines);
  const target = outPath ?? sessionPath.replace(/\.jsonl$/, "") + ".html";
  try {
    // Owner-only, as the session it shows: it holds what the tools read.
    writePrivateText(target, renderTimelineHtml(timeline, basename(sessionPath)));
  } catch (error) {
    io.err(`Cannot write ${target}: ${(error as Error).message}\n`);
    return 2;
  }
  const turns = timeline.runs.reduce((n, run) => n + run.turns.length, 0);
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  io.out(`Wrote ${target} (${count(timeline.runs.length, "run")}, ${count(turns, "turn")})\n`);
  return 0;
}
