/**
 * The frameworks the loop rows compare, Tack first. Each peer adapter is imported lazily so
 * a peer that cannot load here gets a column that says why instead of breaking the run.
 *
 * @module
 */

import type { LoopRunner } from "./workload.ts";

/** A framework of the comparison: its runners, or why it cannot run here. */
export interface Framework {
  /** Short key (`tack`, `pi`, `ai`, `openai-agents`, `floor`). */
  key: string;
  /** Column title, with the version measured. */
  label: string;
  /** The workload through the framework's agent API (Tack's `createAgent`, pi's `Agent`). */
  run?: LoopRunner;
  /** The workload through its bare loop, when it has one (Tack's `runLoop`, pi's `runAgentLoop`). */
  loop?: LoopRunner;
  /** Set when the adapter could not load. */
  unavailable?: string;
}

interface Entry {
  key: string;
  label: string;
  load: () => Promise<{ run: LoopRunner; loop?: LoopRunner }>;
}

/** The adapters, in column order. */
export const ENTRIES: readonly Entry[] = [
  {
    key: "tack",
    label: "Tack 0.1.0",
    load: async () => {
      const { runTack, runTackLoop } = await import("./tack.ts");
      return { run: runTack, loop: runTackLoop };
    },
  },
  {
    key: "pi",
    label: "pi-agent-core 0.73.1",
    load: async () => {
      const { runPi, runPiLoop } = await import("./peers/pi.ts");
      return { run: runPi, loop: runPiLoop };
    },
  },
  {
    key: "ai",
    label: "ai 7.0.173",
    load: async () => ({ run: (await import("./peers/ai_sdk.ts")).runAiSdk }),
  },
  {
    key: "openai-agents",
    label: "@openai/agents 0.20.0",
    load: async () => ({ run: (await import("./peers/openai_agents.ts")).runOpenAIAgents }),
  },
  {
    key: "floor",
    label: "floor (minimal loop)",
    load: async () => {
      const { runFloor } = await import("./floor.ts");
      return { run: runFloor, loop: runFloor };
    },
  },
];

/**
 * Loads the frameworks to compare.
 *
 * @param keys Only these (default: all); the floor is always included.
 * @returns One entry per framework, with `run` or `unavailable`.
 */
export async function loadFrameworks(keys?: readonly string[]): Promise<Framework[]> {
  const frameworks: Framework[] = [];
  for (const entry of ENTRIES) {
    if (keys && !keys.includes(entry.key) && entry.key !== "floor") continue;
    try {
      frameworks.push({ key: entry.key, label: entry.label, ...await entry.load() });
    } catch (error) {
      const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
      frameworks.push({ key: entry.key, label: entry.label, unavailable: reason });
    }
  }
  return frameworks;
}
