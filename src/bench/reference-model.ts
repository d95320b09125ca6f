// Owns: the reference row's model: one agent run driven by node-llama-cpp's own function calling
// (LlamaChatSession + defineChatSessionFunction), bridged turn by turn to the harness loop. The session runs
// the whole conversation; each time it calls a function, the pending turn ends with that call, and the handler
// waits for the harness to run the tool and call generate() again with the result. What the session emitted
// is spelled back as hermes text and judged by OUR parser, like every other row.

import { type LlamaContextSequence, LlamaChatSession } from "node-llama-cpp";
import { hermes } from "../formats/hermes.js";
import { QWEN3_TOKENS } from "../formats/qwen3-tokens.js";
import type { AgentModel } from "../harness/types.js";
import { HARNESS_TOOLS } from "../harness/tools.js";
import { parse } from "../parse/index.js";
import { pythonJsonDumps } from "../prompt/python-json.js";
import { renderToolCall } from "../prompt/render-calls.js";
import type { ChatMessage } from "../prompt/types.js";
import { resultOf, type TurnCounts } from "../runtime/result.js";
import { compileValidators, ValidatorCache } from "../tools/index.js";
import type { GenerateRequest, GenerateResult } from "../runtime/types.js";
import { BENCH_DEFAULTS } from "./defaults.js";
import { referenceChatWrapper, referenceFunctions } from "./reference-engine.js";

export interface ReferenceRunOptions {
  /** Row name, e.g. `qtc-synthetic-tiny`. */
  name: string;
  synthetic: boolean;
  /** The one sequence the session runs on; its history is cleared first. */
  sequence: LlamaContextSequence;
  toolChoice: "auto" | "required";
  thinking: boolean;
  /** Default: BENCH_DEFAULTS.referenceTemperature (0.7, the runtime's default). */
  temperature?: number;
  /** Default: 0.8. */
  topP?: number;
  /** Default: 20. */
  topK?: number;
}

/** How a pending turn ended. */
type TurnEnd =
  | { kind: "call"; name: string; params: Record<string, unknown> | undefined }
  | { kind: "answer"; truncated: boolean }
  | { kind: "error"; message: string };

interface TurnState {
  startedAt: number;
  firstTokenAt: number | null;
  outputAt: number;
  inputAt: number;
  maxTokens: number;
  text: string;
  thought: string;
  /** The function call being written: name and raw params text as node-llama-cpp streamed it. */
  callName: string | null;
  callParams: string;
  truncated: boolean;
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The text of the tool results the harness appended after the last assistant message. */
function lastToolResults(messages: readonly ChatMessage[]): string {
  const out: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === "tool"; i--) {
    const c = messages[i]!.content;
    out.unshift(typeof c === "string" ? c : JSON.stringify(c));
  }
  return out.join("\n");
}

function textOf(m: ChatMessage | undefined): string {
  const c = m?.content;
  return typeof c === "string" ? c : c == null ? "" : JSON.stringify(c);
}

/**
 * What a pending turn ended with, as a result like every other row's: the session's text and call spelled back as
 * hermes text, judged by qtc's parser, with the sequence's token meter for the counts.
 */
function spelledBackResult(e: TurnEnd, t: TurnState, req: GenerateRequest, seq: LlamaContextSequence, validators: ValidatorCache): GenerateResult {
  const now = performance.now();
  let raw = "";
  if (t.thought) raw += `${QWEN3_TOKENS.thinkOpen.text}\n${t.thought}\n${QWEN3_TOKENS.thinkClose.text}\n\n`;
  raw += t.text;
  const name = e.kind === "call" ? e.name : t.callName;
  if (name !== null) {
    // The call as node-llama-cpp wrote it: its params text verbatim (or, if it streamed none, the params it
    // parsed, spelled as the template would). A call cut off by the budget stays cut off.
    const params = t.callParams !== "" ? t.callParams : e.kind === "call" ? pythonJsonDumps(e.params ?? {}) : "";
    let block = renderToolCall({ name, arguments: params }, hermes);
    if (e.kind !== "call") block = block.slice(0, block.length - (hermes.framing.length + hermes.close.text.length + 1));
    raw += (raw && !raw.endsWith("\n") ? hermes.blockSeparator : "") + block;
  }
  const truncated = e.kind === "answer" && e.truncated;
  const parsed = parse(raw, { tools: compileValidators(req.tools ?? [...HARNESS_TOOLS], validators), format: "hermes", truncated });
  const completionTokens = seq.tokenMeter.usedOutputTokens - t.outputAt;
  const decodeMs = t.firstTokenAt === null ? 0 : now - t.firstTokenAt;
  const outcome: TurnCounts = {
    finishReason: truncated ? "length" : "stop",
    promptTokens: seq.tokenMeter.usedInputTokens - t.inputAt,
    completionTokens,
    forcedTokens: 0,
    // The session does not hand out its token ids; these are the spelled-back text's tokens.
    tokens: seq.model.tokenize(raw, true),
    timeToFirstTokenMs: t.firstTokenAt === null ? 0 : t.firstTokenAt - t.startedAt,
    // Tokens after the first over the time after the first: the rate once the prompt is evaluated.
    decodeTokensPerSecond: completionTokens > 1 && decodeMs > 0 ? ((completionTokens - 1) * 1000) / decodeMs : 0,
    grammarMs: 0,
    totalMs: now - t.startedAt,
  };
  // node-llama-cpp's own grammar, not qtc's: a rejected call is the row's result, not a qtc bug.
  return resultOf({ parsed, outcome, raw, mode: "constrained", format: "hermes", qtcGrammar: false });
}

/**
 * One agent run on node-llama-cpp's chat session. Make one per run; `close()` stops the session. Budgets:
 * each turn may add `maxTokens` tokens (checked as chunks stream; over it, the session is stopped the way its
 * API allows, `stopOnAbortSignal`, which ends the run: node-llama-cpp cannot resume a stopped prompt).
 */
export function createReferenceRun(opts: ReferenceRunOptions): AgentModel {
  const seq = opts.sequence;
  // The run's own: the loop sends the same tools every turn.
  const validators = new ValidatorCache();
  const abort = new AbortController();
  let session: LlamaChatSession | null = null;
  let finished = false;
  let turn: TurnState | null = null;
  let settle: ((end: TurnEnd) => void) | null = null;
  let giveResult: ((text: string) => void) | null = null;

  const end = (e: TurnEnd): void => {
    const s = settle;
    settle = null;
    s?.(e);
  };
  const checkBudget = (): void => {
    if (!turn) return;
    turn.firstTokenAt ??= performance.now();
    if (seq.tokenMeter.usedOutputTokens - turn.outputAt >= turn.maxTokens && !abort.signal.aborted) {
      turn.truncated = true;
      abort.abort();
    }
  };

  const functions = referenceFunctions(async (name, params) => {
    if (abort.signal.aborted) return "";
    const result = new Promise<string>((resolve) => (giveResult = resolve));
    end({ kind: "call", name, params });
    return await result;
  });

  function start(req: GenerateRequest): void {
    const system = req.messages.find((m) => m.role === "system");
    const user = req.messages.find((m) => m.role === "user");
    session = new LlamaChatSession({
      contextSequence: seq,
      chatWrapper: referenceChatWrapper({ thinking: req.thinking ?? false, toolChoice: opts.toolChoice }),
      systemPrompt: textOf(system),
      autoDisposeSequence: false,
    });
    session
      .prompt(textOf(user), {
        functions,
        maxParallelFunctionCalls: 1,
        temperature: opts.temperature ?? BENCH_DEFAULTS.referenceTemperature,
        topP: opts.topP ?? BENCH_DEFAULTS.referenceTopP,
        topK: opts.topK ?? BENCH_DEFAULTS.referenceTopK,
        seed: req.seed,
        signal: abort.signal,
        stopOnAbortSignal: true,
        budgets: { thoughtTokens: req.thinking ? Math.floor((req.maxTokens ?? BENCH_DEFAULTS.maxTokens) / 2) : 0 },
        onResponseChunk: (chunk) => {
          if (!turn) return;
          if (chunk.type === "segment") turn.thought += chunk.text;
          else turn.text += chunk.text;
          checkBudget();
        },
        onFunctionCallParamsChunk: (chunk) => {
          if (!turn) return;
          if (turn.callName !== chunk.functionName) {
            turn.callName = chunk.functionName;
            turn.callParams = "";
          }
          turn.callParams += chunk.paramsChunk;
          checkBudget();
        },
      })
      .then(
        () => {
          finished = true;
          end({ kind: "answer", truncated: turn?.truncated ?? false });
        },
        (e: unknown) => {
          finished = true;
          end(abort.signal.aborted ? { kind: "answer", truncated: turn?.truncated ?? false } : { kind: "error", message: messageOf(e) });
        },
      );
  }

  return {
    name: opts.name,
    synthetic: opts.synthetic,
    async generate(req: GenerateRequest): Promise<GenerateResult> {
      const t: TurnState = {
        startedAt: performance.now(),
        firstTokenAt: null,
        outputAt: seq.tokenMeter.usedOutputTokens,
        inputAt: seq.tokenMeter.usedInputTokens,
        maxTokens: req.maxTokens ?? BENCH_DEFAULTS.maxTokens,
        text: "",
        thought: "",
        callName: null,
        callParams: "",
        truncated: false,
      };
      const pending = new Promise<TurnEnd>((resolve) => (settle = resolve));
      const onAbort = (): void => abort.abort();
      req.signal?.addEventListener("abort", onAbort, { once: true });
      turn = t;
      if (session === null) {
        await seq.clearHistory();
        start(req);
      } else if (giveResult !== null && !finished) {
        const give = giveResult;
        giveResult = null;
        give(lastToolResults(req.messages));
      } else {
        // The session already ended (a final answer, or a stop at the budget): nothing more to say.
        end({ kind: "answer", truncated: false });
      }
      try {
        const e = await pending;
        if (e.kind === "error") throw new Error(`node-llama-cpp's chat session failed: ${e.message}`);
        return spelledBackResult(e, t, req, seq, validators);
      } finally {
        req.signal?.removeEventListener("abort", onAbort);
        turn = null;
      }
    },
    async close(): Promise<void> {
      abort.abort();
      session?.dispose({ disposeSequence: false });
      session = null;
    },
  };
}
