/**
 * Tack's core: the loop, tool execution, events and types. Depends on nothing but the
 * schema library.
 *
 * @module
 */

export type {
  AssistantMessage,
  ImageContent,
  Message,
  ResultTruncation,
  StopReason,
  TextContent,
  ThinkingContent,
  ToolCall,
  ToolResultMessage,
  Usage,
  UserMessage,
} from "./messages.ts";
export { emptyUsage, toolCallsOf } from "./messages.ts";
export type { AssistantMessageEvent } from "./assistant_message_event.ts";
export {
  type AssistantMessageEventStream,
  AssistantMessageStream,
} from "./assistant_message_stream.ts";
export type { Model, ModelRequest, StreamFn, StreamOptions, ToolSpec } from "./model.ts";
export type {
  ArgumentCheck,
  ArgumentIssue,
  ArgumentValidator,
  JsonSchema,
  SchemaType,
  Static,
} from "./schema.ts";
export {
  type AgentTool,
  type ToolEffect,
  ToolError,
  type ToolExecuteContext,
  type ToolExecutionMode,
  type ToolResult,
} from "./tool.ts";
export type {
  AfterToolCallContext,
  AfterToolCallHook,
  AfterToolCallResult,
  AgentContext,
  BeforeToolCallContext,
  BeforeToolCallHook,
  BeforeToolCallResult,
  DeferToolCall,
  PrepareTurnContext,
  PrepareTurnHook,
  PrepareTurnResult,
  ShouldStopAfterTurnContext,
  ShouldStopAfterTurnHook,
  VerifyToolCallHook,
  VerifyToolCallResult,
} from "./hooks.ts";
export type { AgentEvent, AgentEventSink } from "./agent_event.ts";
export {
  DEFAULT_MAX_RESULT_CHARS,
  DEFAULT_MAX_TURNS,
  DEFAULT_TOOL_TIMEOUT_MS,
  indexTools,
  type LoopConfig,
  timeoutProblem,
  timeoutsFor,
  type ToolIndex,
} from "./loop_config.ts";
export {
  describeInvalidArguments,
  invalidSchemaReason,
  validateToolArguments,
  type ValidationOutcome,
} from "./validate_tool_arguments.ts";
export {
  createErrorToolResult,
  errorToToolResult,
  type PermissionDenial,
  permissionDenial,
  permissionDeniedMessage,
} from "./create_error_tool_result.ts";
export { applyResultBudget, type BudgetedResult } from "./apply_result_budget.ts";
export {
  abortedBeforeStartMessage,
  type DeferredToolCall,
  type ImmediateToolCall,
  type PreparedToolCall,
  prepareToolCall,
  type PrepareToolCallInput,
  type ToolCallPreparation,
} from "./prepare_tool_call.ts";
export {
  abortedWhileRunningMessage,
  type ExecutedToolCall,
  executePreparedToolCall,
  timedOutMessage,
} from "./execute_prepared_tool_call.ts";
export { finalizeExecutedToolCall } from "./finalize_executed_tool_call.ts";
export { invalidContentReason } from "./check_tool_result.ts";
export { argumentDepthProblem, MAX_ARGUMENT_DEPTH } from "./argument_depth.ts";
export { copyArguments, copyForHooks } from "./copy_arguments.ts";
export { ownerLabel } from "./owner_label.ts";
export { thrownText } from "./thrown_text.ts";
export { boundHook, type HookOutcome } from "./bound_hook.ts";
export {
  CallWatch,
  type Stoppable as CallStoppable,
  type StopReason as CallStopReason,
  type Watcher as CallWatcher,
} from "./call_watch.ts";
export { isPromiseLike, type MaybePromise } from "./maybe_promise.ts";
export {
  executeToolCalls,
  type ExecuteToolCallsInput,
  type ToolBatch,
  truncatedCallMessage,
} from "./execute_tool_calls.ts";
export { type LoopState, maxTurnsMessage, runLoop, type RunLoopInput } from "./run_loop.ts";
export { createAssistantErrorMessage } from "./turn.ts";
export { GAVE_UP, MODEL_ABORT_GRACE_MS, ModelWait } from "./model_wait.ts";
export {
  abortedWhilePendingMessage,
  type Interruption,
  type PendingToolCall,
  toPendingToolCall,
} from "./interruption.ts";
