// Owns: the agent loop: one run of one task by one model, turn by turn, in a fresh workspace, ending with a
// status, the task's test verdict and a transcript record. No exception from the model or the tools ends it.

import type { CallErrorCode } from "../errors.js";
import type { CallError, ToolCall } from "../parse/types.js";
import type { ChatMessage } from "../prompt/types.js";
import type { GenerateResult, GenerationMode } from "../runtime/types.js";
import type { ToolChoice, ToolInput } from "../tools/types.js";
import { CALL_POLICY_DEFAULTS, isFinishCall, planTurn, type CallPolicy } from "./call-policy.js";
import { AGENT_DEFAULTS, type SandboxLimits } from "./defaults.js";
import { executeTool } from "./execute.js";
import { judgeRun } from "./judge.js";
import type { OsSandbox } from "./os-sandbox.js";
import { appendTranscript, truncateForTranscript } from "./transcript.js";
import type {
  AgentModel,
  AgentRun,
  BenchTask,
  RunStatus,
  TestRunRecord,
  ToolOutcomeCode,
  ToolResultRecord,
  TurnRecord,
} from "./types.js";
import { createWorkspace, loadTask, removeWorkspace, type Workspace } from "./workspace.js";

export interface AgentOptions {
  /** The task: loaded, or the path of its folder. */
  task: BenchTask | string;
  model: AgentModel;
  /** Default: "constrained". */
  mode?: GenerationMode;
  /** Sampling seed, passed unchanged on every turn. Default: 0. */
  seed?: number;
  /** Default: 8. */
  maxTurns?: number;
  /** Token budget of one turn. Default: 512. */
  maxTokens?: number;
  /** Default: "auto". */
  toolChoice?: ToolChoice;
  /** Default: false. */
  thinking?: boolean;
  /** How the loop gets calls out of the model (see call-policy.ts). Default: "auto" (the tool choice every turn). */
  callPolicy?: CallPolicy;
  /** Append the run's record to this JSONL file. Default: none. */
  transcript?: string;
  /** Sandbox caps, and `sandbox: "off"` to allow an unconfined run. Default: SANDBOX_DEFAULTS. */
  limits?: Partial<SandboxLimits>;
  /** An OS sandbox already checked (a bench checks once for all its runs). Default: resolved from `limits.sandbox`. */
  sandbox?: OsSandbox;
  /** Folder the run folder is created in. Default: os.tmpdir(). */
  tmpRoot?: string;
  /** Keep the run folder after the run (its path is in the record). Default: false. */
  keepWorkspace?: boolean;
  /** Default: AGENT_DEFAULTS.systemPrompt. */
  systemPrompt?: string;
  /** Stops the run before its next turn (status `error`). Default: none. */
  signal?: AbortSignal;
  /** Called after every turn, e.g. for progress. Default: none. */
  onTurn?: (turn: TurnRecord) => void;
}

type Block = { kind: "call"; call: ToolCall } | { kind: "error"; error: CallError };

const bump = <K extends string>(map: Partial<Record<K, number>>, key: K): void => {
  map[key] = (map[key] ?? 0) + 1;
};

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * Run one task with one model. Throws only for bad caller input (a missing or malformed task folder) and
 * `sandbox_unavailable` (no OS sandbox, and `limits.sandbox` is not "off"), both before the first turn.
 */
export async function runAgent(opts: AgentOptions): Promise<AgentRun> {
  const o = { ...AGENT_DEFAULTS, ...stripUndefined(opts), model: opts.model };
  const task = typeof opts.task === "string" ? await loadTask(opts.task) : opts.task;
  const policy = opts.callPolicy ?? CALL_POLICY_DEFAULTS.policy;
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const ws = await createWorkspace(task.dir, { limits: opts.limits, tmpRoot: opts.tmpRoot, sandbox: opts.sandbox });

  const messages: ChatMessage[] = [
    { role: "system", content: o.systemPrompt },
    { role: "user", content: task.prompt },
  ];
  const turns: TurnRecord[] = [];
  const tallies: Tallies = { invalidByReason: {}, toolErrorsByCode: {} };
  let status: RunStatus = "turn_limit";
  let error: string | undefined;
  let finalTests: TestRunRecord = { passed: false, timedOut: false, exitCode: null, tests: null, output: "", ms: 0 };

  try {
    for (let index = 0; index < o.maxTurns; index++) {
      if (opts.signal?.aborted) {
        status = "error";
        error = "aborted";
        break;
      }
      const t0 = performance.now();
      const plan = planTurn(policy, index, o.toolChoice, o.model.format);
      let result: GenerateResult;
      try {
        result = await o.model.generate({
          messages: [...messages],
          tools: plan.tools as ToolInput[],
          toolChoice: plan.toolChoice,
          ...(plan.logitBias ? { logitBias: plan.logitBias } : {}),
          mode: o.mode,
          maxTokens: o.maxTokens,
          seed: o.seed,
          thinking: o.thinking,
          signal: opts.signal,
        });
      } catch (e) {
        status = "error";
        error = `the model failed on turn ${index + 1}: ${messageOf(e)}`;
        break;
      }
      const generateMs = performance.now() - t0;
      const blocks = blocksOf(result);
      messages.push(assistantMessage(result));
      const t1 = performance.now();
      const { results, finished } = await runBlocks(blocks, { ws, policy, messages, tallies, maxChars: o.transcriptResultChars });
      const turn = turnRecord(index, result, results, { generateMs, toolsMs: performance.now() - t1 });
      turns.push(turn);
      try {
        opts.onTurn?.(turn);
      } catch {
        // A progress callback never ends a run.
      }
      if (blocks.length === 0 || finished) {
        status = "answered";
        break;
      }
    }
  } catch (e) {
    status = "error";
    error = `internal failure in the agent loop: ${messageOf(e)}`;
  }

  try {
    finalTests = await judgeRun(ws);
  } finally {
    if (!o.keepWorkspace) await removeWorkspace(ws);
  }

  const run = runRecord({ task, o, policy, status, error, finalTests, ws, turns, tallies, started, startedAt });
  if (opts.transcript) await appendTranscript(opts.transcript, run);
  return run;
}

/** One model turn's blocks (valid calls and rejected ones) in the order the model wrote them. */
function blocksOf(result: GenerateResult): Block[] {
  return [
    ...(result.toolCalls ?? []).map((call): Block => ({ kind: "call", call })),
    ...(result.errors ?? []).map((e): Block => ({ kind: "error", error: e })),
  ].sort((a, b) => (a.kind === "call" ? a.call.start : a.error.start) - (b.kind === "call" ? b.call.start : b.error.start));
}

/**
 * The assistant's turn as it goes back to the model, as the template expects: valid calls as tool_calls, and the
 * raw text of rejected blocks kept in the content so the model sees what it wrote.
 */
function assistantMessage(result: GenerateResult): ChatMessage {
  const calls = result.toolCalls ?? [];
  const content = [result.content ?? "", ...(result.errors ?? []).map((e) => e.raw)].filter((s) => s.trim() !== "").join("\n");
  return {
    role: "assistant",
    content,
    reasoning_content: result.reasoning ?? null,
    ...(calls.length ? { tool_calls: calls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.arguments } })) } : {}),
  };
}

/** The run's tallies: rejected blocks by reason, tool errors by code. */
interface Tallies {
  invalidByReason: Partial<Record<CallErrorCode, number>>;
  toolErrorsByCode: Partial<Record<ToolOutcomeCode, number>>;
}

/** What running a turn's blocks touches: the workspace, the conversation and the run's tallies. */
interface BlockRun {
  ws: Workspace;
  policy: CallPolicy;
  messages: ChatMessage[];
  tallies: Tallies;
  maxChars: number;
}

/**
 * Answer each block in order: a rejected block gets its error, a finish call ends the run after this turn,
 * any other call runs in the workspace. Each answer goes into the conversation and the turn's results.
 */
async function runBlocks(blocks: readonly Block[], r: BlockRun): Promise<{ results: ToolResultRecord[]; finished: boolean }> {
  const results: ToolResultRecord[] = [];
  let finished = false;
  for (const b of blocks) {
    const s = performance.now();
    if (b.kind === "error") {
      bump(r.tallies.invalidByReason, b.error.reason);
      const text = b.error.message;
      r.messages.push({ role: "tool", content: text, ...(b.error.name ? { name: b.error.name } : {}) });
      results.push(resultRecord(null, b.error.name ?? null, "rejected_call", text, s, r.maxChars, b.error.reason));
      continue;
    }
    if (isFinishCall(r.policy, b.call.name)) {
      // The final answer, given as a call: nothing runs, and the run ends after this turn.
      finished = true;
      r.messages.push({ role: "tool", content: "Finished.", tool_call_id: b.call.id, name: b.call.name });
      results.push(resultRecord(b.call.id, b.call.name, "ok", "Finished.", s, r.maxChars));
      continue;
    }
    const outcome = await executeTool(r.ws, b.call.name, b.call.parsedArguments ?? {});
    if (outcome.code !== "ok" && outcome.code !== "capped" && outcome.code !== "tests_failed") bump(r.tallies.toolErrorsByCode, outcome.code);
    r.messages.push({ role: "tool", content: outcome.text, tool_call_id: b.call.id, name: b.call.name });
    results.push(resultRecord(b.call.id, b.call.name, outcome.code, outcome.text, s, r.maxChars));
  }
  return { results, finished };
}

/** The transcript record of one turn. */
function turnRecord(index: number, result: GenerateResult, results: ToolResultRecord[], ms: { generateMs: number; toolsMs: number }): TurnRecord {
  return {
    index,
    raw: result.raw ?? "",
    content: result.content ?? "",
    reasoning: result.reasoning ?? null,
    finishReason: result.finishReason,
    format: result.format,
    calls: (result.toolCalls ?? []).map((c) => ({ id: c.id, name: c.name, arguments: c.parsedArguments })),
    errors: (result.errors ?? []).map((e) => ({ reason: e.reason, message: e.message, ...(e.name ? { name: e.name } : {}) })),
    results,
    ...(result.notices && result.notices.length > 0 ? { notices: [...result.notices] } : {}),
    ...(result.probabilityRemoved ? { probabilityRemoved: result.probabilityRemoved.map((p) => Math.round(p * 1e4) / 1e4) } : {}),
    usage: {
      promptTokens: result.usage?.promptTokens ?? 0,
      completionTokens: result.usage?.completionTokens ?? 0,
      forcedTokens: result.usage?.forcedTokens ?? 0,
      ...(result.usage?.promptTokensReused === undefined ? {} : { promptTokensReused: result.usage.promptTokensReused }),
    },
    timings: {
      generateMs: round(ms.generateMs),
      toolsMs: round(ms.toolsMs),
      timeToFirstTokenMs: round(result.timings?.timeToFirstTokenMs ?? 0),
      decodeTokensPerSecond: round(result.timings?.decodeTokensPerSecond ?? 0),
      grammarMs: round(result.timings?.grammarMs ?? 0),
    },
  };
}

/** Everything a run's record is made of, once its turns and final test run are done. */
interface RunParts {
  task: BenchTask;
  o: Required<Pick<AgentOptions, "model" | "mode" | "seed" | "maxTurns" | "maxTokens" | "toolChoice" | "thinking">>;
  policy: CallPolicy;
  status: RunStatus;
  error: string | undefined;
  finalTests: TestRunRecord;
  ws: Workspace;
  turns: TurnRecord[];
  tallies: Tallies;
  started: number;
  startedAt: string;
}

/** The run's record: settings, status, verdict, counts, token and time totals, and its turns. */
function runRecord(p: RunParts): AgentRun {
  const { task, o, policy, status, error, finalTests, ws, turns, tallies, started, startedAt } = p;
  const sum = (f: (t: TurnRecord) => number): number => turns.reduce((a, t) => a + f(t), 0);
  const valid = sum((t) => t.calls.length);
  const invalid = sum((t) => t.errors.length);
  return {
    kind: "qtc-agent-run",
    version: 1,
    task: task.id,
    taskDir: task.dir,
    model: o.model.name,
    synthetic: o.model.synthetic,
    mode: o.mode,
    seed: o.seed,
    maxTurns: o.maxTurns,
    maxTokens: o.maxTokens,
    toolChoice: o.toolChoice,
    callPolicy: policy,
    thinking: o.thinking,
    status,
    ...(error !== undefined ? { error } : {}),
    testsPassed: finalTests.passed,
    finalTests,
    sandbox: ws.sandbox.kind,
    counts: { turns: turns.length, blocks: valid + invalid, valid, invalid, ...tallies },
    tokens: {
      prompt: sum((t) => t.usage.promptTokens),
      completion: sum((t) => t.usage.completionTokens),
      forced: sum((t) => t.usage.forcedTokens),
    },
    timings: {
      totalMs: round(performance.now() - started),
      generateMs: round(sum((t) => t.timings.generateMs)),
      toolsMs: round(sum((t) => t.timings.toolsMs)),
      finalTestsMs: finalTests.ms,
    },
    turns,
    startedAt,
    workspace: ws.root,
  };
}

function resultRecord(
  callId: string | null,
  name: string | null,
  code: ToolOutcomeCode,
  text: string,
  startedMs: number,
  maxChars: number,
  reason?: CallErrorCode,
): ToolResultRecord {
  return {
    callId,
    name,
    code,
    ...(reason ? { reason } : {}),
    content: truncateForTranscript(text, maxChars),
    chars: text.length,
    ms: round(performance.now() - startedMs),
  };
}

const round = (n: number): number => Math.round(n * 100) / 100;

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
