/**
 * What the person approving a tool call sees: the whole command (wrapped, the parts no
 * rule approves highlighted), a diff for writes and edits, the tool's effects and which
 * plugin asks. Nothing is cut: what does not fit the screen is saved to a file the
 * question names.
 *
 * @module
 */

import { structuredPatch } from "diff";
import type { ConfirmRequest } from "../plugins/confirm/mod.ts";
import { visible, visibleLine } from "../plugins/confirm/visible_text.ts";
import { columnsOf, columnsOfText } from "./screen_columns.ts";

/** How the approval is laid out. */
export interface ApprovalLayout {
  /** Columns to wrap at. */
  width: number;
  /** Lines the body may take before it is saved to a file instead (the rest is shown). */
  maxLines: number;
  /** Whether to use ANSI colours. */
  color: boolean;
  /** The tool's declared effects. */
  effects?: readonly string[];
  /** The file's current text, for a diff of a `write` (absent: a new file). */
  oldText?: string;
}

/** The approval, split into what is shown and (when too long) the whole text to save. */
export interface ApprovalText {
  /** The lines to print above the choices. */
  lines: string[];
  /** The whole body without colours, when it was too long to show (save it, name the file). */
  overflow?: string;
}

const BOLD = "\x1b[1m";
const RESET = "\x1b[0m";
const FLAG = "\x1b[1;31m";
const ADD = "\x1b[32m";
const DEL = "\x1b[31m";
const DIM = "\x1b[2m";

/**
 * Wraps one text to `width` columns (a wide character takes two, a tab eight), after a space where there
 * is one (the space stays at the end of its line, so joining the lines gives the text back),
 * keeping a per-character mark.
 */
function wrap(
  text: string,
  width: number,
  marks?: boolean[],
): { text: string; marks: boolean[] }[] {
  const out: { text: string; marks: boolean[] }[] = [];
  let start = 0;
  for (const line of text.split("\n")) {
    const chars = [...line];
    if (chars.length === 0) out.push({ text: "", marks: [] });
    for (let i = 0; i < chars.length;) {
      let end = i;
      let used = 0;
      while (end < chars.length && (end === i || used + columnsOf(chars[end]) <= width)) {
        used += columnsOf(chars[end]);
        end++;
      }
      if (end < chars.length) {
        const space = chars.lastIndexOf(" ", end - 1);
        if (space > i + (end - i) / 2) end = space + 1;
      }
      const piece = chars.slice(i, end);
      out.push({
        text: piece.join(""),
        marks: piece.map((_, j) => marks?.[start + i + j] ?? false),
      });
      i = end;
    }
    start += chars.length + 1;
  }
  return out;
}

function paint(line: { text: string; marks: boolean[] }, color: boolean): string {
  if (!color || !line.marks.includes(true)) return line.text;
  let out = "";
  let on = false;
  [...line.text].forEach((char, i) => {
    if (line.marks[i] !== on) {
      on = line.marks[i];
      out += on ? FLAG : RESET;
    }
    out += char;
  });
  return on ? out + RESET : out;
}

function markFlagged(command: string, flagged: readonly string[]): boolean[] {
  const chars = [...command];
  const marks = chars.map(() => false);
  const text = chars.join("");
  for (const part of flagged) {
    if (part === "") continue;
    for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + 1)) {
      const from = [...text.slice(0, at)].length;
      for (let i = 0; i < [...part].length; i++) marks[from + i] = true;
    }
  }
  return marks;
}

function diffLines(oldText: string, newText: string): string[] {
  const patch = structuredPatch("old", "new", oldText, newText, "", "", { context: 3 });
  const lines: string[] = [];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    lines.push(...hunk.lines.filter((line) => !line.startsWith("\\")));
  }
  return lines;
}

function colorDiff(line: string, color: boolean): string {
  if (!color) return line;
  if (line.startsWith("+")) return ADD + line + RESET;
  if (line.startsWith("-")) return DEL + line + RESET;
  if (line.startsWith("@@")) return DIM + line + RESET;
  return line;
}

function valueText(value: unknown): string {
  return visible(
    typeof value === "string" ? value : JSON.stringify(value, null, 2) ?? String(value),
  );
}

/**
 * Lays out an approval request.
 *
 * @param request What confirm asks about.
 * @param layout Width, height budget, colours, effects and a write's old text.
 * @returns The lines to show, and the whole text when it did not fit.
 *
 * @example A chained command: every part shown, the unapproved ones listed
 * ```ts
 * import { approvalText } from "./approval_text.ts";
 * import { deepEqual } from "node:assert/strict";
 *
 * const { lines } = approvalText(
 *   { toolName: "bash", args: { command: "echo hi && rm -rf ./data" }, reason: "bash has effect exec",
 *     toolCallId: "c1", flagged: ["echo hi", "rm -rf ./data"], always: "exactly this bash command", plugin: "confirm" },
 *   { width: 20, maxLines: 40, color: false, effects: ["exec"] },
 * );
 * deepEqual(lines, [
 *   "confirm asks: run bash? (bash has effect exec)",
 *   "effects: exec",
 *   "command:",
 *   "  echo hi && rm -rf ",
 *   "  ./data",
 *   "parts no rule approves:",
 *   "  ! echo hi",
 *   "  ! rm -rf ./data",
 *   '"always" covers: exactly this bash command',
 * ]);
 * ```
 */
export function approvalText(request: ConfirmRequest, layout: ApprovalLayout): ApprovalText {
  const { color } = layout;
  const width = Math.max(20, layout.width - 2);
  const head = visible(
    `${request.plugin ?? "a policy"} asks: run ${request.toolName}?${
      request.reason ? ` (${request.reason})` : ""
    }`,
  );
  const lines = [color ? BOLD + head + RESET : head];
  const plainHead = [head];
  if (layout.effects && layout.effects.length > 0) {
    lines.push(`effects: ${layout.effects.join(", ")}`);
    plainHead.push(`effects: ${layout.effects.join(", ")}`);
  }
  const body: string[] = [];
  const plain: string[] = [];
  const push = (shown: string, text = shown) => {
    body.push(shown);
    plain.push(text);
  };
  const args = request.args;
  const flagged = (request.flagged ?? []).map(visible);
  const entries = Object.entries(args);
  for (const [name, value] of entries) {
    if (request.toolName === "write" && name === "content" && typeof value === "string") {
      push(layout.oldText === undefined ? "content (a new file):" : "diff (old → new):");
      const diff = diffLines(visible(layout.oldText ?? ""), visible(value));
      for (const line of diff) {
        for (const piece of wrap(line, width)) {
          push(`  ${colorDiff(piece.text, color)}`, `  ${piece.text}`);
        }
      }
      if (diff.length === 0) push("  (the content is the same as the file's)");
      continue;
    }
    if (request.toolName === "edit" && (name === "oldText" || name === "newText")) {
      if (name === "newText") continue;
      push("diff (old → new):");
      const diff = [
        ...visible(String(value)).split("\n").map((l) => `-${l}`),
        ...visible(String(args.newText ?? "")).split("\n").map((l) => `+${l}`),
      ];
      for (const line of diff) {
        for (const piece of wrap(line, width)) {
          push(`  ${colorDiff(piece.text, color)}`, `  ${piece.text}`);
        }
      }
      continue;
    }
    const text = valueText(value);
    const marks = name === "command" ? markFlagged(text, flagged) : undefined;
    const wrapped = wrap(text, width, marks);
    // A name is the model's too (schemas take extra properties): escapes in one erased the
    // lines above and drew another question.
    const shown = visibleLine(name);
    if (
      wrapped.length === 1 && columnsOfText(`${shown}: ${text}`) <= width &&
      !marks?.includes(true)
    ) {
      push(`${shown}: ${text}`);
      continue;
    }
    push(`${shown}:`);
    for (const piece of wrapped) push(`  ${paint(piece, color)}`, `  ${piece.text}`);
  }
  // The parts no rule approves share the budget with the body: listed one a line, sixty
  // harmless parts after the one that matters pushed it (and the head) off the screen.
  const listFlagged = flagged.length > 1 ||
    (flagged.length === 1 && body.length > layout.maxLines);
  const flagPieces = listFlagged
    ? flagged.flatMap((part) => wrap(`! ${part}`, width - 2).map((piece) => piece.text))
    : [];
  const flagShown = Math.min(flagPieces.length, Math.max(4, Math.floor(layout.maxLines / 2)));
  const bodyBudget = layout.maxLines - flagShown;
  let overflow: string | undefined;
  if (body.length > bodyBudget || flagPieces.length > flagShown) {
    const flaggedPlain = listFlagged
      ? ["parts no rule approves:", ...flagPieces.map((piece) => `  ${piece}`)]
      : [];
    overflow = [...plainHead, ...plain, ...flaggedPlain].join("\n") + "\n";
  }
  lines.push(...body.slice(0, bodyBudget));
  if (body.length > bodyBudget) lines.push(`… ${body.length - bodyBudget} more lines`);
  if (listFlagged) {
    lines.push("parts no rule approves:");
    for (const piece of flagPieces.slice(0, flagShown)) {
      lines.push(`  ${color ? FLAG + piece + RESET : piece}`);
    }
    if (flagPieces.length > flagShown) {
      lines.push(`  … ${flagPieces.length - flagShown} more lines of parts`);
    }
  }
  if (request.always) lines.push(`"always" covers: ${visible(request.always)}`);
  return { lines, overflow };
}
