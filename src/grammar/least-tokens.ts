// Owns: a sound lower bound on the tokens of the cheapest call a turn can make, so that a request whose
// budget cannot hold even that call (tool choice required or named) is refused before any work
// (`budget_too_small`) instead of running to the token limit with nothing to show.
//
// The bound (see docs/grammar.md, "Budget too small"): every call block spends its open and close tags as one
// forced token each (two more for a thinking phase). Its text holds, in order, fixed pieces that every call to
// the tool spells: the framing and envelope with the tool's name, and each required member's key. A token of
// Qwen3's vocabulary never spans what its pre-tokenizer splits (letters then punctuation, a space after a
// non-space, …; test/grammar/least-tokens.test.ts checks every ASCII token of the vocabulary), so a fixed text
// needs at least `pieces(text)` tokens; a variable part between two fixed texts can merge at most one token
// across them, so each costs one token of credit.

import { resolveFormat, type FormatId, type ToolCallFormat } from "../formats/index.js";
import type { JsonSchema, ToolChoice, ToolDefinition } from "../tools/types.js";
import { JSON_SPELLING, jsonString } from "./canonical-json.js";
import { bodyAround, paramSpelling } from "./envelope.js";
import { deref, type Node } from "./schema-ir.js";
import { lowerSchema } from "./schema-policy.js";
import { newSites } from "./constraint-report.js";

export interface LeastCallOptions {
  format: FormatId | ToolCallFormat;
  toolChoice: ToolChoice;
  /** The turn starts with a `<think>` phase (its two tags are forced tokens). */
  thinking: boolean;
}

const CONTRACTION = /^'(?:s|t|re|ve|m|ll|d)/i;
/** The vocabulary's ordinary tokens that are no pre-tokenizer piece (found by the test), with their substrings. */
const ODD_TOKENS = ["<unk>", "<s>", "</s>"];
const ODD_PIECES = new Set(ODD_TOKENS.flatMap((t) => [...t].flatMap((_, i) => [...t].map((_, j) => t.slice(i, j + 1)))).filter((x) => x.length > 1));
const isLetter = (c: string | undefined) => c !== undefined && /[A-Za-z]/.test(c);
const isDigit = (c: string | undefined) => c !== undefined && /[0-9]/.test(c);
const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);
const isNewline = (c: string | undefined) => c === "\n" || c === "\r";
const isPunct = (c: string | undefined) => c !== undefined && !isLetter(c) && !isDigit(c) && !isSpace(c);

/**
 * Length of the longest text at `i` that one token may spell: one alternative of the Qwen2/Qwen3
 * pre-tokenizer, `'s|'t|'re|'ve|'m|'ll|'d | [^\r\n\pL\pN]?\pL+ | \pN | ?[^\s\pL\pN]+[\r\n]* | \s*[\r\n]+ | \s+`
 * (ASCII only: a token inside ASCII text is ASCII), or a substring of one of ODD_TOKENS. Every piece's
 * substrings are pieces, so taking the longest piece each time gives the fewest pieces.
 */
function longestPiece(s: string, i: number): number {
  const run = (from: number, ok: (c: string | undefined) => boolean) => {
    let j = from;
    while (j < s.length && ok(s[j])) j++;
    return j - from;
  };
  let best = 1;
  for (let len = 2; len <= 5; len++) if (ODD_PIECES.has(s.slice(i, i + len))) best = Math.max(best, len);
  const contraction = CONTRACTION.exec(s.slice(i, i + 3));
  if (contraction) best = Math.max(best, contraction[0].length);
  const c = s[i];
  if (isLetter(c)) best = Math.max(best, run(i, isLetter));
  else if (!isNewline(c) && !isDigit(c) && isLetter(s[i + 1])) best = Math.max(best, 1 + run(i + 1, isLetter));
  const lead = c === " " ? 1 : 0;
  const punct = run(i + lead, isPunct);
  if (punct > 0) best = Math.max(best, lead + punct + run(i + lead + punct, isNewline));
  const spaces = run(i, isSpace);
  best = Math.max(best, spaces);
  return best;
}

/** The fewest tokens that can spell `text` exactly (ASCII text; see longestPiece). */
export function pieces(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i += longestPiece(text, i)) n++;
  return n;
}

/** Fixed texts every call to one tool spells, in order, with a variable part between each two. */
function fixedTexts(format: ToolCallFormat, name: string, args: Node | undefined): string[] {
  const around = bodyAround(format, name);
  const head = format.framing + around.before;
  const tail = around.after + format.framing;
  const node = args && deref(args);
  if (!node || node.k !== "object") return [head, tail];
  const parts = [head];
  let gap = false;
  const put = (text: string) => (gap ? parts.push(text) : (parts[parts.length - 1] += text), (gap = false));
  const spelling = paramSpelling(format);
  if (!spelling) put("{");
  let wrote = false;
  for (const p of node.props) {
    if (!p.required) {
      gap = true;
      continue;
    }
    if (spelling) {
      put(spelling.open + p.name + spelling.end);
      gap = true;
      put(spelling.close);
    } else {
      put(`${wrote ? JSON_SPELLING.itemSep : ""}${jsonString(p.name)}${JSON_SPELLING.keySep}`);
    }
    gap = !spelling;
    wrote = true;
  }
  if (node.extra) gap = true;
  put(spelling ? tail : "}" + tail);
  return parts;
}

/**
 * Least tokens of one call block to a tool (open and close tags included); undefined when its schema does not
 * compile, so that the compiler's own error (a limit, an unsatisfiable schema) is what the caller hears.
 */
function leastBlockTokens(format: ToolCallFormat, tool: ToolDefinition): number | undefined {
  const lowered = lowerSchema(tool.parameters as JsonSchema, "least", undefined, undefined, { policy: "validate", extraMembers: "closed", sites: newSites() });
  if (!lowered.ok) return undefined;
  const root = deref(lowered.value);
  const options = root.k === "union" ? root.options.filter((o) => deref(o).k === "object") : [root];
  const bounds = (options.length > 0 ? options : [undefined]).map((args) => {
    const parts = fixedTexts(format, tool.name, args);
    return parts.reduce((sum, text) => sum + pieces(text), 0) - (parts.length - 1);
  });
  return 2 + Math.min(...bounds);
}

/**
 * The fewest tokens a turn needs when it must make a call (tool choice required or named): undefined when it
 * need not (auto, none) or there is no tool to call.
 */
export function leastCallTokens(tools: readonly ToolDefinition[], o: LeastCallOptions): number | undefined {
  const choice = o.toolChoice;
  if (choice === "auto" || choice === "none") return undefined;
  const format = resolveFormat(o.format);
  const callable = typeof choice === "object" ? tools.filter((t) => t.name === choice.name) : tools;
  if (callable.length === 0) return undefined;
  const each = callable.map((t) => leastBlockTokens(format, t));
  if (each.some((n) => n === undefined)) return undefined;
  return Math.min(...(each as number[])) + (o.thinking ? 2 : 0);
}
