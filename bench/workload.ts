/**
 * The scripted workload every framework runs in the loop benchmarks: `turns` model turns
 * of {@linkcode CALLS_PER_TURN} parallel calls to one trivial tool, then a final text
 * answer. Every adapter builds the same calls (same ids, same arguments), runs the same
 * tool body (returns a constant string) and reports what it did, so a run that skipped
 * work is caught by {@linkcode checkOutcome} instead of looking fast.
 *
 * @module
 */

/** Parallel tool calls in each model turn. */
export const CALLS_PER_TURN = 8;

/** The tool every adapter registers. */
export const TOOL_NAME = "echo";

/** Its description (the same text for every framework). */
export const TOOL_DESCRIPTION = "Returns a constant string";

/** The constant the tool returns. */
export const TOOL_RESULT = "ok";

/** The final answer of the last turn. */
export const FINAL_TEXT = "done";

/** The tool's parameters as plain JSON Schema (each adapter wraps it its own way). */
export const TOOL_PARAMETERS = {
  type: "object",
  properties: { value: { type: "string" } },
  required: ["value"],
  additionalProperties: false,
} as const;

/** One scripted tool call, framework-neutral. */
export interface WorkloadCall {
  id: string;
  name: string;
  arguments: { value: string };
}

/**
 * The calls of turn `turn` (0-based).
 *
 * @param turn The turn index.
 * @returns {@linkcode CALLS_PER_TURN} calls with ids unique in the run.
 */
export function callsOfTurn(turn: number): WorkloadCall[] {
  const calls: WorkloadCall[] = new Array(CALLS_PER_TURN);
  for (let i = 0; i < CALLS_PER_TURN; i++) {
    calls[i] = { id: `call_${turn}_${i}`, name: TOOL_NAME, arguments: { value: `v${i}` } };
  }
  return calls;
}

/** What a run did; {@linkcode checkOutcome} compares it with what it should have done. */
export interface RunOutcome {
  /** Times the tool body ran. */
  executions: number;
  /** Model turns served by the scripted model. */
  modelTurns: number;
  /** Tool results in the final transcript (or its framework's equivalent). */
  toolResults: number;
  /** The text of the final answer. */
  finalText: string;
  /** The run's transcript, kept so the memory benchmark can weigh it. */
  transcript: readonly unknown[];
}

/**
 * Tool turns whose transcript holds at least `messages` messages: the prompt, then per
 * turn an assistant message and its results, then the final answer.
 *
 * @param messages The transcript size wanted.
 * @returns The number of tool turns.
 */
export function turnsForMessages(messages: number): number {
  return Math.max(0, Math.ceil((messages - 2) / (CALLS_PER_TURN + 1)));
}

/**
 * The messages in the transcript of a run of `turns` tool turns.
 *
 * @param turns Tool turns.
 * @returns Its size.
 */
export function messagesOfRun(turns: number): number {
  return 2 + turns * (CALLS_PER_TURN + 1);
}

/** A framework's runner: one complete run of the workload with `turns` tool turns. */
export type LoopRunner = (turns: number) => Promise<RunOutcome>;

/**
 * Checks that a run did the whole workload.
 *
 * @param name The framework, for the message.
 * @param turns The tool turns asked for.
 * @param outcome What the run reported.
 * @throws {Error} When any count or the final text is off (a broken adapter, not slowness).
 */
export function checkOutcome(name: string, turns: number, outcome: RunOutcome): void {
  const calls = turns * CALLS_PER_TURN;
  const problems: string[] = [];
  if (outcome.executions !== calls) problems.push(`${outcome.executions} executions`);
  if (outcome.toolResults !== calls) problems.push(`${outcome.toolResults} tool results`);
  if (outcome.modelTurns !== turns + 1) problems.push(`${outcome.modelTurns} model turns`);
  if (outcome.transcript.length !== messagesOfRun(turns)) {
    problems.push(`${outcome.transcript.length} messages`);
  }
  if (outcome.finalText !== FINAL_TEXT) {
    problems.push(`final text ${JSON.stringify(outcome.finalText)}`);
  }
  if (problems.length > 0) {
    throw new Error(
      `Cannot trust the ${name} run: expected ${calls} executions and results and ${
        turns + 1
      } model turns, got ${problems.join(", ")}`,
    );
  }
}
