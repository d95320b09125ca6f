// Owns: the incremental scanner: splits assistant output into answer text, reasoning and call blocks, one
// chunk at a time, holding back only what could still be the start of a tag. Batch parsing is the same
// scanner fed once, so every chunking yields the same segments.
//
// Modes: `undecided` (thinking "auto": start of output until a think tag decides it), `text`, `think`,
// `fence` (``` or ~~~ code block: plain text), `block` (inside the open/close tags) and `bare` (a block the
// format also reads without the wrapper, such as qwen3coder's `<function=…>`, at a line start). Fences and bare blocks are recognized after a
// newline, or at the very start of the stream (checked on its own, so the text is never copied to prepend one).
// Where a wrapped block ends, and the block's state meanwhile, is block-end.ts's (BlockEnd): it reads and moves
// this scanner's cursor (buffer, offset, position, mode) while a block is open.

import { QWEN3_TOKENS, type BareBlock, type ToolCallFormat } from "../formats/index.js";
import { BlockEnd, type Mode, type ScanCursor, type ScanSink } from "./block-end.js";
import type { ThinkingStart } from "./options.js";
import type { RawBlock } from "./block.js";
import { FENCE_AT_START, FENCE_RE, partialSuffix, patternsFor, THINK_RE } from "./scan-patterns.js";
import { QuoteContext } from "./quote-context.js";
import { ThinkCalls, type ScannedRun } from "./think-calls.js";

export type { ScanSink } from "./block-end.js";

const THINK_OPEN = QWEN3_TOKENS.thinkOpen.text;
const THINK_CLOSE = QWEN3_TOKENS.thinkClose.text;

export class Scanner implements ScanCursor {
  buf = "";
  base = 0;
  pos = 0;
  mode: Mode;
  /** The open block's text and state, and the judgement of where it ends. */
  private readonly block: BlockEnd;
  private readonly open: string;
  private readonly close: string;
  private readonly textRe: RegExp;
  private readonly fenceRe = FENCE_RE;
  private readonly thinkRe = THINK_RE;
  private readonly textTags: readonly string[];
  private readonly maxTagLen: number;
  private readonly tailWindow: number;
  private readonly bareAtStart: RegExp | undefined;
  private readonly bareNote: string;
  private fenceChar = "";
  private fenceLen = 0;
  /** Calls written at the end of an unclosed think block (issue 43). */
  private readonly thinkCalls: ThinkCalls;
  /** Untrusted output only: where an opener in answer text is quoted (issue 52). */
  private readonly prose: QuoteContext | undefined;
  /** Untrusted output only: think tags opened inside think sections and not closed yet (countNested). */
  private thinkDepth = 0;

  /**
   * @param format whose open/close tags wrap calls (both Qwen formats share them)
   * @param bodies the formats whose bodies a block may hold (they decide where a block ends; docs/parser.md)
   * @param bare the bare block to recognize at a line start (qwen3coder's `<function=`, also in auto); undefined for none
   * @param maxBlockChars inner length (UTF-16 units) past which a block is kept only as a preview (too_large)
   * @param untrusted the output of an engine qtc did not constrain (ParserOptions.untrusted)
   */
  constructor(
    private readonly format: ToolCallFormat,
    private readonly bodies: readonly ToolCallFormat[],
    private readonly bare: BareBlock | undefined,
    thinking: ThinkingStart,
    private readonly maxBlockChars: number,
    private readonly sink: ScanSink,
    private readonly untrusted = false,
  ) {
    this.open = format.open.text;
    this.close = format.close.text;
    this.mode = thinking === "open" ? "think" : thinking === "closed" ? "text" : "undecided";
    if (this.mode === "think") sink.reasoningSeen();
    const patterns = patternsFor(format, bare);
    this.textRe = patterns.text;
    this.textTags = patterns.tags;
    this.maxTagLen = patterns.maxTagLen;
    this.tailWindow = patterns.tailWindow;
    this.bareAtStart = patterns.bareAtStart;
    this.bareNote = bare ? `bare ${bare.label} block without the ${this.open} wrapper` : "";
    this.prose = untrusted ? new QuoteContext(true) : undefined;
    const prose = this.prose;
    const quoteAt = prose ? () => (this.thinkDepth > 0 ? "a think block nested in another" : prose.quoteBlock()) : undefined;
    this.block = new BlockEnd(this, { open: this.open, close: this.close, bodies, maxBlockChars, sink, ...(quoteAt ? { quoteAt } : {}) });
    this.thinkCalls = new ThinkCalls({ open: this.open, thinkOpen: THINK_OPEN, scan: (text) => this.scanRun(text), untrusted });
  }

  /** Scan `text` on its own as answer text and collect its blocks (for ThinkCalls). */
  private scanRun(text: string): ScannedRun {
    const run: ScannedRun = { text: "", blocks: [], other: false };
    const sink: ScanSink = {
      text: (t) => void (run.text += t),
      reasoning: () => void (run.other = true),
      reasoningSeen: () => void (run.other = true),
      block: (b: RawBlock) => {
        if (b.quote !== undefined) run.other = true;
        run.blocks.push(b);
        return true;
      },
      reasoningCalls: () => false,
      note: () => void (run.other = true),
    };
    const scanner = new Scanner(this.format, this.bodies, this.bare, "closed", this.maxBlockChars, sink, this.untrusted);
    scanner.feed(text);
    scanner.end();
    return run;
  }

  feed(chunk: string): void {
    if (chunk === "") return;
    this.buf = this.pos === 0 ? this.buf + chunk : this.buf.slice(this.pos) + chunk;
    this.base += this.pos;
    this.pos = 0;
    this.loop(false);
  }

  /** The output is over (`truncated`: cut at the token limit): flush everything held back and close whatever is open. */
  end(truncated = false): void {
    for (;;) {
      this.loop(true);
      if (this.mode === "undecided") this.replayAsText();
      else if (this.mode !== "block" || !this.block.settle()) break;
    }
    if (this.mode === "block" || this.mode === "bare") this.block.finish(false, this.base + this.buf.length);
    else if (this.mode === "think") {
      const calls = this.thinkCalls.settle(truncated);
      if (!calls || !this.sink.reasoningCalls(calls.blocks, calls.reasoning)) this.emitHeld(this.thinkCalls.release());
      this.sink.note("reasoning was not closed with </think>");
    }
    this.buf = "";
    this.base += this.pos;
    this.pos = 0;
  }

  private loop(final: boolean): void {
    for (;;) {
      let more: boolean;
      switch (this.mode) {
        case "text": more = this.scanText(final); break;
        case "block": more = this.block.scan(final); break;
        case "bare": more = this.block.collectUntil(this.bare!.close, final, true); break;
        case "think": more = this.scanThink(final); break;
        case "fence": more = this.scanFence(final); break;
        case "undecided": more = this.scanUndecided(final); break;
      }
      if (!more) return;
    }
  }

  private scanText(final: boolean): boolean {
    if (this.base + this.pos === 0) {
      const atStart = this.scanStreamStart(final);
      if (atStart !== undefined) return atStart;
    }
    const { buf } = this;
    const re = this.textRe;
    re.lastIndex = this.pos;
    const m = re.exec(buf);
    if (!m) {
      const hold = final ? buf.length : this.wholePairs(this.textHold());
      this.emitText(this.pos, hold);
      this.pos = hold;
      return false;
    }
    const j = m.index;
    if (m[1] !== undefined) {
      this.emitText(this.pos, j);
      this.block.start(j, "block");
      this.pos = j + this.open.length;
    } else if (m[2] !== undefined && this.prose?.quoted() !== undefined) {
      this.emitText(this.pos, j + this.close.length); // a close tag quoted in untrusted text is text
      this.pos = j + this.close.length;
    } else if (m[2] !== undefined) {
      this.emitText(this.pos, j);
      this.sink.note(`stray ${this.close} without an open tag dropped`);
      this.pos = j + this.close.length;
    } else if (m[3] !== undefined) {
      this.emitText(this.pos, j);
      this.sink.reasoningSeen();
      this.thinkCalls.reset();
      this.mode = "think";
      this.pos = j + THINK_OPEN.length;
    } else if (m[4] !== undefined && this.thinkDepth > 0) {
      this.emitText(this.pos, j);
      this.thinkDepth--; // the outer think of a nested one closes here (untrusted output)
      this.pos = j + THINK_CLOSE.length;
    } else if (m[4] !== undefined) {
      this.emitText(this.pos, j);
      this.sink.note(`stray ${THINK_CLOSE} without ${THINK_OPEN} dropped`);
      this.pos = j + THINK_CLOSE.length;
    } else if (m[6] !== undefined) {
      const k = j + 1 + m[5]!.length;
      this.emitText(this.pos, k);
      this.sink.note(this.bareNote);
      this.block.start(k, "bare");
      this.pos = k;
    } else {
      const end = j + m[0].length;
      if (end === buf.length && !final) {
        // The run may go on in the next chunk (```` cut after ```): its length decides what closes the fence.
        this.emitText(this.pos, j);
        this.pos = j;
        return false;
      }
      this.emitText(this.pos, end);
      this.fenceChar = m[8]![0]!;
      this.fenceLen = m[8]!.length;
      this.mode = "fence";
      this.prose?.fenced();
      this.pos = end;
    }
    return true;
  }

  /**
   * The stream's first line: a fence or a bare block may open right at offset 0. Returns true after a
   * transition, false to wait for more text, undefined to scan normally.
   */
  private scanStreamStart(final: boolean): boolean | undefined {
    const { buf } = this;
    FENCE_AT_START.lastIndex = 0;
    const fence = FENCE_AT_START.exec(buf);
    if (fence) {
      if (fence[0].length === buf.length && !final) return false; // the run may go on (see scanText)
      this.emitText(0, fence[0].length);
      this.fenceChar = fence[1]![0]!;
      this.fenceLen = fence[1]!.length;
      this.mode = "fence";
      this.prose?.fenced();
      this.pos = fence[0].length;
      return true;
    }
    if (this.bareAtStart) {
      this.bareAtStart.lastIndex = 0;
      const bare = this.bareAtStart.exec(buf);
      if (bare) {
        const k = bare[1]!.length;
        this.emitText(0, k);
        this.sink.note(this.bareNote);
        this.block.start(k, "bare");
        this.pos = k;
        return true;
      }
    }
    if (final) return undefined;
    if (/^ {0,3}(?:`{0,2}|~{0,2})$/.test(buf)) return false;
    if (this.bare) {
      const m = /^[ \t]{0,16}(<[^\n]*)?$/.exec(buf);
      if (m && (m[1] === undefined || this.bare.open.startsWith(m[1]))) return false;
    }
    return undefined;
  }

  /** How much of the buffer's tail must wait: a proper prefix of a tag, or a line start that may open a fence or bare block. */
  private textHold(): number {
    const { buf, pos } = this;
    const len = buf.length;
    // Only the last few characters can matter: scan them once, backwards, for the last "<" and "\n".
    const stop = Math.max(pos, len - this.tailWindow);
    let lt = -1;
    let nl = -1;
    for (let k = len - 1; k >= stop; k--) {
      const c = buf.charCodeAt(k);
      if (c === 60 && lt < 0) lt = k;
      else if (c === 10) {
        nl = k;
        break;
      }
    }
    let hold = len;
    if (lt >= 0 && lt > len - this.maxTagLen) {
      const tail = buf.slice(lt);
      for (const t of this.textTags) {
        if (t.startsWith(tail)) {
          hold = lt;
          break;
        }
      }
    }
    if (nl >= 0 && nl < hold) {
      const tail = buf.slice(nl);
      if (/^\n {0,3}(?:`{0,2}|~{0,2})$/.test(tail)) hold = nl;
      else if (this.bare) {
        const m = /^\n[ \t]{0,16}(<[^\n]*)?$/.exec(tail);
        if (m && (m[1] === undefined || this.bare.open.startsWith(m[1]))) hold = nl;
      }
    }
    return hold;
  }

  private scanThink(final: boolean): boolean {
    const j = this.buf.indexOf(THINK_CLOSE, this.pos);
    if (j < 0) {
      let partial = Math.min(partialSuffix(this.buf, this.pos, THINK_CLOSE), partialSuffix(this.buf, this.pos, this.open));
      if (this.untrusted) partial = Math.min(partial, partialSuffix(this.buf, this.pos, THINK_OPEN));
      const hold = final ? this.buf.length : this.wholePairs(partial);
      this.countNested(this.pos, hold);
      this.thinkText(this.pos, hold);
      this.pos = hold;
      return false;
    }
    this.countNested(this.pos, j);
    this.thinkText(this.pos, j);
    this.emitHeld(this.thinkCalls.release());
    this.pos = j + THINK_CLOSE.length;
    this.mode = "text";
    return true;
  }

  /**
   * Untrusted output: think tags opened inside the section. Its first close still ends it (the boundaries stay
   * the trusted parse's), but a block before as many more closes is still inside the outer think: quoted text.
   */
  private countNested(from: number, to: number): void {
    if (!this.untrusted) return;
    for (let k = this.buf.indexOf(THINK_OPEN, from); k >= 0 && k + THINK_OPEN.length <= to; k = this.buf.indexOf(THINK_OPEN, k + 1)) {
      this.thinkDepth++;
      this.thinkCalls.nested();
    }
  }

  /** Reasoning from `from` to `to`: emitted up to the section's first call opener, held from there (ThinkCalls). */
  private thinkText(from: number, to: number): void {
    if (to <= from) return;
    if (!this.thinkCalls.holding) {
      const k = this.buf.indexOf(this.open, from);
      const upto = k < 0 || k >= to ? to : k;
      this.emitReasoning(from, upto);
      this.thinkCalls.reasoning(this.buf.slice(from, upto));
      if (upto === to) return;
      this.thinkCalls.hold(this.base + k);
      from = k;
    }
    this.thinkCalls.append(this.buf.slice(from, to));
  }

  private emitHeld(text: string): void {
    if (text !== "") this.sink.reasoning(text);
  }

  private scanFence(final: boolean): boolean {
    const { buf } = this;
    const re = this.fenceRe;
    re.lastIndex = this.pos;
    for (let m = re.exec(buf); m; m = re.exec(buf)) {
      const j = m.index;
      const end = j + m[0].length;
      if (m[1]![0] !== this.fenceChar || m[1]!.length < this.fenceLen || (end < buf.length && buf[end] !== "\n")) {
        re.lastIndex = j + 1;
        continue;
      }
      if (end === buf.length && !final) {
        this.emitText(this.pos, j);
        this.pos = j;
        return false;
      }
      this.emitText(this.pos, end);
      this.pos = end;
      this.mode = "text";
      this.prose?.fenced();
      return true;
    }
    let hold = buf.length;
    if (!final) {
      const nl = buf.lastIndexOf("\n");
      if (nl >= this.pos && /^\n {0,3}(?:`*|~*)[ \t\r]*$/.test(buf.slice(nl))) hold = nl;
      hold = this.wholePairs(hold);
    }
    this.emitText(this.pos, hold);
    this.pos = hold;
    return false;
  }

  private scanUndecided(final: boolean): boolean {
    const re = this.thinkRe;
    re.lastIndex = this.pos;
    const m = re.exec(this.buf);
    if (!m) {
      let hold = this.buf.length;
      if (!final) hold = Math.min(partialSuffix(this.buf, this.pos, THINK_OPEN), partialSuffix(this.buf, this.pos, THINK_CLOSE));
      this.block.append(this.pos, hold, true);
      this.pos = hold;
      return false;
    }
    if (m[1] !== undefined) {
      // `<think>` first: the start was answer text after all. Re-scan it as text from the stream start.
      this.block.append(this.pos, m.index, true);
      this.pos = m.index;
      this.replayAsText();
      return true;
    }
    this.block.append(this.pos, m.index, true);
    const prefix = this.block.takeParts();
    this.sink.reasoningSeen();
    if (prefix !== "") this.sink.reasoning(prefix);
    this.pos = m.index + THINK_CLOSE.length;
    this.mode = "text";
    return true;
  }

  private replayAsText(): void {
    const prefix = this.block.takeParts();
    this.buf = prefix === "" ? this.buf.slice(this.pos) : prefix + this.buf.slice(this.pos);
    this.base = 0;
    this.pos = 0;
    this.mode = "text";
  }

  /** Never end a streamed delta between the two halves of a surrogate pair: hold a trailing high surrogate. */
  private wholePairs(hold: number): number {
    const c = this.buf.charCodeAt(hold - 1);
    return hold > this.pos && c >= 0xd800 && c <= 0xdbff ? hold - 1 : hold;
  }

  private emitText(from: number, to: number): void {
    if (to <= from) return;
    const text = this.buf.slice(from, to);
    if (this.prose && this.mode === "text") this.prose.push(text);
    this.sink.text(text);
  }

  private emitReasoning(from: number, to: number): void {
    if (to > from) this.sink.reasoning(this.buf.slice(from, to));
  }
}
