/**
 * Small real tools with declared effects, for policy tests: a write, a shell command and
 * a read, each touching a real temp folder (the read only echoes its path).
 *
 * @module
 */

import { defineTool, type Tool } from "@tack/agent";
import { dirname } from "node:path";
import { Type } from "typebox";

/** `write {path, content}` (effect write): writes under `root`, creating folders. */
export function writeTool(root: string): Tool {
  return defineTool({
    name: "write",
    description: "Writes a file",
    effects: ["write"],
    parameters: Type.Object({ path: Type.String(), content: Type.String() }),
    async execute({ path, content }) {
      await Deno.mkdir(dirname(`${root}/${path}`), { recursive: true });
      await Deno.writeTextFile(`${root}/${path}`, content);
      return { content: [{ type: "text", text: `wrote ${path}` }] };
    },
  });
}

/** `bash {command}` (effect exec): runs `sh -c` in `root`, answering its stdout. */
export function bashTool(root: string): Tool {
  return defineTool({
    name: "bash",
    description: "Runs a shell command",
    effects: ["exec"],
    parameters: Type.Object({ command: Type.String() }),
    async execute({ command }) {
      const out = await new Deno.Command("sh", { args: ["-c", command], cwd: root }).output();
      return { content: [{ type: "text", text: new TextDecoder().decode(out.stdout).trim() }] };
    },
  });
}

/** `read {path}` (effect read): answers `read <path>` without touching the disk. */
export function readTool(): Tool {
  return defineTool({
    name: "read",
    description: "Reads",
    effects: ["read"],
    parameters: Type.Object({ path: Type.String() }),
    execute: ({ path }) => ({ content: [{ type: "text", text: `read ${path}` }] }),
  });
}
