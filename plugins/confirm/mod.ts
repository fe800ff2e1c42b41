/**
 * Confirmation: ask the user before tool calls that write or execute (or match an `ask`
 * rule); approvals are bound to the call id and a hash of the final arguments.
 *
 * @example Asking in a terminal, denying in CI
 * ```ts
 * import confirm, { interactiveAsk } from "@tack/agent/plugins/confirm";
 * import { equal } from "node:assert/strict";
 *
 * const plugin = confirm({ ask: interactiveAsk(), whenNonInteractive: "deny" });
 * equal(plugin.name, "confirm");
 * ```
 *
 * @module
 */

export {
  argumentsChangedMessage,
  confirm,
  declinedMessage,
  nonInteractiveMessage,
} from "./confirm.ts";
export type {
  AskFunction,
  ConfirmAnswer,
  ConfirmOptions,
  ConfirmPlugin,
  ConfirmRequest,
} from "./confirm_types.ts";
export { hashArguments } from "./hash_arguments.ts";
export { formatConfirmRequest, interactiveAsk, terminalAsk } from "./terminal_ask.ts";
export { confirm as default } from "./confirm.ts";
