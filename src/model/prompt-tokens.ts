// Owns: tokenizing a rendered prompt so that only the template's own markers become special tokens: markup
// segments are split at added-token spellings (each one its token), and everything else, the caller's content
// included, is tokenized as plain text, even where it spells `<|im_start|>` or a call tag.
//
// Why not `tokenize(prompt, true)`: a file the agent reads could then forge chat turns. Why not
// `tokenize(content, false)` alone: llama.cpp still matches USER_DEFINED added tokens (Qwen3's call, response
// and think tags) with parse_special off; only CONTROL ones (`<|…|>`) are skipped. So a content run is cut
// inside every added-token spelling it holds, right after the spelling's last letter: the BPE pre-tokenizer
// always ends a chunk between a letter and the `>` or `|>` that follows, so the cut changes no merge and the
// pieces' tokens are exactly the text's own BPE (what an HF tokenizer gives with split_special_tokens=True).
//
// Boundaries: text runs reach from one template marker to the next (markup newlines and content joined), so
// for content that spells no marker the tokens equal tokenizing the whole prompt with special tokens on, which
// is what the real template plus the HF tokenizer (and llama.cpp's server, parse_special=true) produce.

import type { AddedToken } from "../engine/token-tables.js";
import type { PromptSegment } from "../prompt/index.js";

/** What prompt tokenization needs from a model. */
export interface PromptVocab {
  /** llama.cpp's tokenizer; `special: false` is all this module asks of it. */
  tokenize(text: string, special: boolean): readonly number[];
  /** Every added token, longest spelling first (see addedTokensOf). */
  added: readonly AddedToken[];
}

/** Where a spelling is cut: after its last letter (a pre-tokenizer chunk boundary), else after its first character. */
function cutOffset(text: string): number {
  for (let i = text.length - 1; i > 0; i--) if (/\p{L}/u.test(text[i]!)) return i + 1 < text.length ? i + 1 : 1;
  return 1;
}

/** Split markup at the added tokens it spells: text pieces and marker tokens, in order. */
function splitMarkup(text: string, added: readonly AddedToken[]): (string | number)[] {
  const out: (string | number)[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== "<") continue; // every Qwen3 added token starts with `<`; others are found by the slow path below
    const hit = added.find((t) => text.startsWith(t.text, i));
    if (hit === undefined) continue;
    if (i > start) out.push(text.slice(start, i));
    out.push(hit.token);
    start = i + hit.text.length;
    i = start - 1;
  }
  if (start < text.length) out.push(text.slice(start));
  return out.flatMap((piece) => (typeof piece === "number" ? [piece] : splitOther(piece, added)));
}

/** Added tokens that do not start with `<` (none in Qwen3), matched anywhere. A loop: no recursion per match. */
function splitOther(text: string, added: readonly AddedToken[]): (string | number)[] {
  const out: (string | number)[] = [];
  let rest = text;
  for (;;) {
    const hit = added.find((t) => !t.text.startsWith("<") && rest.includes(t.text));
    if (hit === undefined) break;
    const at = rest.indexOf(hit.text);
    if (at > 0) out.push(rest.slice(0, at));
    out.push(hit.token);
    rest = rest.slice(at + hit.text.length);
  }
  if (rest !== "" || out.length === 0) out.push(rest);
  return out;
}

/** Positions inside `text` that cut every added-token spelling in it (sorted, unique). */
function cutsFor(text: string, added: readonly AddedToken[]): number[] {
  const cuts = new Set<number>();
  for (const t of added) {
    for (let at = text.indexOf(t.text); at !== -1; at = text.indexOf(t.text, at + 1)) cuts.add(at + cutOffset(t.text));
  }
  return [...cuts].sort((a, b) => a - b);
}

/** Append one by one: a spread of a 100k-token run overflows the call stack. */
function append(out: number[], tokens: readonly number[]): void {
  for (const token of tokens) out.push(token);
}

/** Plain text's tokens: never an added token, whatever the text spells. */
export function tokenizeAsText(text: string, vocab: PromptVocab): number[] {
  if (text === "") return [];
  const out: number[] = [];
  let start = 0;
  for (const cut of [...cutsFor(text, vocab.added), text.length]) {
    if (cut > start) append(out, vocab.tokenize(text.slice(start, cut), false));
    start = cut;
  }
  return out;
}

/**
 * The prompt's tokens: each added-token spelling in markup is its token; every other character (markup text
 * and content alike) is tokenized as plain text, in runs from one marker to the next.
 */
export function tokenizePrompt(segments: readonly PromptSegment[], vocab: PromptVocab): number[] {
  const out: number[] = [];
  for (const piece of promptRuns(segments, vocab.added)) {
    if (typeof piece === "number") out.push(piece);
    else append(out, tokenizeAsText(piece, vocab));
  }
  return out;
}

/** The prompt as text runs (markup text and content joined, from one marker to the next) and marker tokens, in order. */
function* promptRuns(segments: readonly PromptSegment[], added: readonly AddedToken[]): Generator<string | number, void, void> {
  let run = "";
  for (const segment of segments) {
    if (segment.kind === "content") {
      run += segment.text;
      continue;
    }
    for (const piece of splitMarkup(segment.text, added)) {
      if (typeof piece === "string") run += piece;
      else {
        yield run;
        run = "";
        yield piece;
      }
    }
  }
  yield run;
}

/** Characters tokenized between two pauses of tokenizePromptSliced (about 30 ms of tokenizing on a slow CPU). */
export const PROMPT_SLICE_CHARS = 32 * 1024;

/**
 * Where a long text may be cut without changing its tokens: between an ASCII letter and a space that starts the
 * next word, or after a newline before a letter. Qwen3's pre-tokenizer ends a chunk at both (a letter run stops
 * at the space, which opens the next word's chunk; a newline run stops at the letter), BPE never merges across
 * chunks, and no added-token spelling holds a space or a newline, so the pieces' tokens join to the whole's.
 */
const SAFE_CUT = /[A-Za-z](?= [A-Za-z])|\n(?=[A-Za-z])/g;

/** `text` in pieces of about `max` characters, cut only where SAFE_CUT allows (a text without one stays whole). */
export function safeSlices(text: string, max: number): string[] {
  if (text.length <= max) return [text];
  const out: string[] = [];
  let start = 0;
  for (;;) {
    SAFE_CUT.lastIndex = start + max;
    const m = SAFE_CUT.exec(text);
    if (!m) break;
    out.push(text.slice(start, m.index + 1));
    start = m.index + 1;
  }
  out.push(text.slice(start));
  return out;
}

/**
 * tokenizePrompt's tokens, worked out in slices of about `sliceChars` characters with `pause()` awaited between
 * them (the server passes a turn of its event loop), so a prompt of megabytes never holds the caller's thread for
 * long. The tokens are the same as tokenizePrompt's.
 */
export async function tokenizePromptSliced(
  segments: readonly PromptSegment[],
  vocab: PromptVocab,
  pause: () => Promise<void>,
  sliceChars = PROMPT_SLICE_CHARS,
): Promise<number[]> {
  const out: number[] = [];
  let since = 0;
  for (const run of promptRuns(segments, vocab.added)) {
    if (typeof run === "number") {
      out.push(run);
      continue;
    }
    for (const piece of safeSlices(run, sliceChars)) {
      append(out, tokenizeAsText(piece, vocab));
      since += piece.length;
      if (since >= sliceChars) {
        since = 0;
        await pause();
      }
    }
  }
  return out;
}
