// Owns: calls written inside an unclosed think block (issue 43). From the first call opener in a think section
// the reasoning is held back; `</think>` releases it as reasoning, and at the end of the output the held text is
// judged: a run of complete calls that ends the output (only whitespace between and after them, or a trailing
// think opener: issue 51), whose first opener is neither inside a fence nor right after a quote, is the model's
// action; the text before it stays
// reasoning. Everything else stays reasoning, as before. The decision reads only the held text and the fences
// of the section, so every chunking of the output decides alike. In untrusted output (a proxy's upstream, issue
// 52) the rule also stays off for an output cut at the token limit, a section that nested another think, and an
// opener the section quotes (a code span, an indented line, an example intro: QuoteContext).

import type { RawBlock } from "./block.js";
import { QuoteContext } from "./quote-context.js";

/** Openers tried, from the last one back, before the held text is left as reasoning (bounds the work). */
const MAX_TRIES = 16;
/** Characters that quote an opener written right after them (`` `<tool_call>` ``, `"<tool_call>"`). */
const QUOTES = new Set(["`", '"', "'"]);
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t\r]*$/;
/** Longest line start kept to tell a fence line (indent, the run, trailing blanks). */
const LINE_KEEP = 256;

/** What the blocks after an opener scan to: the text around them, and whether anything but text and whole blocks came up. */
export interface ScannedRun {
  /** Answer text between and after the blocks (must be whitespace). */
  text: string;
  blocks: RawBlock[];
  /** A think tag, a note (prose opener, stray close, bare block…) or anything else than plain blocks. */
  other: boolean;
}

/** The fence state of reasoning text read line by line: the open fence's character and run length, if any. */
class FenceTracker {
  private fence: { char: string; len: number } | undefined;
  private line = "";

  push(text: string): void {
    let from = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", from)) {
      this.endLine(this.line + text.slice(from, Math.min(nl, from + LINE_KEEP)));
      this.line = "";
      from = nl + 1;
    }
    if (this.line.length < LINE_KEEP) this.line += text.slice(from, from + LINE_KEEP - this.line.length);
  }

  /** A fence is open at this point (fence lines take effect when they end). */
  get open(): boolean {
    return this.fence !== undefined;
  }

  copy(): FenceTracker {
    const t = new FenceTracker();
    t.fence = this.fence;
    t.line = this.line;
    return t;
  }

  private endLine(line: string): void {
    if (this.fence) {
      const m = FENCE_CLOSE.exec(line);
      if (m && m[1]![0] === this.fence.char && m[1]!.length >= this.fence.len) this.fence = undefined;
    } else {
      const m = FENCE_OPEN.exec(line);
      if (m) this.fence = { char: m[1]![0]!, len: m[1]!.length };
    }
  }
}

export interface ThinkCallsOptions {
  /** The format's call opener (`<tool_call>`). */
  open: string;
  /** The think opener (`<think>`): one that ends the output after the calls is dropped (issue 51). */
  thinkOpen: string;
  /** Scan `text` as answer text (no think phase) and report its blocks; offsets relative to `text`. */
  scan(text: string): ScannedRun;
  /** The output is untrusted (ParserOptions.untrusted). Default: false. */
  untrusted?: boolean;
}

/** The end of a think section that held a call: the reasoning before the calls and the calls' blocks. */
export interface HeldCalls {
  reasoning: string;
  blocks: RawBlock[];
}

export class ThinkCalls {
  private fences = new FenceTracker();
  private held: string | undefined;
  private heldAt = 0;
  /** The last reasoning character before the held text ("" at a section's start). */
  private before = "";
  /** Untrusted output: the section's quoting so far, and whether a think tag nested inside it. */
  private prose: QuoteContext | undefined;
  private nestedSeen = false;

  constructor(private readonly opts: ThinkCallsOptions) {
    this.prose = opts.untrusted ? new QuoteContext(false) : undefined;
  }

  /** Whether the section's text is being held (an opener was seen in it). */
  get holding(): boolean {
    return this.held !== undefined;
  }

  /** A new think section starts. */
  reset(): void {
    this.fences = new FenceTracker();
    this.held = undefined;
    this.before = "";
    this.prose = this.opts.untrusted ? new QuoteContext(false) : undefined;
    this.nestedSeen = false;
  }

  /** A think tag opened inside the section (untrusted output): its calls are never the answer's. */
  nested(): void {
    this.nestedSeen = true;
  }

  /** Reasoning that was emitted (before any opener of the section). */
  reasoning(text: string): void {
    if (text === "") return;
    this.fences.push(text);
    this.prose?.push(text);
    this.before = text[text.length - 1]!;
  }

  /** From offset `at` of the output on, the section's text is held. */
  hold(at: number): void {
    this.held = "";
    this.heldAt = at;
  }

  append(text: string): void {
    this.held += text;
  }

  /** `</think>` closed the section: the held text is reasoning after all. */
  release(): string {
    const out = this.held ?? "";
    this.reset();
    return out;
  }

  /**
   * The output ended inside the section: the calls that end it, with the reasoning before them; undefined when
   * the held text holds no such run (it is all reasoning then: `release()`). `truncated`: the output was cut at
   * the token limit.
   */
  settle(truncated = false): HeldCalls | undefined {
    if (this.held === undefined) return undefined;
    if (this.prose && (truncated || this.nestedSeen)) return undefined;
    // Qwen3.8 may open its next think block after a finished turn: a trailing opener takes nothing away from it.
    const end = this.held.trimEnd();
    const held = end.endsWith(this.opts.thinkOpen) ? end.slice(0, end.length - this.opts.thinkOpen.length) : this.held;
    const openers: number[] = [];
    for (let k = held.indexOf(this.opts.open); k >= 0; k = held.indexOf(this.opts.open, k + 1)) openers.push(k);
    // The fence state at each opener, read once over the held text.
    const fenced = new Map<number, boolean>();
    const fences = this.fences.copy();
    const prose = this.prose?.copy();
    let from = 0;
    for (const k of openers) {
      fences.push(held.slice(from, k));
      prose?.push(held.slice(from, k));
      from = k;
      fenced.set(k, fences.open || (prose !== undefined && prose.quoteBlock() !== undefined));
    }
    let best: HeldCalls | undefined;
    for (let t = openers.length - 1, tries = 0; t >= 0 && tries < MAX_TRIES; t--, tries++) {
      const k = openers[t]!;
      const run = fenced.get(k) || QUOTES.has(k === 0 ? this.before : held[k - 1]!) ? undefined : this.callsFrom(held, k);
      if (run) best = run;
      else if (best) break;
    }
    return best;
  }

  private callsFrom(held: string, k: number): HeldCalls | undefined {
    const run = this.opts.scan(held.slice(k));
    if (run.other || run.text.trim() !== "" || run.blocks.length === 0) return undefined;
    if (run.blocks.some((b) => !b.closed || !b.wrapped || b.overflow)) return undefined;
    const shift = this.heldAt + k;
    const blocks = run.blocks.map((b) => ({ ...b, start: b.start + shift, end: b.end + shift }));
    return { reasoning: held.slice(0, k), blocks };
  }
}
