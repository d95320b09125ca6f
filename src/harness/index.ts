// Owns: the public surface of the harness stage (the bench and the CLI import from here).

export { AGENT_DEFAULTS, SANDBOX_DEFAULTS, SYSTEM_PROMPT, type SandboxLimits } from "./defaults.js";
export { RESOURCE_DEFAULTS, type ResourceLimits } from "./os-sandbox.js";
export { executeTool } from "./execute.js";
export { changedSourceFiles, isTestMaterial, judgeRun } from "./judge.js";
export { runAgent, type AgentOptions } from "./loop.js";
export { confine, findBwrap, resolveSandbox, sandboxArgs, type OsSandbox, type SandboxMode, type SandboxMounts } from "./os-sandbox.js";
export {
  createReplayModel,
  isReplaySpec,
  loadReplayOutputs,
  replayResult,
  REPLAY_PREFIX,
  type ReplayOptions,
  type ReplayParse,
} from "./replay-model.js";
export { resolveAgentModel, runTask, type ModelLoadOptions, type RunTaskOptions } from "./run-task.js";
export { confinementFlags, findTestFiles, runSuite, runTestsTool, testEnvironment, type SuiteOptions } from "./run-tests.js";
export { isInside, openInside, resolveInside, splitPath, walkInside, type Opened, type Resolved, type WalkEntry } from "./sandbox.js";
export { formatRunSummary } from "./summary.js";
export { checkTask, checkTasks, listTaskDirs, type TaskCheck, type TasksCheckOptions } from "./tasks-check.js";
export { HARNESS_TOOLS, type HarnessTool } from "./tools.js";
export { appendTranscript, isRunRecord, parseTranscript, truncateForTranscript } from "./transcript.js";
export {
  HARNESS_TOOL_NAMES,
  TOOL_OUTCOME_CODES,
  type AgentModel,
  type AgentRun,
  type BenchTask,
  type HarnessToolName,
  type RunCounts,
  type RunStatus,
  type TestRunRecord,
  type ToolOutcome,
  type ToolOutcomeCode,
  type ToolResultRecord,
  type TurnRecord,
} from "./types.js";
export {
  applySolution,
  createWorkspace,
  isTestFile,
  listProjectFiles,
  loadTask,
  removeWorkspace,
  restoreTests,
  type Workspace,
  type WorkspaceOptions,
} from "./workspace.js";
export { CALL_POLICIES, CALL_POLICY_DEFAULTS, FINISH_TOOL, isCallPolicy, isFinishCall, parseCallPolicy, planTurn, type CallPolicy, type TurnPlan } from "./call-policy.js";
