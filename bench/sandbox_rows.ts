/**
 * The warm per-call rows of the sandbox bench, set up once and shared by `deno bench`
 * (`sandbox_bench.ts`) and the interleaved script (`sandbox_interleaved.ts`): a tool call
 * in-process, the raw pipe floor, a warm process sandbox (under bubblewrap where
 * available), a warm worker sandbox, and a sandboxed hook on an empty transcript and on
 * one of 10,000 messages (one new message per call).
 *
 * @module
 */

import { loadPlugin } from "@tack/agent/sdk/sandbox";
import { workerOptionsState } from "../sdk/sandbox/worker_isolation.ts";
import type { AgentTool, BeforeToolCallContext, Message, Plugin } from "@tack/agent";
import { ECHO_ARGS, type PipeFloor, startPipeFloor } from "./pipe_floor.ts";

/** The plugin the rows load (its `echo` tool sends an update, then its result). */
export const FIXTURE: string =
  new URL("../tests/fixtures/sandbox/faulty_plugin.ts", import.meta.url).pathname;

/** One warm row: one call per `run()`. */
export interface WarmRow {
  name: string;
  run: () => Promise<unknown>;
}

/** The rows, and what to close after. */
export interface SandboxRows {
  inProcess: WarmRow;
  floor: WarmRow;
  process: WarmRow;
  /** Absent when worker sandboxes cannot start (the reason went to stderr). */
  worker?: WarmRow;
  hookEmpty: WarmRow;
  hookLarge: WarmRow;
  /** The floor child, for the cold-start floor. */
  pipe: PipeFloor;
  dispose(): Promise<void>;
}

const signal = new AbortController().signal;
const echo = (plugin: { tools?: readonly AgentTool[] }): AgentTool =>
  plugin.tools!.find((tool) => tool.name === "echo")!;

// A worker sandbox that cannot start skips its row, saying why, rather than failing.
async function loadWorker(): Promise<Plugin | undefined> {
  if (workerOptionsState() === "off") {
    console.error("worker row skipped: run with --unstable-worker-options");
    return undefined;
  }
  try {
    return await loadPlugin(FIXTURE, {
      sandbox: true,
      isolation: "worker",
      stderr: "capture",
      startTimeoutMs: 5000,
      onWarning: () => {},
    });
  } catch (error) {
    console.error(`worker row skipped: ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * A transcript of `size` messages: a user question, a tool call, its result, repeated.
 *
 * @param size How many messages.
 * @returns The messages.
 */
export function transcript(size: number): Message[] {
  const messages: Message[] = [];
  for (let i = 0; i < size; i++) {
    messages.push(
      i % 3 === 0 ? { role: "user", content: `question ${i}`, timestamp: i } : i % 3 === 1
        ? {
          role: "assistant",
          content: [{ type: "toolCall", id: `c${i}`, name: "echo", arguments: { text: `${i}` } }],
          stopReason: "toolUse",
          timestamp: i,
        } as unknown as Message
        : {
          role: "toolResult",
          toolCallId: `c${i - 1}`,
          toolName: "echo",
          content: [{ type: "text", text: `answer ${i}` }],
          isError: false,
          timestamp: i,
        } as unknown as Message,
    );
  }
  return messages;
}

function hookContext(plugin: Plugin, messages: Message[]): BeforeToolCallContext {
  const tool = echo(plugin);
  const toolCall = { type: "toolCall" as const, id: "h", name: "echo", arguments: ECHO_ARGS };
  return {
    assistantMessage: { role: "assistant", content: [toolCall], timestamp: 0 } as never,
    toolCall,
    tool,
    args: ECHO_ARGS,
    context: { systemPrompt: "You are a bench.", messages, tools: plugin.tools! },
  };
}

/**
 * Loads the plugin in-process, in a process sandbox and (where possible) in a worker
 * sandbox, starts the floor child, and warms each row once.
 *
 * @returns The rows.
 */
export async function setUpSandboxRows(): Promise<SandboxRows> {
  const inProcess = await loadPlugin(FIXTURE);
  // Hooks granted over all tools: scoped to its own (the default), a hook sees no transcript,
  // and the 10,000-message row would measure an empty one. The two hook rows use two
  // sandboxes: a sandbox's cursor follows one transcript, so alternating rows on one would
  // resend the 10,000 messages at every switch.
  const hooked = () =>
    loadPlugin(FIXTURE, { sandbox: true, stderr: "capture", hooks: "all", onWarning: () => {} });
  const sandboxed = await hooked();
  const large10k = await hooked();
  const worker = await loadWorker();
  const pipe = await startPipeFloor();
  let n = 0;
  const empty = hookContext(sandboxed, []);
  const large = hookContext(large10k, transcript(10_000));
  const rows: SandboxRows = {
    inProcess: {
      name: "tool call: in-process",
      run: () =>
        Promise.resolve(echo(inProcess).execute(ECHO_ARGS, { toolCallId: `i${n++}`, signal })),
    },
    floor: { name: "raw pipe round trip of the same bytes (floor)", run: pipe.roundTrip },
    process: {
      name: "tool call: warm process sandbox",
      run: () =>
        Promise.resolve(echo(sandboxed).execute(ECHO_ARGS, { toolCallId: `s${n++}`, signal })),
    },
    worker: worker && {
      name: "tool call: warm worker sandbox",
      run: () =>
        Promise.resolve(echo(worker).execute(ECHO_ARGS, { toolCallId: `w${n++}`, signal })),
    },
    hookEmpty: {
      name: "hook call: process sandbox, empty transcript",
      run: () => Promise.resolve(sandboxed.beforeToolCall!(empty, signal)),
    },
    hookLarge: {
      name: "hook call: process sandbox, 10,000 messages (one new per call)",
      run: () => {
        const messages = large.context.messages as Message[];
        messages[messages.length - 1] = { ...messages[messages.length - 1] };
        return Promise.resolve(large10k.beforeToolCall!(large, signal));
      },
    },
    pipe,
    async dispose() {
      await sandboxed.dispose?.();
      await large10k.dispose?.();
      await worker?.dispose?.();
      await pipe.close();
    },
  };
  // The sandbox has seen the transcript once; every row is warm.
  await large10k.beforeToolCall!(large, signal);
  for (const row of [rows.inProcess, rows.process, rows.worker, rows.hookEmpty]) await row?.run();
  return rows;
}
