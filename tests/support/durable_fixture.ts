/**
 * One agent setup for the interrupt-and-resume tests, shared by the test process and the
 * "new process" that resumes: tools that log each execution to a file, and confirm in
 * defer mode.
 *
 * @module
 */

import {
  type AgentOptions,
  defineTool,
  scriptedModel,
  type ScriptStep,
  type Tool,
} from "@tack/agent";
import { confirm } from "@tack/agent/plugins/confirm";
import { Type } from "typebox";

/** Tools that append `<tool> <arg>` to `logPath` each time they execute. */
export function loggingTools(logPath: string): Tool[] {
  const log = (line: string) => Deno.writeTextFileSync(logPath, `${line}\n`, { append: true });
  return [
    defineTool({
      name: "deploy",
      description: "Deploys a target",
      effects: ["exec"],
      parameters: Type.Object({ target: Type.String() }),
      execute: ({ target }) => {
        log(`deploy ${target}`);
        return { content: [{ type: "text", text: `deployed ${target}` }] };
      },
    }),
    defineTool({
      name: "lookup",
      description: "Reads a value",
      parameters: Type.Object({ key: Type.String() }),
      execute: ({ key }) => {
        log(`lookup ${key}`);
        return { content: [{ type: "text", text: `value of ${key}` }] };
      },
    }),
  ];
}

/** The agent's options: the script, the logging tools, confirm deferring writes and execs. */
export function durableOptions(logPath: string, script: ScriptStep[]): AgentOptions {
  return {
    model: scriptedModel(script),
    tools: loggingTools(logPath),
    plugins: [confirm({ whenNonInteractive: "defer" })],
  };
}

/** The lines of the execution log (empty when nothing ran). */
export function executions(logPath: string): string[] {
  try {
    return Deno.readTextFileSync(logPath).split("\n").filter(Boolean);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}
