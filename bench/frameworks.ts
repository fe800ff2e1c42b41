/**
 * The frameworks the loop rows compare, Tack first. Each peer adapter is imported lazily so
 * a peer that cannot load here gets a column that says why instead of breaking the run.
 *
 * @module
 */

import type { LoopRunner } from "./workload.ts";

/** A framework of the comparison: its runner, or why it cannot run here. */
export interface Framework {
  /** Short key (`tack`, `pi`, `ai`, `openai-agents`). */
  key: string;
  /** Column title, with the version measured. */
  label: string;
  run?: LoopRunner;
  /** Set when the adapter could not load. */
  unavailable?: string;
}

interface Entry {
  key: string;
  label: string;
  load: () => Promise<LoopRunner>;
}

/** The adapters, in column order. */
export const ENTRIES: readonly Entry[] = [
  { key: "tack", label: "Tack 0.1.0", load: async () => (await import("./tack.ts")).runTack },
  {
    key: "pi",
    label: "pi-agent-core 0.73.1",
    load: async () => (await import("./peers/pi.ts")).runPi,
  },
  {
    key: "ai",
    label: "ai 7.0.173",
    load: async () => (await import("./peers/ai_sdk.ts")).runAiSdk,
  },
  {
    key: "openai-agents",
    label: "@openai/agents 0.20.0",
    load: async () => (await import("./peers/openai_agents.ts")).runOpenAIAgents,
  },
];

/**
 * Loads the frameworks to compare.
 *
 * @param keys Only these (default: all).
 * @returns One entry per framework, with `run` or `unavailable`.
 */
export async function loadFrameworks(keys?: readonly string[]): Promise<Framework[]> {
  const frameworks: Framework[] = [];
  for (const entry of ENTRIES) {
    if (keys && !keys.includes(entry.key)) continue;
    try {
      frameworks.push({ key: entry.key, label: entry.label, run: await entry.load() });
    } catch (error) {
      const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
      frameworks.push({ key: entry.key, label: entry.label, unavailable: reason });
    }
  }
  return frameworks;
}
