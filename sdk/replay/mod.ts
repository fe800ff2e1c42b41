/**
 * Record and replay: a recorder at the model-stream and provider (`fetch`) levels that
 * writes a JSONL cassette with secrets redacted, and models, fetches and tools that
 * replay it offline.
 *
 * @module
 */

export {
  type CassetteLine,
  firstDifference,
  parseCassette,
  type RecordedEvent,
  type RecordedModelRequest,
  REDACTED,
  redactSecrets,
} from "./cassette.ts";
export { createRecorder, type Recorder } from "./create_recorder.ts";
export { describeDivergence, type ReplayModel, replayModel } from "./replay_model.ts";
export { replayFetch } from "./replay_fetch.ts";
export { replayTools } from "./replay_tools.ts";
