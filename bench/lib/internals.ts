// Owns: the library internals the bench scripts use that the package does not export. bench/lib/ is the one place
// outside src/ allowed to import `../../dist/**` below `dist/index.js` (test/architecture/bench-imports.test.ts);
// a bench script imports the public API from `../dist/index.js` and everything else from here or from bench/lib/.
// When a stage moves inside src/, this file (and the bench/lib/ modules) are what follow it, not the scripts.

// Harness: the agent's tools and the bench tasks.
export { HARNESS_TOOLS } from "../../dist/harness/tools.js";
export { checkTasks, listTaskDirs } from "../../dist/harness/tasks-check.js";
export { loadTask } from "../../dist/harness/workspace.js";
export { CALL_POLICIES, type CallPolicy } from "../../dist/harness/call-policy.js";

// Models: llama.cpp handles and the trained stand-ins.
export { GPU_CHOICES, createLlama, loadModel, type GpuChoice } from "../../dist/model/index.js";
export { makeStandIn } from "../../dist/training/stand-ins.js";
export { buildTrainer } from "../../dist/training/trainer-build.js";
export { encodeTrainerInput } from "../../dist/training/trainer-input.js";

// Engines: the llama.cpp build behind `npm run llama:build` and bench:e2e's llama-server.
export { buildLlama, findLlamaProgram } from "../../dist/engines/llama-build.js";

// Runtime internals the speed benches time or tally.
export type { RequestProfile } from "../../dist/runtime/runtime.js";
export { DecodePassTally } from "../../dist/runtime/decode-passes.js";
export { mismatchedTag } from "../../dist/runtime/format-vocab.js";
export { readVocabulary } from "../../dist/model/vocabulary.js";

// Formats, grammar and prompt pieces below the public surface.
export { QWEN3_VOCAB_SIZE, resolveFormat } from "../../dist/formats/index.js";
export { compileToolGrammar, type ToolGrammarOptions } from "../../dist/grammar/index.js";
export { grammarsDir } from "../../dist/grammar/harness-grammars.js";
export { XgrammarSession } from "../../dist/engines/xgrammar-check.js";
export { renderToolCall } from "../../dist/prompt/render-calls.js";
export { seededRandom } from "../../dist/random.js";
