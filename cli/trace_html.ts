/**
 * The timeline page: one self-contained HTML file (no server, no network), turns as rows,
 * the model call and tool calls as bars on lanes, details on click. Pure: data in, string out.
 *
 * @module
 */

import { TRACE_CSS, TRACE_JS } from "./trace_page.ts";
import type { Timeline, TimelineCall, TimelineRun, TimelineTurn } from "./trace_timeline.ts";

/** What a click shows: a title, label/value pairs, and long texts. */
interface Detail {
  title: string;
  fields: [string, string][];
  blocks: [string, string][];
}

const LANE = 26;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * A duration for people: `<1 ms`, `12 ms`, `1.4 s`, `2 m 5 s`.
 *
 * @param ms Milliseconds.
 * @returns The text.
 *
 * @example
 * ```ts
 * import { formatDuration } from "./trace_html.ts";
 * import { equal } from "node:assert/strict";
 *
 * equal(formatDuration(1530), "1.5 s");
 * ```
 */
export function formatDuration(ms: number): string {
  if (ms < 1) return "<1 ms";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} m ${Math.round((ms % 60_000) / 1000)} s`;
}

function count(n: number): string {
  // The timeline holds numbers; anything else shows as "?", never as markup.
  return typeof n === "number" && Number.isFinite(n) ? n.toLocaleString("en-US") : "?";
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? "";
}

function outcomeText(call: TimelineCall): string {
  switch (call.outcome) {
    case "blocked":
      return `blocked by ${call.blockedBy ?? "a hook"}`;
    case "timeout":
      return "timed out";
    default:
      return call.outcome;
  }
}

function niceStep(span: number): number {
  const raw = span / 6;
  const power = 10 ** Math.floor(Math.log10(Math.max(raw, 0.001)));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power;
  return 10 * power;
}

function bar(
  run: TimelineRun,
  span: number,
  start: number,
  end: number,
  top: number,
  classes: string,
  label: string,
  key: string,
  title: string,
  labelBefore: boolean,
): string {
  const left = ((start - run.start) / span) * 100;
  const width = Math.max(((end - start) / span) * 100, 0.3);
  // A short bar's label goes beside it: to its right, or its left near the end.
  const narrow = width >= 12 ? "" : labelBefore ? " narrow flip" : " narrow";
  return `<button class="bar ${classes}${narrow}" data-detail="${key}" title="${
    escapeHtml(title)
  }" style="left:${left.toFixed(3)}%;width:${width.toFixed(3)}%;top:${top}px"><span>${
    escapeHtml(label)
  }</span></button>`;
}

function renderTurn(
  run: TimelineRun,
  span: number,
  turn: TimelineTurn,
  key: string,
  details: Record<string, Detail>,
): string {
  const failed = turn.stopReason === "error" || turn.stopReason === "aborted";
  const modelMs = turn.modelEnd - turn.start;
  details[key] = {
    title: `Turn ${turn.index}: ${turn.model || "model"}`,
    fields: [
      ["duration", formatDuration(modelMs)],
      ["stop reason", turn.stopReason],
      ["tokens in", count(turn.usage.input)],
      ["tokens out", count(turn.usage.output)],
      ["tool calls", String(turn.calls.length)],
      ...(turn.errorMessage ? [["error", turn.errorMessage] as [string, string]] : []),
    ],
    blocks: [["The model's text", turn.text || "(no text)"]],
  };
  const bars = [
    bar(
      run,
      span,
      turn.start,
      turn.modelEnd,
      0,
      `model${failed ? " failed" : ""}`,
      `${turn.model || "model"} ${formatDuration(modelMs)}`,
      key,
      `${turn.model} · ${
        formatDuration(modelMs)
      } · ${turn.usage.input} in / ${turn.usage.output} out`,
      (turn.start - run.start) / span > 0.75,
    ),
  ];
  turn.calls.forEach((call, i) => {
    const callKey = `${key}c${i}`;
    const ms = call.end - call.start;
    const blocks: [string, string][] = [["Arguments", json(call.args)]];
    if (call.ranWith) blocks.push(["Ran with (rewritten)", json(call.ranWith)]);
    blocks.push(["Result", call.result]);
    details[callKey] = {
      title: `${call.name} (${outcomeText(call)})`,
      fields: [
        ["call id", call.id],
        ["outcome", outcomeText(call)],
        ["duration", formatDuration(ms)],
        ...(call.rewrittenBy
          ? [["rewritten by", call.rewrittenBy.join(", ")] as [string, string]]
          : []),
      ],
      blocks,
    };
    const by = call.outcome === "blocked" ? ` · blocked by ${call.blockedBy ?? "a hook"}` : "";
    bars.push(bar(
      run,
      span,
      call.start,
      call.end,
      LANE * (call.lane + 1),
      `call ${escapeHtml(call.outcome)}`,
      `${call.name}${by} ${formatDuration(ms)}`,
      callKey,
      `${call.name} · ${outcomeText(call)} · ${formatDuration(ms)}`,
      call.labelBefore === true,
    ));
  });
  const height = LANE * (turn.lanes + 1) - 6;
  const usage = `${count(turn.usage.input)} in · ${count(turn.usage.output)} out`;
  return `<div class="row turn" data-turn="${turn.index}"><div class="label"><b>Turn ${turn.index}</b>` +
    `<small>${formatDuration(turn.end - turn.start)} · ${turn.calls.length} call${
      turn.calls.length === 1 ? "" : "s"
    }</small><small>${usage} tokens</small></div>` +
    `<div class="track" style="height:${height}px">${bars.join("")}</div></div>`;
}

function renderRun(run: TimelineRun, r: number, details: Record<string, Detail>): string {
  const span = Math.max(run.end - run.start, 1);
  const step = niceStep(span);
  const ticks: string[] = [];
  // At most a dozen (niceStep keeps a span to 6–12 steps); none for a span no clock gives.
  for (let t = 0; Number.isFinite(span) && t <= span && ticks.length < 13; t += step) {
    ticks.push(
      `<span class="tick" style="left:${((t / span) * 100).toFixed(3)}%">${
        formatDuration(t).replace("<1 ms", "0")
      }</span>`,
    );
  }
  const turns = run.turns.map((turn, t) => renderTurn(run, span, turn, `r${r}t${t}`, details));
  return `<section class="run"><h2>${
    escapeHtml(run.prompt ? `“${run.prompt}”` : "(no prompt)")
  } · ${
    formatDuration(run.end - run.start)
  }</h2><div class="row axis"><div class="label"></div><div class="track">${
    ticks.join("")
  }</div></div>${turns.join("")}</section>`;
}

/**
 * Renders a timeline as one self-contained HTML page. Every text from the session is
 * escaped; the details are embedded as JSON and shown with `textContent`.
 *
 * @param timeline The timeline.
 * @param title The page's title (e.g. the session's file name).
 * @returns The HTML.
 *
 * @example An empty session
 * ```ts
 * import { renderTimelineHtml } from "./trace_html.ts";
 * import { match } from "node:assert/strict";
 *
 * match(renderTimelineHtml({ runs: [], approximate: false }, "s.jsonl"), /<title>s\.jsonl · tack trace<\/title>/);
 * ```
 */
export function renderTimelineHtml(timeline: Timeline, title: string): string {
  const details: Record<string, Detail> = {};
  const runs = timeline.runs.map((run, r) => renderRun(run, r, details));
  let turns = 0, calls = 0, input = 0, output = 0, ms = 0;
  for (const run of timeline.runs) {
    ms += run.end - run.start;
    for (const turn of run.turns) {
      turns++;
      calls += turn.calls.length;
      input += turn.usage.input;
      output += turn.usage.output;
    }
  }
  const summary =
    `${timeline.runs.length} run${
      timeline.runs.length === 1 ? "" : "s"
    } · ${turns} turns · ${calls} tool calls · ` +
    `${count(input)} in / ${count(output)} out tokens · ${formatDuration(ms)}`;
  const legend = [
    ["model", "model call"],
    ["ok", "ok"],
    ["error", "error"],
    ["blocked", "blocked"],
    ["timeout", "timed out"],
    ["aborted", "aborted"],
  ].map(([c, t]) => `<span class="${c}">${t}</span>`).join("");
  const note = timeline.approximate
    ? `<div class="note">This session has no timing lines: times come from message timestamps and are approximate.</div>`
    : "";
  const data = JSON.stringify(details).replace(/</g, "\\u003c");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · tack trace</title>
<style>${TRACE_CSS}</style></head>
<body><header><h1>${escapeHtml(title)}</h1><div class="summary">${summary}</div>
<div class="legend">${legend}</div>${note}</header>
<main>${runs.join("\n") || "<p>No runs in this session.</p>"}</main>
<aside id="details" hidden></aside>
<script type="application/json" id="tack-data">${data}</script>
<script>${TRACE_JS}</script>
</body></html>
`;
}
