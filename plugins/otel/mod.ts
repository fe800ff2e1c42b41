/**
 * OpenTelemetry for Tack: spans for each run, turn, model call and tool call (with each
 * plugin's hooks and the tool's execution inside it), following the GenAI semantic
 * conventions. Pass it as `createAgent({ trace: otelTracer() })` and run with
 * `OTEL_DENO=true`: Deno's built-in exporter sends the spans over OTLP.
 *
 * @example
 * ```ts
 * import { otelTracer } from "@tack/agent/plugins/otel";
 * import { equal } from "node:assert/strict";
 *
 * equal(typeof otelTracer().startStep, "function");
 * ```
 *
 * @module
 */

export { otelTracer, type OtelTracerLike, type OtelTracerOptions } from "./otel_tracer.ts";
