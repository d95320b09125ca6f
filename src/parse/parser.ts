// Owns: the parser: one incremental state machine (createParser) for streaming, and parse() = feed + end.
// It wires the scanner to the block judge, trims text, counts diagnostics and emits ParseEvents.

import { fail } from "../errors.js";
import { AUTO_FORMATS, knownFormats, resolveFormat, type ToolCallFormat } from "../formats/index.js";
import { compileValidators, type CompiledTools } from "../tools/validators.js";
import { judgeBlock, toolHints, type JudgeContext, type RawBlock } from "./block.js";
import { blockReader } from "./decoders.js";
import { MAX_DEPTH_LIMIT, PARSER_DEFAULTS, type EndOptions, type ParseLimits, type ParserOptions } from "./options.js";
import { Scanner, type ScanSink } from "./scanner.js";
import { TrimmedText } from "./text-sink.js";
import type { CallError, ParseDiagnostics, ParseEvent, ParseResult, ToolCall } from "./types.js";

export interface Parser {
  /** Feed the next piece of model output; returns the events it completes (possibly none). */
  feed(chunk: string): ParseEvent[];
  /** The output is over; returns the remaining events, ending with `finish`. Call once. */
  end(opts?: EndOptions): ParseEvent[];
}

const MAX_NOTES = 50;

/** The body formats a parser tells apart: its own first, then every other known one (immutable, built at load). */
function orderedBodies(format: ToolCallFormat | "auto"): readonly ToolCallFormat[] {
  return format === "auto" ? knownFormats() : Object.freeze([format, ...knownFormats(format).filter((f) => f !== format)]);
}
const REGISTERED_BODIES: ReadonlyMap<ToolCallFormat | "auto", readonly ToolCallFormat[]> = new Map(
  (["auto", ...knownFormats()] as const).map((f) => [f, orderedBodies(f)]),
);
const bodiesFor = (format: ToolCallFormat | "auto") => REGISTERED_BODIES.get(format) ?? orderedBodies(format);

/**
 * Create an incremental parser. Any split of the output into `feed` chunks yields the same events (up to how
 * text deltas are split) and the same `finish` result as one `feed` of the whole text. Throws QtcException
 * only for bad options (an unknown format, a tools list that does not compile).
 */
export function createParser(options: ParserOptions = {}): Parser {
  return new StreamParser(options);
}

/** Parse a complete model output: `createParser(options)`, `feed(text)`, `end(options)`. */
export function parse(text: string, options: ParserOptions & EndOptions = {}): ParseResult {
  const parser = createParser(options);
  parser.feed(text);
  const events = parser.end(options);
  const finish = events[events.length - 1];
  if (finish?.type !== "finish") fail("internal", "parser ended without a finish event", { exitCode: 1 });
  return finish.result;
}

class StreamParser implements Parser, ScanSink {
  private readonly scanner: Scanner;
  private readonly ctx: JudgeContext;
  private readonly content: TrimmedText;
  private readonly reasoningText = new TrimmedText();
  private reasoningStarted = false;
  private events: ParseEvent[] = [];
  private readonly calls: ToolCall[] = [];
  private readonly errors: CallError[] = [];
  private readonly diagnostics: ParseDiagnostics = { detected: 0, accepted: 0, rejected: {}, emitted: 0, notes: [] };
  private ended = false;

  constructor(options: ParserOptions) {
    this.content = new TrimmedText((options.text ?? PARSER_DEFAULTS.text) === "exact");
    const option = options.format ?? PARSER_DEFAULTS.format;
    const format = option === "auto" ? "auto" : resolveFormat(option);
    const tools: CompiledTools | undefined = options.tools === undefined ? undefined : compileValidators(options.tools);
    let limits: ParseLimits = PARSER_DEFAULTS.limits;
    if (options.limits) {
      limits = { ...PARSER_DEFAULTS.limits, ...options.limits };
      for (const [key, value] of Object.entries(limits)) {
        if (!Number.isInteger(value) || value < 1) fail("invalid_option", `parser limit ${key} must be a whole number ≥ 1, got ${value}`);
      }
      if (limits.maxDepth > MAX_DEPTH_LIMIT) fail("invalid_option", `parser limit maxDepth must be at most ${MAX_DEPTH_LIMIT}, got ${limits.maxDepth}`);
    }
    this.ctx = { tools, reader: blockReader(format), limits, newId: options.newId ?? PARSER_DEFAULTS.newId, truncatedStream: false, hints: toolHints(tools) };
    for (const tool of tools?.tools ?? []) for (const n of tool.notes ?? []) this.note(n);
    // "auto" scans the tags its formats share and the bare block one of them reads.
    const scanned = format === "auto" ? AUTO_FORMATS : [format];
    const bare = scanned.find((f) => f.bareBlock !== undefined)?.bareBlock;
    const thinking = options.thinking ?? PARSER_DEFAULTS.thinking;
    // Bodies are told apart in the parser's own format first, then in any other known one (their blocks get a
    // "not used here" error, but they still decide where the block ends).
    const bodies = bodiesFor(format);
    this.scanner = new Scanner(scanned[0]!, bodies, bare, thinking, limits.maxBlockBytes, this, options.untrusted ?? PARSER_DEFAULTS.untrusted);
  }

  feed(chunk: string): ParseEvent[] {
    if (this.ended) fail("internal", "parser: feed() called after end()", { exitCode: 1 });
    if (typeof chunk !== "string") fail("invalid_option", "parser: feed() takes a string");
    this.scanner.feed(chunk);
    return this.take();
  }

  end(opts: EndOptions = {}): ParseEvent[] {
    if (this.ended) fail("internal", "parser: end() called twice", { exitCode: 1 });
    this.ended = true;
    this.ctx.truncatedStream = opts.truncated === true;
    this.scanner.end(this.ctx.truncatedStream);
    const rest = this.content.end();
    if (rest !== "") this.events.push({ type: "text-delta", text: rest });
    const result: ParseResult = {
      content: this.content.value(),
      reasoning: this.reasoningStarted ? this.reasoningText.value() : null,
      calls: this.calls,
      errors: this.errors,
      diagnostics: this.diagnostics,
    };
    this.events.push({ type: "finish", result });
    return this.take();
  }

  // ScanSink: the scanner reports segments here.

  text(t: string): void {
    const delta = this.content.push(t);
    if (delta !== "") this.events.push({ type: "text-delta", text: delta });
  }

  reasoning(t: string): void {
    const delta = this.reasoningText.push(t);
    if (delta !== "") this.events.push({ type: "reasoning-delta", text: delta });
  }

  reasoningSeen(): void {
    this.content.afterThink();
    this.reasoningText.section("\n\n"); // a later think section is set apart from the earlier one
    this.reasoningStarted = true;
  }

  block(block: RawBlock, quoted?: () => boolean): boolean {
    if (block.quote !== undefined) {
      // Untrusted output quoted this block: its text stays in the answer, and it ends where a call would (its
      // close tag quoted inside a value reads on).
      if (quoted?.()) return false;
      this.text(block.raw);
      this.note(`a call block in ${block.quote} was kept as text, not run (untrusted upstream output)`);
      return true;
    }
    const verdict = judgeBlock(block, this.ctx);
    if (!verdict.ok && quoted && verdict.error.reason === "invalid_json" && quoted()) return false;
    this.content.block();
    this.diagnostics.detected++;
    if (verdict.note) this.note(verdict.note);
    if (verdict.ok) {
      this.accept(verdict.call);
    } else {
      const { reason } = verdict.error;
      this.diagnostics.rejected[reason] = (this.diagnostics.rejected[reason] ?? 0) + 1;
      this.errors.push(verdict.error);
      this.events.push({ type: "call-rejected", error: verdict.error });
    }
    return true;
  }

  reasoningCalls(blocks: readonly RawBlock[], reasoning: string): boolean {
    const verdicts = blocks.map((b) => judgeBlock(b, this.ctx));
    const calls: ToolCall[] = [];
    for (const v of verdicts) {
      if (!v.ok) return false;
      calls.push(v.call);
    }
    if (reasoning !== "") this.reasoning(reasoning);
    this.content.block();
    for (const call of calls) {
      const diagnostic = { code: "call_in_reasoning" as const, message: `the ${call.name} call ends a think block that was never closed; read as the answer's call` };
      call.diagnostics = [...(call.diagnostics ?? []), diagnostic];
      this.diagnostics.detected++;
      this.accept(call);
    }
    return true;
  }

  private accept(call: ToolCall): void {
    this.diagnostics.accepted++;
    this.diagnostics.emitted++;
    for (const d of call.diagnostics ?? []) this.note(`${call.name} call (${d.code}): ${d.message}`);
    this.calls.push(call);
    this.events.push({ type: "call", call });
  }

  note(note: string): void {
    const notes = this.diagnostics.notes;
    if (notes.length < MAX_NOTES && !notes.includes(note)) notes.push(note);
  }

  private take(): ParseEvent[] {
    const out = this.events;
    this.events = [];
    return out;
  }
}
