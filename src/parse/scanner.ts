// Owns: the incremental scanner: splits assistant output into answer text, reasoning and call blocks, one
// chunk at a time, holding back only what could still be the start of a tag. Batch parsing is the same
// scanner fed once, so every chunking yields the same segments.
//
// Modes: `undecided` (thinking "auto": start of output until a think tag decides it), `text`, `think`,
// `fence` (``` or ~~~ code block: plain text), `block` (inside the open/close tags) and `bare` (a block the
// format also reads without the wrapper, such as qwen3coder's `<function=…>`, at a line start). Fences and bare blocks are recognized after a
// newline, or at the very start of the stream (checked on its own, so the text is never copied to prepend one).
// Where a wrapped block ends is the format's call (startsBody, closesAt, bodyComplete): a close tag quoted inside
// a value does not end it, an open tag after a whole body does, and an opener followed by prose is text.

import { QWEN3_TOKENS, type BareBlock, type ToolCallFormat } from "../formats/index.js";
import type { RawBlock } from "./block.js";
import type { ThinkingStart } from "./options.js";
import { FENCE_AT_START, FENCE_RE, partialSuffix, patternsFor, THINK_RE } from "./scan-patterns.js";

export interface ScanSink {
  text(text: string): void;
  reasoning(text: string): void;
  /** A think section was entered (reasoning becomes non-null). */
  reasoningSeen(): void;
  /**
   * A block is complete. With `quoted` (a JSON-string format, whose body cannot decode when its close tag was
   * quoted): the sink may refuse a block that does not decode when `quoted()` says the close fell inside a
   * value; it records nothing then and returns false, and the scanner reads on.
   */
  block(block: RawBlock, quoted?: () => boolean): boolean;
  note(note: string): void;
}

type Mode = "undecided" | "text" | "think" | "fence" | "block" | "bare";

const RAW_PREVIEW = 256;
/**
 * Open and close tags inside one block whose body is judged (each judgement reads the block so far): past this,
 * a close tag ends the block (at the first quoted close, if any) and an open tag is text. Bounds the work a
 * hostile output full of tags can cause to linear.
 */
const MAX_TAG_CHECKS = 32;
/** How far past an open tag inside a block the scanner looks for the start of a body (whitespace included). */
const BODY_LOOKAHEAD = 64;
const THINK_OPEN = QWEN3_TOKENS.thinkOpen.text;
const THINK_CLOSE = QWEN3_TOKENS.thinkClose.text;

export class Scanner {
  private buf = "";
  private base = 0;
  private pos = 0;
  private mode: Mode;
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
  // current block or undecided prefix
  private parts: string[] = [];
  private partsLen = 0;
  private overflow = false;
  private blockStart = 0;
  /** Offset in the block's inner text of the first close tag that fell inside a value (the fallback end). */
  private quotedClose: number | undefined;
  /** Absolute offset after the quoted close while its value must end on that line (JSON strings); undefined otherwise. */
  private quotedLine: number | undefined;
  private quotedBy: ToolCallFormat | undefined;
  private tagChecks = 0;
  private fenceChar = "";
  private fenceLen = 0;

  /**
   * @param format whose open/close tags wrap calls (both Qwen formats share them)
   * @param bare the bare block to recognize at a line start (qwen3coder's `<function=`, also in auto); undefined for none
   * @param maxBlockChars inner length (UTF-16 units) past which a block is kept only as a preview (too_large)
   * @param bodies the formats whose bodies a block may hold (they decide where a block ends; docs/parser.md)
   */
  constructor(
    format: ToolCallFormat,
    private readonly bodies: readonly ToolCallFormat[],
    private readonly bare: BareBlock | undefined,
    thinking: ThinkingStart,
    private readonly maxBlockChars: number,
    private readonly sink: ScanSink,
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
  }

  feed(chunk: string): void {
    if (chunk === "") return;
    this.buf = this.pos === 0 ? this.buf + chunk : this.buf.slice(this.pos) + chunk;
    this.base += this.pos;
    this.pos = 0;
    this.loop(false);
  }

  /** The output is over: flush everything held back and close whatever is open. */
  end(): void {
    for (;;) {
      this.loop(true);
      if (this.mode === "undecided") this.replayAsText();
      else if (this.mode !== "block" || !this.settleOpenBlock()) break;
    }
    if (this.mode === "block" || this.mode === "bare") this.finishBlock(false, this.base + this.buf.length);
    else if (this.mode === "think") this.sink.note("reasoning was not closed with </think>");
    this.buf = "";
    this.base += this.pos;
    this.pos = 0;
  }

  private loop(final: boolean): void {
    for (;;) {
      let more: boolean;
      switch (this.mode) {
        case "text": more = this.scanText(final); break;
        case "block": more = this.scanBlock(final); break;
        case "bare": more = this.scanUntil(this.bare!.close, final, true); break;
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
      this.startBlock(j, "block");
      this.pos = j + this.open.length;
    } else if (m[2] !== undefined) {
      this.emitText(this.pos, j);
      this.sink.note(`stray ${this.close} without an open tag dropped`);
      this.pos = j + this.close.length;
    } else if (m[3] !== undefined) {
      this.emitText(this.pos, j);
      this.sink.reasoningSeen();
      this.mode = "think";
      this.pos = j + THINK_OPEN.length;
    } else if (m[4] !== undefined) {
      this.emitText(this.pos, j);
      this.sink.note(`stray ${THINK_CLOSE} without ${THINK_OPEN} dropped`);
      this.pos = j + THINK_CLOSE.length;
    } else if (m[6] !== undefined) {
      const k = j + 1 + m[5]!.length;
      this.emitText(this.pos, k);
      this.sink.note(this.bareNote);
      this.startBlock(k, "bare");
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
        this.startBlock(k, "bare");
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
      const hold = final ? this.buf.length : this.wholePairs(partialSuffix(this.buf, this.pos, THINK_CLOSE));
      this.emitReasoning(this.pos, hold);
      this.pos = hold;
      return false;
    }
    this.emitReasoning(this.pos, j);
    this.pos = j + THINK_CLOSE.length;
    this.mode = "text";
    return true;
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

  /**
   * Inside a wrapped block. A close tag ends it unless it falls inside a value (then it is quoted text, and the
   * first such close is the fallback end). An open tag ends it when its body is already whole (a missing close
   * tag), restarts it when what came before is not a body at all (prose that named the tag), and is quoted text
   * otherwise. A block with an oversized or blocked body falls back to its first close.
   */
  private scanBlock(final: boolean): boolean {
    if (this.overflow) return this.scanUntil(this.close, final, false);
    const { buf, open, close } = this;
    for (;;) {
      const jc = buf.indexOf(close, this.pos);
      const jo = buf.indexOf(open, this.pos);
      const j = jo < 0 || (jc >= 0 && jc < jo) ? jc : jo;
      if (this.quoteLineBroke(j >= 0 ? j : buf.length)) return true;
      if (j < 0) {
        const hold = final ? buf.length : Math.min(partialSuffix(buf, this.pos, close), partialSuffix(buf, this.pos, open));
        return this.keep(hold);
      }
      const isClose = j === jc;
      const tagEnd = j + (isClose ? close.length : open.length);
      const judged = this.tagChecks < MAX_TAG_CHECKS;
      let opensCall = false;
      if (judged && !isClose) {
        const next = this.callAfter(tagEnd, final);
        if (next === undefined) return this.keep(j);
        opensCall = next;
      }
      this.tagChecks++;
      if (opensCall && this.quotedClose !== undefined) {
        // A call starts after the quoted close: that close was real, and the next call is never swallowed.
        this.fallBackToQuotedClose();
        return true;
      }
      if (!judged && !isClose) {
        if (this.keep(tagEnd)) return true;
        continue;
      }
      if (!judged && this.quotedClose !== undefined) {
        this.fallBackToQuotedClose();
        return true;
      }
      const inner = judged ? this.innerUpTo(j) : "";
      const body = judged ? this.bodyOf(inner) : undefined;
      if (isClose) {
        // A body that cannot decode with its close quoted (JSON strings) is judged first: the quote check runs
        // only for a block that fails, so valid blocks cost nothing extra.
        const fits = this.partsLen + (j - this.pos) <= this.maxBlockChars; // else too_large, with only a preview
        if (body && !body.valuesSpanLines && this.quotedClose === undefined && fits) {
          if (this.tryFinish(j, tagEnd, () => !body.closesAt(inner))) return true;
        } else if (!body || body.closesAt(inner)) {
          this.append(this.pos, j);
          this.pos = tagEnd;
          this.finishBlock(true, this.base + this.pos);
          return true;
        }
        if (this.quotedClose === undefined) {
          this.quotedClose = this.partsLen + (j - this.pos);
          this.quotedBy = body;
          this.quotedLine = body.valuesSpanLines ? undefined : this.base + tagEnd;
        }
      } else if (this.quotedClose === undefined) {
        if (inner.trim() === "") {
          this.sink.note(`stray ${open} without a body dropped`);
          this.startBlock(j, "block");
          this.pos = tagEnd;
          return true;
        }
        if (!body && !brokenCall(inner)) {
          this.replayProse();
          return true;
        }
        if (!body && !opensCall) {
          if (this.keep(tagEnd)) return true;
          continue;
        }
        if (!body || body.bodyComplete(inner)) {
          this.append(this.pos, j);
          this.finishBlock(false, this.base + j);
          this.startBlock(j, "block");
          this.pos = tagEnd;
          return true;
        }
      }
      if (this.keep(tagEnd)) return true;
    }
  }

  /**
   * Keep the block's text up to `to` (a quoted tag, or what the buffer holds). Returns true when that would
   * make a block with a quoted close too large: it fell back to that close instead.
   */
  private keep(to: number): boolean {
    if (this.quotedClose !== undefined && this.partsLen + (to - this.pos) > this.maxBlockChars) {
      this.fallBackToQuotedClose();
      return true;
    }
    this.append(this.pos, to);
    this.pos = to;
    return false;
  }

  /**
   * A close quoted inside a value that cannot span lines: if the line ends (before `limit`) while still inside
   * that value, the close was real; fall back to it. Returns true when it did.
   */
  private quoteLineBroke(limit: number): boolean {
    if (this.quotedLine === undefined) return false;
    const nl = this.buf.indexOf("\n", Math.max(this.pos, this.quotedLine - this.base));
    if (nl < 0 || nl >= limit) return false;
    this.quotedLine = undefined;
    if (this.quotedBy!.closesAt(this.innerUpTo(nl))) return false;
    this.fallBackToQuotedClose();
    return true;
  }

  /**
   * Whether a call starts after the open tag ending at `from`: a body in a known form, or a tag (a broken call).
   * Only the first BODY_LOOKAHEAD units decide, so every chunking agrees; undefined while the buffer ends before
   * that is known.
   */
  private callAfter(from: number, final: boolean): boolean | undefined {
    const after = this.buf.slice(from, from + BODY_LOOKAHEAD);
    if (startsWithTag(after) || this.bodies.some((f) => f.startsBody(after))) return true;
    const undecided = !final && from + BODY_LOOKAHEAD > this.buf.length && (after.trim() === "" || this.bodies.some((f) => f.startsBody(after, true)));
    return undecided ? undefined : false;
  }

  /** The first format whose body `inner` starts (a loop, not find: this runs once per block). */
  private bodyOf(inner: string): ToolCallFormat | undefined {
    for (const f of this.bodies) if (f.startsBody(inner)) return f;
    return undefined;
  }

  /** The block's inner text from its open tag up to `j` in the buffer (parts already taken plus the buffer). */
  private innerUpTo(j: number): string {
    if (this.parts.length === 0) return this.buf.slice(this.pos, j); // batch: a slice, never a copy
    const head = this.parts.length === 1 ? this.parts[0]! : this.parts.join("");
    return head + this.buf.slice(this.pos, j);
  }

  /**
   * The output ended inside a wrapped block: fall back to its first quoted close, or read an opener followed by
   * prose (no body in any form) as text. Returns true when it put text back to scan.
   */
  private settleOpenBlock(): boolean {
    if (this.overflow) return false;
    if (this.quotedClose !== undefined) {
      this.fallBackToQuotedClose();
      return true;
    }
    const inner = this.innerUpTo(this.buf.length);
    if (inner.trim() === "" || brokenCall(inner) || this.bodies.some((f) => f.startsBody(inner, true))) return false;
    this.replayProse();
    return true;
  }

  /** End the block at its first quoted close after all, and scan what followed that close as text again. */
  private fallBackToQuotedClose(): void {
    const cut = this.quotedClose!;
    const all = this.takeParts() + this.buf.slice(this.pos);
    const end = this.blockStart + this.open.length + cut + this.close.length;
    this.sink.note(`a ${this.close} inside a value had no later close; the block ends at that first ${this.close}`);
    this.parts = [all.slice(0, cut)];
    this.partsLen = cut;
    this.finishBlock(true, end);
    this.buf = all.slice(cut + this.close.length);
    this.base = end;
    this.pos = 0;
  }

  /** The block's opener was prose naming the tag: it is text, and scanning resumes right after it. */
  private replayProse(): void {
    const after = this.blockStart + this.open.length;
    const rest = this.takeParts() + this.buf.slice(this.pos);
    this.sink.note(`${this.open} followed by prose, not a call body: kept as text`);
    this.sink.text(this.open);
    this.mode = "text";
    this.quotedClose = undefined;
    this.quotedLine = undefined;
    this.buf = rest;
    this.base = after;
    this.pos = 0;
  }

  /** Inside a block: collect text until `close` (the format's close tag, or the bare block's end). */
  private scanUntil(close: string, final: boolean, bare: boolean): boolean {
    const j = this.buf.indexOf(close, this.pos);
    if (j < 0) {
      const hold = final ? this.buf.length : partialSuffix(this.buf, this.pos, close);
      this.append(this.pos, hold);
      this.pos = hold;
      return false;
    }
    if (bare) {
      this.append(this.pos, j + close.length);
      this.pos = j + close.length;
      this.finishBlock(true, this.base + this.pos);
    } else {
      this.append(this.pos, j);
      this.pos = j + close.length;
      this.finishBlock(true, this.base + this.pos);
    }
    return true;
  }

  private scanUndecided(final: boolean): boolean {
    const re = this.thinkRe;
    re.lastIndex = this.pos;
    const m = re.exec(this.buf);
    if (!m) {
      let hold = this.buf.length;
      if (!final) hold = Math.min(partialSuffix(this.buf, this.pos, THINK_OPEN), partialSuffix(this.buf, this.pos, THINK_CLOSE));
      this.append(this.pos, hold, true);
      this.pos = hold;
      return false;
    }
    if (m[1] !== undefined) {
      // `<think>` first: the start was answer text after all. Re-scan it as text from the stream start.
      this.append(this.pos, m.index, true);
      this.pos = m.index;
      this.replayAsText();
      return true;
    }
    this.append(this.pos, m.index, true);
    const prefix = this.takeParts();
    this.sink.reasoningSeen();
    if (prefix !== "") this.sink.reasoning(prefix);
    this.pos = m.index + THINK_CLOSE.length;
    this.mode = "text";
    return true;
  }

  private replayAsText(): void {
    const prefix = this.takeParts();
    this.buf = prefix === "" ? this.buf.slice(this.pos) : prefix + this.buf.slice(this.pos);
    this.base = 0;
    this.pos = 0;
    this.mode = "text";
  }

  private startBlock(at: number, mode: "block" | "bare"): void {
    this.mode = mode;
    this.blockStart = this.base + at;
    this.parts = [];
    this.partsLen = 0;
    this.overflow = false;
    this.quotedClose = undefined;
    this.quotedLine = undefined;
    this.tagChecks = 0;
  }

  private append(from: number, to: number, unbounded = false): void {
    if (to <= from) return;
    const text = this.buf.slice(from, to);
    if (this.overflow) return;
    this.partsLen += text.length;
    if (!unbounded && this.partsLen > this.maxBlockChars) {
      this.overflow = true;
      this.parts = [(this.parts.join("") + text).slice(0, RAW_PREVIEW)];
      return;
    }
    this.parts.push(text);
  }

  private takeParts(): string {
    const s = this.parts.length === 1 ? this.parts[0]! : this.parts.join("");
    this.parts = [];
    this.partsLen = 0;
    return s;
  }

  /** Offer the block ending at the close tag `j` to the sink; false (nothing changed) when it refused it as quoted. */
  private tryFinish(j: number, tagEnd: number, quoted: () => boolean): boolean {
    const inner = this.innerUpTo(j);
    const end = this.base + tagEnd;
    const block: RawBlock = { inner, raw: this.open + inner + this.close, start: this.blockStart, end, wrapped: true, closed: true, overflow: false };
    if (!this.sink.block(block, quoted)) return false;
    this.parts = [];
    this.partsLen = 0;
    this.pos = tagEnd;
    this.mode = "text";
    return true;
  }

  private finishBlock(closed: boolean, end: number): void {
    const wrapped = this.mode === "block";
    const overflow = this.overflow;
    const inner = this.takeParts();
    const raw = wrapped ? this.open + inner + (closed && !overflow ? this.close : "") : inner;
    this.mode = "text";
    this.overflow = false;
    this.quotedClose = undefined;
    this.quotedLine = undefined;
    this.sink.block({ inner, raw, start: this.blockStart, end, wrapped, closed, overflow });
  }

  /** Never end a streamed delta between the two halves of a surrogate pair: hold a trailing high surrogate. */
  private wholePairs(hold: number): number {
    const c = this.buf.charCodeAt(hold - 1);
    return hold > this.pos && c >= 0xd800 && c <= 0xdbff ? hold - 1 : hold;
  }

  private emitText(from: number, to: number): void {
    if (to > from) this.sink.text(this.buf.slice(from, to));
  }

  private emitReasoning(from: number, to: number): void {
    if (to > from) this.sink.reasoning(this.buf.slice(from, to));
  }
}

/**
 * A block whose body is no known form but holds a tag (`on=write_file>\n<parameter=path>`, `<path>`): a broken
 * call, judged and rejected to its close, not prose that named the open tag (class 4, where no tag follows the
 * opener). Its text is never read as answer text, so a fence line inside it opens nothing.
 */
function brokenCall(inner: string): boolean {
  return inner.includes("<");
}

/** The first character past whitespace is `<`. */
function startsWithTag(text: string): boolean {
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return c === 60;
  }
  return false;
}
