/**
 * Tack's SDK: define tools and plugins, create agents. Re-exports the core.
 *
 * @module
 */

export * from "../core/mod.ts";
export { defineTool, type Tool, TOOL_NAME_PATTERN, type ToolDefinition } from "./define_tool.ts";
export { definePlugin, type Plugin } from "./define_plugin.ts";
export { canonicalJson } from "./canonical_json.ts";
export { PERMISSION_NAMES, type PermissionGrant, type PluginPermissions } from "./permissions.ts";
export {
  composeAfterToolCall,
  composeBeforeToolCall,
  composeShouldStopAfterTurn,
  composeVerifyToolCall,
  type TaggedHook,
} from "./compose_hooks.ts";
export {
  Agent,
  type AgentInit,
  type AgentListener,
  type PromptInput,
  type QueueMode,
} from "./agent.ts";
export { type AgentOptions, createAgent } from "./create_agent.ts";
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
export * from "./run_store/mod.ts";
export * from "./replay/mod.ts";
export {
  type InspectedTool,
  inspectPlugin,
  type Isolation,
  loadPlugin,
  type LoadPluginOptions,
  NOT_CONFINED_WARNING,
  type PluginInspection,
  type SandboxOptions,
} from "./sandbox/mod.ts";
