/**
 * A session's lines (messages and timing records) as a timeline: runs, their turns, each
 * turn's model call and tool calls on lanes. Pure: data in, data out.
 *
 * @module
 */

import type { AssistantMessage, Message, ToolResultMessage, Usage } from "../core/messages.ts";
import type { ToolOutcome } from "../sdk/telemetry/tool_outcome.ts";
import type { SessionLine, TraceRecord } from "./trace_record.ts";

/** One tool call on the timeline. */
export interface TimelineCall {
  /** The call's id. */
  id: string;
  /** The tool. */
  name: string;
  /** Start and end, epoch ms. */
  start: number;
  end: number;
  /** The lane it is drawn on (0 is the first lane below the model's). */
  lane: number;
  /** How it ended. */
  outcome: ToolOutcome;
  /** Who blocked it. */
  blockedBy?: string;
  /** Who rewrote its arguments. */
  rewrittenBy?: readonly string[];
  /** The arguments the model sent. */
  args: Record<string, unknown>;
  /** The arguments it ran with, when a hook rewrote them. */
  ranWith?: Record<string, unknown>;
  /** The result's text. */
  result: string;
  /** Its label goes before the bar (a short bar near the end of the run). */
  labelBefore?: boolean;
}

/** One turn: a model call and the tool calls it asked for. */
export interface TimelineTurn {
  /** 1-based, within its run. */
  index: number;
  /** Start (the model call's start) and end, epoch ms. */
  start: number;
  end: number;
  /** When the model's answer was complete. */
  modelEnd: number;
  /** The model's text (and thinking, marked), as one string. */
  text: string;
  /** The model id. */
  model: string;
  /** Why the model stopped; `errorMessage` when it failed. */
  stopReason: string;
  errorMessage?: string;
  /** Tokens in and out. */
  usage: { input: number; output: number };
  /** The tool calls, with lanes. */
  calls: TimelineCall[];
  /** How many lanes the calls use. */
  lanes: number;
}

/** One run: a prompt and its turns. */
export interface TimelineRun {
  /** The prompt's text. */
  prompt: string;
  start: number;
  end: number;
  turns: TimelineTurn[];
}

/** A whole timeline. */
export interface Timeline {
  runs: TimelineRun[];
  /** True when the session had no timing lines: times come from message timestamps. */
  approximate: boolean;
}

function textOfUser(message: Message): string {
  if (message.role !== "user") return "";
  if (typeof message.content === "string") return message.content;
  return message.content.map((part) => part.type === "text" ? part.text : "[image]").join("");
}

function resultText(message: ToolResultMessage): string {
  return message.content.map((part) => part.type === "text" ? part.text : "[image]").join("\n");
}

function assistantText(message: AssistantMessage): string {
  const parts: string[] = [];
  for (const block of message.content) {
    if (block.type === "text") parts.push(block.text);
    else if (block.type === "thinking") parts.push(`(thinking) ${block.thinking}`);
  }
  return parts.join("\n");
}

/** A count from a session file (which anyone may hand you): a number, else 0. */
function countOf(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

function tokens(usage: Usage | undefined): { input: number; output: number } {
  return { input: countOf(usage?.input), output: countOf(usage?.output) };
}

const OUTCOMES: ReadonlySet<string> = new Set(["ok", "error", "blocked", "timeout", "aborted"]);

/** What a turn's model call answered, from its assistant message. */
function describeModelCall(turn: TimelineTurn, message: AssistantMessage): void {
  turn.text = assistantText(message);
  turn.model = message.model;
  turn.stopReason = message.stopReason;
  if (message.errorMessage) turn.errorMessage = message.errorMessage;
  turn.usage = tokens(message.usage);
}

/**
 * Puts calls on lanes: each on the first lane free at its start. A short bar's label
 * takes `gap` beside it: after it, or before it near the end of the run.
 */
function assignLanes(calls: TimelineCall[], run: TimelineRun, gap: number): number {
  const lanes: number[] = [];
  const order = [...calls].sort((a, b) => a.start - b.start);
  // Past the middle, a label after its bar may run off the page ("bash · blocked by confirm
  // 5 ms" is a quarter of a track): it goes before, where the track's first half has room.
  const late = run.start + (run.end - run.start) * 0.5;
  for (const call of order) {
    if (call.end - call.start < gap && call.start > late) call.labelBefore = true;
    const from = call.labelBefore ? call.start - gap : call.start;
    let lane = lanes.findIndex((free) => free <= from);
    if (lane === -1) lane = lanes.length;
    lanes[lane] = call.labelBefore ? call.end : Math.max(call.end, call.start + gap);
    call.lane = lane;
  }
  return lanes.length;
}

function newTurn(index: number, start: number): TimelineTurn {
  return {
    index,
    start,
    end: start,
    modelEnd: start,
    text: "",
    model: "",
    stopReason: "",
    usage: { input: 0, output: 0 },
    calls: [],
    lanes: 0,
  };
}

/** Builds from timing records (sessions written by this version). */
function fromRecords(lines: readonly SessionLine[]): TimelineRun[] {
  const runs: TimelineRun[] = [];
  let run: TimelineRun | undefined;
  let turn: TimelineTurn | undefined;
  const calls = new Map<string, TimelineCall>();
  const argsById = new Map<string, Record<string, unknown>>();
  const ensureRun = (at: number) => {
    if (!run) runs.push(run = { prompt: "", start: at, end: at, turns: [] });
    return run;
  };
  for (const line of lines) {
    if ("role" in line) {
      if (line.role === "user" && run && !run.prompt) run.prompt = textOfUser(line);
      else if (line.role === "assistant" && turn) {
        describeModelCall(turn, line);
        for (const block of line.content) {
          if (block.type === "toolCall") argsById.set(block.id, block.arguments);
        }
      } else if (line.role === "toolResult") {
        const call = calls.get(line.toolCallId);
        if (call) call.result = resultText(line);
      }
      continue;
    }
    const record: TraceRecord = line;
    switch (record.event) {
      case "agent_start":
        run = undefined;
        ensureRun(record.at);
        break;
      case "turn_start": {
        const r = ensureRun(record.at);
        turn = newTurn(r.turns.length + 1, record.at);
        r.turns.push(turn);
        break;
      }
      case "model_end":
        if (turn) turn.modelEnd = turn.end = record.at;
        break;
      case "tool_start": {
        if (!turn) break;
        const call: TimelineCall = {
          id: record.toolCallId,
          name: record.toolName,
          start: record.at,
          end: record.at,
          lane: 0,
          outcome: "aborted",
          args: argsById.get(record.toolCallId) ?? {},
          result: "(no result: the session ended while it ran)",
        };
        calls.set(call.id, call);
        turn.calls.push(call);
        break;
      }
      case "tool_end": {
        const call = calls.get(record.toolCallId);
        if (!call) break;
        call.end = record.at;
        call.outcome = OUTCOMES.has(record.outcome) ? record.outcome : "error";
        // A session file is anyone's text: only the shapes the recorder writes are kept.
        if (typeof record.blockedBy === "string") call.blockedBy = record.blockedBy;
        if (
          Array.isArray(record.rewrittenBy) &&
          record.rewrittenBy.every((name: unknown) => typeof name === "string")
        ) call.rewrittenBy = record.rewrittenBy;
        if (record.args) call.ranWith = record.args;
        break;
      }
      case "turn_end":
        if (turn) turn.end = Math.max(turn.end, record.at);
        turn = undefined;
        break;
      case "agent_end":
        if (run) run.end = record.at;
        run = undefined;
        break;
    }
    if (run) run.end = Math.max(run.end, record.at);
  }
  return runs;
}

/** Builds from message timestamps alone (older sessions): durations are approximate. */
function fromMessages(lines: readonly SessionLine[]): TimelineRun[] {
  const runs: TimelineRun[] = [];
  let run: TimelineRun | undefined;
  let turn: TimelineTurn | undefined;
  let last = 0;
  for (const line of lines) {
    if (!("role" in line)) continue;
    if (line.role === "user") {
      runs.push(
        run = { prompt: textOfUser(line), start: line.timestamp, end: line.timestamp, turns: [] },
      );
      turn = undefined;
    } else if (line.role === "assistant" && run) {
      turn = newTurn(run.turns.length + 1, last || line.timestamp);
      turn.modelEnd = turn.end = Math.max(turn.start, line.timestamp);
      describeModelCall(turn, line);
      for (const block of line.content) {
        if (block.type !== "toolCall") continue;
        turn.calls.push({
          id: block.id,
          name: block.name,
          start: turn.modelEnd,
          end: turn.modelEnd,
          lane: 0,
          outcome: "aborted",
          args: block.arguments,
          result: "(no result)",
        });
      }
      run.turns.push(turn);
    } else if (line.role === "toolResult" && turn) {
      const call = turn.calls.find((c) => c.id === line.toolCallId);
      if (call) {
        call.end = Math.max(call.start, line.timestamp);
        call.result = resultText(line);
        call.outcome = line.isError
          ? (/ was blocked\b/.test(call.result) ? "blocked" : "error")
          : "ok";
        turn.end = Math.max(turn.end, call.end);
      }
    }
    last = line.timestamp;
    if (run) run.end = Math.max(run.end, line.timestamp);
  }
  return runs;
}

/**
 * Builds the timeline of a session's lines, in file order. Uses the timing records when
 * there are any, else the messages' timestamps (and says so).
 *
 * @param lines The session's messages and timing records.
 * @returns The runs, turns and calls, with lanes assigned.
 *
 * @example One turn, no tools
 * ```ts
 * import { buildTimeline } from "./trace_timeline.ts";
 * import { emptyUsage } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const timeline = buildTimeline([
 *   { event: "agent_start", at: 0 }, { event: "turn_start", at: 0 },
 *   { role: "user", content: "hi", timestamp: 0 },
 *   { event: "model_end", at: 40 },
 *   { role: "assistant", content: [{ type: "text", text: "hello" }], stopReason: "stop",
 *     usage: emptyUsage(), provider: "p", model: "m", timestamp: 0 },
 *   { event: "turn_end", at: 41 }, { event: "agent_end", at: 41 },
 * ]);
 * equal(timeline.runs[0].prompt, "hi");
 * equal(timeline.runs[0].turns[0].modelEnd, 40);
 * ```
 */
export function buildTimeline(lines: readonly SessionLine[]): Timeline {
  const approximate = !lines.some((line) => !("role" in line));
  const runs = approximate ? fromMessages(lines) : fromRecords(lines);
  for (const run of runs) {
    const gap = (run.end - run.start) * 0.12;
    for (const turn of run.turns) turn.lanes = assignLanes(turn.calls, run, gap);
  }
  return { runs, approximate };
}
