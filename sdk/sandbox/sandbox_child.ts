/**
 * What runs a sandbox's plugin, as its connection sees it: a child (a process or a worker)
 * that takes protocol messages and reports back through handlers.
 *
 * @module
 */

import type { ChildMessage, HostMessage } from "./protocol.ts";

/** What a spawned child tells its connection. */
export interface ChildHandlers {
  onMessage(message: ChildMessage): void;
  /** A line that is not a protocol message (the child is then killed). */
  onGarbage(line: string): void;
  /** The child broke a limit (it is then killed); `why` names it (`exceeded its memory limit (512 MB)`). */
  onFault(why: string): void;
  /** The child is gone; `reason` says how (`exit code 1`, `killed`, …). */
  onExit(reason: string): void;
}

/** A running child. */
export interface SandboxChild {
  send(message: HostMessage): void;
  /** Stops the child now; `onExit` follows. */
  kill(): void;
  /** Resolves once the child and its streams are gone. */
  readonly closed: Promise<void>;
  /** The last lines the child wrote on stderr (for error texts). */
  stderrTail(): string;
}

/** Starts a child. */
export type SpawnChild = (handlers: ChildHandlers) => SandboxChild;
