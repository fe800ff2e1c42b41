/**
 * Argument validation per call: Tack's `validateToolArguments` against pi-ai's
 * `validateToolArguments` and zod 4's `safeParse` (what `ai` and `@openai/agents` run on
 * their zod tool schemas), on the same realistic schema and arguments.
 *
 * `cd bench && deno bench -A validation_bench.ts` runs the `Deno.bench` cases; `compare.ts`
 * imports {@linkcode validationRows} (the `Deno.bench` calls are inert under `deno run`).
 *
 * @module
 */

import { validateToolArguments } from "@tack/agent";
import { validateToolArguments as piValidate } from "@mariozechner/pi-ai";
import { Type } from "typebox";
import { z } from "zod";
import type { CompareRow } from "./compare_row.ts";
import { measureInterleaved, median } from "./measure.ts";

const schema = Type.Object({
  path: Type.String(),
  patterns: Type.Array(Type.String()),
  startLine: Type.Optional(Type.Integer({ minimum: 1 })),
  endLine: Type.Optional(Type.Integer({ minimum: 1 })),
  recursive: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

const zodSchema = z.object({
  path: z.string(),
  patterns: z.array(z.string()),
  startLine: z.number().int().min(1).optional(),
  endLine: z.number().int().min(1).optional(),
  recursive: z.boolean().optional(),
}).strict();

const valid = { path: "src/main.ts", patterns: ["TODO", "FIXME"], startLine: 10, recursive: true };
const invalid = { path: 42, patterns: "TODO", startLine: 0 };

const piTool = { name: "grep", description: "grep", parameters: schema };
const piCall = (args: Record<string, unknown>) => ({
  type: "toolCall" as const,
  id: "c1",
  name: "grep",
  arguments: args,
});

function tackValid(): void {
  if (!validateToolArguments("grep", schema, valid).ok) throw new Error("Cannot validate: tack");
}
function piValid(): void {
  piValidate(piTool, piCall(valid));
}
function zodValid(): void {
  if (!zodSchema.safeParse(valid).success) throw new Error("Cannot validate: zod");
}
function tackInvalid(): void {
  if (validateToolArguments("grep", schema, invalid).ok) throw new Error("Cannot reject: tack");
}
function piInvalid(): void {
  try {
    piValidate(piTool, piCall(invalid));
  } catch {
    return;
  }
  throw new Error("Cannot reject: pi");
}
function zodInvalid(): void {
  if (zodSchema.safeParse(invalid).success) throw new Error("Cannot reject: zod");
}

Deno.bench({ name: "tack", group: "validate valid args", baseline: true, fn: tackValid });
Deno.bench({ name: "pi-ai", group: "validate valid args", fn: piValid });
Deno.bench({ name: "zod", group: "validate valid args", fn: zodValid });
Deno.bench({ name: "tack", group: "validate invalid args", baseline: true, fn: tackInvalid });
Deno.bench({ name: "pi-ai", group: "validate invalid args", fn: piInvalid });
Deno.bench({ name: "zod", group: "validate invalid args", fn: zodInvalid });

function repeat(fn: () => void, times: number): () => void {
  return () => {
    for (let i = 0; i < times; i++) fn();
  };
}

/**
 * The validation rows of the comparison table, in ns per call.
 *
 * @param quick Fewer iterations (a smoke test).
 * @returns Two rows: valid arguments, invalid arguments.
 */
export async function validationRows(quick: boolean): Promise<CompareRow[]> {
  const iterations = quick ? 2_000 : 20_000;
  const rows: CompareRow[] = [];
  const cases = [
    { label: "valid", fns: [tackValid, piValid, zodValid] },
    { label: "invalid (3 errors)", fns: [tackInvalid, piInvalid, zodInvalid] },
  ];
  for (const { label, fns: [tack, pi, zod] } of cases) {
    const times = await measureInterleaved([
      { name: "tack", run: repeat(tack, iterations) },
      { name: "pi", run: repeat(pi, iterations) },
      { name: "zod", run: repeat(zod, iterations) },
    ], { warmup: 2, runs: quick ? 3 : 9 });
    const ns = (name: string) => median(times.get(name)!) * 1e6 / iterations;
    rows.push({
      measure: `argument validation per call, ${label} (5-field schema)`,
      unit: "ns/call",
      better: "lower",
      tack: { value: ns("tack") },
      others: {
        "pi-agent-core 0.73.1": { value: ns("pi"), note: "pi-ai validateToolArguments" },
        "ai 7.0.173": { value: ns("zod"), note: "zod 4 safeParse" },
        "@openai/agents 0.20.0": { value: ns("zod"), note: "zod 4 safeParse" },
      },
      note: `median of ${quick ? 3 : 9} runs × ${iterations.toLocaleString("en")} calls; ` +
        "ai and @openai/agents validate zod tool schemas with zod (same measurement)" +
        (label === "valid" ? "" : "; Tack and pi also build the error message, zod does not"),
    });
  }
  return rows;
}
