/**
 * The fingerprint an approval is bound to (the SDK's, so an approval given through
 * `agent.resume` and one given to confirm hash alike).
 *
 * @module
 */

export { hashArguments } from "@tack/agent";
