/**
 * Renders comparison rows as a Markdown table, and `RESULTS.md` around it.
 *
 * @module
 */

import { advantage, type CompareCell, type CompareRow } from "./compare_row.ts";
import type { Machine } from "./machine.ts";

function format(value: number): string {
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

function cellText(
  row: CompareRow,
  cell: CompareCell | undefined,
  kind: "tack" | "other" | "floor",
): string {
  if (!cell) return "";
  if (cell.value === undefined) return cell.note ? `— (${cell.note})` : "—";
  let text = format(cell.value);
  if (cell.min !== undefined && cell.max !== undefined) {
    text += ` [${format(cell.min)}–${format(cell.max)}]`;
  }
  if (kind === "other") {
    const ratio = advantage(row, cell.value);
    if (ratio !== undefined) text += ` (${format(ratio)}×)`;
  } else if (kind === "floor" && row.tack.value !== undefined && cell.value > 0) {
    text += ` (Tack at ${format(row.tack.value / cell.value)}×)`;
  }
  return text;
}

function leads(row: CompareRow): string {
  const tack = row.tack.value;
  if (tack === undefined) return "—";
  const others = Object.values(row.others).map((c) => c.value).filter((v) => v !== undefined);
  if (others.length === 0) return "—";
  const ratios = others.map((v) => advantage(row, v)!);
  if (ratios.every((r) => r >= 1.05)) return "yes";
  if (ratios.every((r) => r >= 0.95)) return "tie (±5%)";
  return "**no**";
}

/**
 * The rows as one Markdown table: a column per contender, ratios to Tack in parentheses
 * (above 1× means Tack is ahead), then the notes.
 *
 * @param rows The measured rows.
 * @returns Markdown.
 */
export function renderTable(rows: readonly CompareRow[]): string {
  const columns: string[] = [];
  for (const row of rows) {
    for (const name of Object.keys(row.others)) if (!columns.includes(name)) columns.push(name);
  }
  const hasFloor = rows.some((row) => row.floor !== undefined);
  const header = [
    "#",
    "Measure",
    "Unit",
    "Tack",
    ...columns,
    ...(hasFloor ? ["Floor"] : []),
    "Tack leads",
  ];
  const lines = [
    `| ${header.join(" | ")} |`,
    `|${header.map((_, i) => (i >= 3 && i < header.length - 1 ? "---:" : "---")).join("|")}|`,
  ];
  rows.forEach((row, index) => {
    const cells = [
      String(index + 1),
      row.measure,
      row.unit,
      cellText(row, row.tack, "tack"),
      ...columns.map((name) => cellText(row, row.others[name], "other")),
      ...(hasFloor ? [cellText(row, row.floor, "floor")] : []),
      leads(row),
    ];
    lines.push(`| ${cells.map((c) => c.replaceAll("|", "\\|")).join(" | ")} |`);
  });
  const notes = rows.map((row, index) => {
    const cellNotes = Object.entries(row.others)
      .filter(([, cell]) => cell.value !== undefined && cell.note)
      .map(([name, cell]) => `${name}: ${cell.note}`);
    const all = [row.note, ...cellNotes].filter(Boolean).join("; ");
    return all ? `${index + 1}. ${all}` : "";
  }).filter(Boolean);
  return [
    ...lines,
    "",
    "Values are medians, [min–max] of the measured runs where there were several. Ratios in " +
    "parentheses: how many times Tack's cost (or, for throughput, Tack's rate ÷ theirs); above " +
    "1× means Tack is ahead. The floor of a loop or agent row is a minimal loop doing the " +
    "same observable work (bench/floor.ts); a sandbox row names its floor in its note. " +
    '"Tack at N×" is Tack\'s cost over the floor.',
    "",
    ...notes,
  ].join("\n");
}

/**
 * The whole `bench/RESULTS.md`: the machine, the command, the table.
 *
 * @param machine What it ran on.
 * @param rows The measured rows.
 * @param loadAfter The 1-minute load average at the end of the run.
 * @param args The flags `compare.ts` ran with.
 * @returns Markdown.
 */
export function renderResults(
  machine: Machine,
  rows: readonly CompareRow[],
  loadAfter: number,
  args: readonly string[] = ["--write"],
): string {
  return [
    "# Benchmark results",
    "",
    `Measured ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC with ` +
    `\`deno run -A --v8-flags=--expose-gc bench/compare.ts ${args.join(" ")}\`. ` +
    "How to read it: [docs/bench.md](../docs/bench.md).",
    "",
    "| Machine | |",
    "|---|---|",
    `| CPU | ${machine.cpu} |`,
    `| Cores (nproc) | ${machine.cores} |`,
    `| Memory | ${machine.memoryGiB} GiB |`,
    `| OS | ${machine.os} |`,
    `| Deno | ${machine.deno} (V8 ${machine.v8}) |`,
    `| Load average (1 min) | ${machine.load} at start, ${loadAfter} at end (shared machine) |`,
    "",
    renderTable(rows),
    "",
  ].join("\n");
}
