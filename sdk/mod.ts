/**
 * Tack's SDK: define tools and plugins, create agents. Re-exports the core.
 *
 * @module
 */

export * from "../core/mod.ts";
// The plugin API (definePlugin, defineTool, Type, permissions, limits), also importable alone.
export * from "./plugin_api.ts";
export {
  isStandardSchema,
  type StandardIssue,
  standardJsonSchema,
  type StandardOutput,
  type StandardPathSegment,
  type StandardProps,
  type StandardResult,
  type StandardSchemaV1,
  standardValidator,
} from "./standard_schema.ts";
export { type ToolOwner, ToolRegistry } from "./tool_registry.ts";
export { composePrepareTurn } from "./compose_prepare_turn.ts";
export { canonicalJson } from "./canonical_json.ts";
export { schemaRecursion } from "./schema_recursion.ts";
export {
  newSchemaTally,
  SCHEMA_LIMITS,
  schemaSizeProblem,
  type SchemaTally,
} from "./schema_size.ts";
export { untrustedSchemaProblem } from "./untrusted_schemas.ts";
export { resolveLimits } from "./plugin_limits.ts";
export {
  composeAfterToolCall,
  composeBeforeToolCall,
  composeVerifyToolCall,
  type TaggedHook,
} from "./compose_hooks.ts";
export { composeShouldStopAfterTurn } from "./compose_stop_after_turn.ts";
export {
  Agent,
  type AgentInit,
  type AgentListener,
  type PromptInput,
  type QueueMode,
} from "./agent.ts";
export { type AgentOptions, createAgent } from "./create_agent.ts";
export * from "./telemetry/mod.ts";
export {
  type AgentState,
  approveCall,
  type ConfigIdentity,
  type Decision,
  mayHaveCompletedMessage,
  type PendingApproval,
  rejectCall,
  rejectedMessage,
  type StickyDecision,
} from "./agent_state.ts";
export { resumeAgent, type ResumeAgentOptions } from "./resume_agent.ts";
export { hashArguments } from "./hash_arguments.ts";
export { permittedEnv, permittedEnvObject, withPermittedEnv } from "./permitted_env.ts";
export {
  appendPrivateText,
  makePrivateDir,
  openPrivateForAppend,
  PRIVATE_DIR_MODE,
  PRIVATE_FILE_MODE,
  refuseLinksBelow,
  writePrivateText,
} from "./private_files.ts";
export * from "./run_store/mod.ts";
export * from "./replay/mod.ts";
export {
  type InspectedTool,
  inspectPlugin,
  type Isolation,
  loadPlugin,
  type LoadPluginOptions,
  NO_GROUP_KILL_WARNING,
  NOT_CONFINED_WARNING,
  type PluginInspection,
  type SandboxOptions,
} from "./sandbox/mod.ts";
