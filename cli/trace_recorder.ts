/**
 * Keeps a run's session lines in memory and writes its timeline page: `--trace run.html`
 * (and any program with an agent: the coding agent example uses it).
 *
 * @module
 */

import type { AgentEvent } from "../core/agent_event.ts";
import { renderTimelineHtml } from "./trace_html.ts";
import { type SessionLine, sessionLinesOf } from "./trace_record.ts";
import { buildTimeline } from "./trace_timeline.ts";
import { writePrivateText } from "../sdk/private_files.ts";

/** What {@linkcode recordTimeline} returns. */
export interface TimelineRecorder {
  /** The lines so far: messages and timing records, in order. */
  readonly lines: readonly SessionLine[];
  /** The page of what was recorded so far. */
  html(title: string): string;
  /** Writes the page to `path`. */
  write(path: string, title?: string): Promise<void>;
}

/**
 * Records an agent's events as session lines, from now on.
 *
 * @param agent Anything with `subscribe` (an `Agent`).
 * @returns The recorder.
 *
 * @example Recording a scripted run
 * ```ts
 * import { recordTimeline } from "./trace_recorder.ts";
 * import { createAgent, scriptedModel, text } from "@tack/agent";
 * import { match } from "node:assert/strict";
 *
 * const agent = createAgent({ model: scriptedModel([[text("hi")]]) });
 * const recorder = recordTimeline(agent);
 * await agent.prompt("hello");
 * match(recorder.html("demo"), /Turn 1/);
 * ```
 */
export function recordTimeline(
  agent: { subscribe(listener: (event: AgentEvent) => void): () => void },
): TimelineRecorder {
  const lines: SessionLine[] = [];
  agent.subscribe((event) => {
    for (const line of sessionLinesOf(event)) lines.push(line);
  });
  const html = (title: string) => renderTimelineHtml(buildTimeline(lines), title);
  return {
    lines,
    html,
    // Owner-only, as the session: the page holds what the tools read.
    write: (path, title = "tack run") =>
      Promise.resolve().then(() => writePrivateText(path, html(title))),
  };
}
