/**
 * The timeline page in a real browser: headless Chromium (Debian's `chromium`), driven over
 * the DevTools Protocol. Skipped, loudly, when no browser is installed, unless
 * TACK_REQUIRE_BROWSER is set (CI installs it and sets it).
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { renderTimelineHtml } from "../../cli/trace_html.ts";
import { buildTimeline } from "../../cli/trace_timeline.ts";
import { browserFor, launchChromium, type Page } from "../support/headless_chromium.ts";
import { HOSTILE, SESSION } from "./trace_fixture.ts";
import type { SessionLine } from "../../cli/trace_record.ts";

const chromium = browserFor("the timeline page's browser tests");

interface Box {
  detail: string;
  classes: string;
  x: number;
  y: number;
  width: number;
  height: number;
  color: string;
}

async function boxes(page: Page): Promise<Box[]> {
  return await page.evaluate<Box[]>(`[...document.querySelectorAll(".bar")].map((bar) => {
    const r = bar.getBoundingClientRect();
    return { detail: bar.dataset.detail, classes: bar.className, x: r.x, y: r.y,
      width: r.width, height: r.height, color: getComputedStyle(bar).backgroundColor };
  })`);
}

async function openPage(dir: string): Promise<string> {
  const path = join(dir, "run.html");
  await Deno.writeTextFile(path, renderTimelineHtml(buildTimeline(SESSION), "run.jsonl"));
  return `file://${path}`;
}

Deno.test({
  name: "page in chromium: turns as rows, parallel calls on separate lanes, a colour per outcome",
  ignore: !chromium,
  async fn() {
    ok(chromium);
    const dir = await Deno.makeTempDir();
    await using browser = await launchChromium(chromium);
    const page = await browser.newPage(1100, 600);
    await page.goto(await openPage(dir));
    const bars = await boxes(page);
    const byKey = new Map(bars.map((b) => [b.detail, b]));
    equal(bars.length, 8); // 3 model calls, 5 tool calls
    // Turn 1: the model call on top, then three overlapping calls on three lanes.
    const [model, read, grep, bash] = ["r0t0", "r0t0c0", "r0t0c1", "r0t0c2"].map((k) =>
      byKey.get(k)!
    );
    ok(model.y < read.y && read.y < grep.y && grep.y < bash.y, "one lane each, top to bottom");
    ok(read.x > model.x + model.width - 1, "tools start after the model answered");
    ok(Math.abs(read.width / grep.width - 490 / 280) < 0.05, "widths follow durations");
    // Turn 2: timed out then aborted, one after the other (the short last one's label
    // goes before it, so it takes the next lane rather than cover the first).
    const [slow, stop] = ["r0t1c0", "r0t1c1"].map((k) => byKey.get(k)!);
    ok(stop.x >= slow.x + slow.width);
    ok(stop.classes.includes("flip"));
    ok(stop.y > slow.y);
    // Rows go down the page in turn order.
    ok(byKey.get("r0t0")!.y < byKey.get("r0t1")!.y && byKey.get("r0t1")!.y < byKey.get("r0t2")!.y);
    deepEqual(
      [read, grep, bash, slow, stop, model].map((b) => b.color),
      [
        "rgb(47, 158, 68)",
        "rgb(224, 49, 49)",
        "rgb(240, 140, 0)",
        "rgb(156, 54, 181)",
        "rgb(134, 142, 150)",
        "rgb(66, 99, 235)",
      ],
    );
    const png = await page.screenshot();
    deepEqual([...png.slice(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
    const view = new DataView(png.buffer);
    deepEqual([view.getUint32(16), view.getUint32(20)], [1100, 600]);
    await Deno.writeFile(join(dir, "timeline.png"), png);
    console.log(`screenshot: ${join(dir, "timeline.png")}`);
  },
});

Deno.test({
  name:
    "page in chromium: a click on a call opens its details; the model's hostile text stays text",
  ignore: !chromium,
  async fn() {
    ok(chromium);
    const dir = await Deno.makeTempDir();
    await using browser = await launchChromium(chromium);
    const page = await browser.newPage(1100, 600);
    await page.goto(await openPage(dir));
    equal(await page.evaluate("document.getElementById('details').hidden"), true);
    const target = (await boxes(page)).find((b) => b.detail === "r0t0c1")!;
    await page.click(target.x + 2, target.y + target.height / 2);
    const shown = await page.evaluate<{ hidden: boolean; title: string; blocks: string[] }>(
      `(() => {
      const panel = document.getElementById("details");
      return { hidden: panel.hidden, title: panel.querySelector("h3").textContent,
        blocks: [...panel.querySelectorAll("pre")].map((pre) => pre.textContent) };
    })()`,
    );
    deepEqual(shown, {
      hidden: false,
      title: "grep (error)",
      blocks: [JSON.stringify({ pattern: HOSTILE }, null, 2), `bad pattern ${HOSTILE}`],
    });
    // The open panel makes room: the clicked bar stays visible beside it.
    const after = (await boxes(page)).find((b) => b.detail === "r0t0c1")!;
    const panelLeft = await page.evaluate<number>(
      "document.getElementById('details').getBoundingClientRect().left",
    );
    ok(
      after.x + after.width <= panelLeft,
      `bar ends at ${after.x + after.width}, panel at ${panelLeft}`,
    );
    equal(await page.evaluate("document.querySelectorAll('img').length"), 0);
    equal(await page.evaluate("typeof window.__pwned"), "undefined");

    const blocked = (await boxes(page)).find((b) => b.detail === "r0t0c2")!;
    await page.click(blocked.x + 1, blocked.y + blocked.height / 2);
    equal(
      await page.evaluate("document.getElementById('details-title').textContent"),
      "bash (blocked by confirm)",
    );
    await Deno.writeFile(join(dir, "details.png"), await page.screenshot());
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name:
    "page in chromium: a session file someone hands you, with markup where numbers and outcomes go, stays text",
  ignore: !chromium,
  async fn() {
    ok(chromium);
    const dir = await Deno.makeTempDir();
    const T = 1_700_000_000_000;
    // A crafted session: its usage is text, its outcome leaves the class attribute.
    // deno-lint-ignore no-explicit-any
    const lines: any[] = [
      { event: "agent_start", at: T },
      { role: "user", content: "hi", timestamp: T },
      { event: "turn_start", at: T },
      { event: "model_end", at: T + 100 },
      {
        role: "assistant",
        content: [{ type: "toolCall", id: "c1", name: "ls", arguments: {} }],
        stopReason: "toolUse",
        usage: { input: HOSTILE, output: 1 },
        provider: "p",
        model: "m",
        timestamp: T + 100,
      },
      { event: "tool_start", at: T + 100, toolCallId: "c1", toolName: "ls" },
      {
        event: "tool_end",
        at: T + 200,
        toolCallId: "c1",
        outcome: 'ok" autofocus onfocus="window.__pwned2=1',
      },
      { event: "turn_end", at: T + 200 },
      { event: "agent_end", at: T + 200 },
    ];
    const path = join(dir, "crafted.html");
    await Deno.writeTextFile(path, renderTimelineHtml(buildTimeline(lines), "crafted.jsonl"));
    await using browser = await launchChromium(chromium);
    const page = await browser.newPage(1100, 600);
    await page.goto(`file://${path}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    equal(await page.evaluate("document.querySelectorAll('img').length"), 0);
    equal(await page.evaluate("typeof window.__pwned"), "undefined");
    equal(await page.evaluate("typeof window.__pwned2"), "undefined");
    equal(
      await page.evaluate(
        "document.querySelector('.summary').textContent.includes('0 in / 1 out')",
      ),
      true,
    );
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name: "page in chromium: a short call's label stays on its row, past the middle of the run too",
  ignore: !chromium,
  async fn() {
    ok(chromium);
    // The aborted call moves to 72% of the run and is blocked by a policy with a long name:
    // its label after the bar ran off the right edge (the label flipped only past 75%).
    const session = SESSION.map((line): SessionLine => {
      if (!("event" in line) || !("toolCallId" in line) || line.toolCallId !== "c5") return line;
      return line.event === "tool_start" ? { ...line, at: line.at - 1820 + 1720 } : {
        ...line,
        at: line.at - 1900 + 1725,
        outcome: "blocked",
        blockedBy: "a-policy-with-a-long-name",
      };
    });
    const dir = await Deno.makeTempDir();
    const path = join(dir, "run.html");
    await Deno.writeTextFile(path, renderTimelineHtml(buildTimeline(session), "run.jsonl"));
    await using browser = await launchChromium(chromium);
    const page = await browser.newPage(1100, 600);
    await page.goto(`file://${path}`);
    const outside = await page.evaluate<string[]>(
      `[...document.querySelectorAll(".bar")].flatMap((bar) => {
      const track = bar.closest(".track").getBoundingClientRect();
      const label = bar.querySelector("span").getBoundingClientRect();
      return label.left < track.left - 0.5 || label.right > track.right + 0.5
        ? [bar.textContent + ": " + Math.round(label.left) + "-" + Math.round(label.right) +
          " outside " + Math.round(track.left) + "-" + Math.round(track.right)]
        : [];
    })`,
    );
    deepEqual(outside, []);
    await Deno.remove(dir, { recursive: true });
  },
});
