// Owns: a byte-level BPE vocabulary rebuilt from its merges by the rank rule (ids 0-255 are the byte symbols in
// GPT-2 order; merge i makes the next id that is not a gap), the placement of the gaps (ids no merge makes) from
// real (id, text) pairs, and the check of a vocabulary against real pairs. Qwen3's tokenizer follows the rule for
// all 151,387 merges with no gap; Qwen3.5's has 256 + merges fewer ids than its first added token.

import { byteLevelOrder, byteSymbols, toByteLevel } from "./byte-level.js";

/** A token id and its text, as a real tokenizer decodes it (UTF-8 text, whitespace kept). */
export interface RealPair {
  id: number;
  text: string;
}

/** Ids after `after` and before `before` (both excluded) hold `gaps` gap ids and the merges between them. */
export interface GapBracket {
  after: number;
  before: number;
  gaps: number;
}

/**
 * Why a real pair disagrees with the rule: `lossy` (no merge makes its text, which holds U+FFFD: likely a token
 * that is not whole UTF-8, decoded with loss), `byte` (a one-byte text not at its byte's id), `not_a_token` (no
 * merge makes that text), `out_of_range` (its id would need fewer than 0 or more than all gaps before it),
 * `conflict` (it contradicts the order the other pairs agree on).
 */
export type PairMismatchReason = "lossy" | "byte" | "not_a_token" | "out_of_range" | "conflict";

export interface PairMismatch extends RealPair {
  reason: PairMismatchReason;
  /** The id the merges give this text, when they make it (before gaps: 256 + merge index). */
  rank?: number;
}

export interface GapPlacement {
  /** Ids between the byte symbols and the first added token that no merge makes: firstAdded - 256 - merges. */
  totalGaps: number;
  /** Where the gaps lie, in id order; a bracket with as many ids as gaps is exact. */
  brackets: GapBracket[];
  /** The gap ids chosen: each bracket's gaps at its first ids (the pairs cannot tell where inside it). */
  gaps: number[];
  /** Ids whose content (a gap or which merge) the pairs leave open: every id of each inexact bracket. */
  uncertainIds: number;
  /** Real pairs that pinned the placement. */
  used: number;
  /** Real pairs that disagree, each with its reason. */
  mismatches: PairMismatch[];
}

/** What each merge makes: its two parts joined (`"Ġ t"` → `"Ġt"`). */
export function mergeResults(merges: readonly string[]): string[] {
  return merges.map((m) => {
    const space = m.indexOf(" ");
    if (space <= 0 || space === m.length - 1 || m.indexOf(" ", space + 1) !== -1) throw new Error(`not a merge: ${JSON.stringify(m)}`);
    return m.slice(0, space) + m.slice(space + 1);
  });
}

interface Point {
  pair: RealPair;
  rank: number;
  shift: number;
}

/**
 * Place the gaps from real pairs. Under the rule, a pair made by merge m has id 256 + m + (gaps before it), so
 * that shift never decreases along the merges and ends at `totalGaps`: each rise between two consecutive known
 * pairs brackets that many gaps. Pairs that break the order (fewest possible, by a longest non-decreasing run)
 * are reported as conflicts, never used.
 */
export function placeGaps(merges: readonly string[], pairs: readonly RealPair[], firstAdded: number): GapPlacement {
  const totalGaps = firstAdded - 256 - merges.length;
  if (totalGaps < 0) throw new Error(`${merges.length} merges do not fit below id ${firstAdded}`);
  const rankOf = new Map<string, number>();
  mergeResults(merges).forEach((r, i) => {
    if (!rankOf.has(r)) rankOf.set(r, i);
  });
  const byteId = byteLevelOrder();
  const symbols = byteSymbols();
  const mismatches: PairMismatch[] = [];
  const points: Point[] = [];
  for (const pair of pairs) {
    const spelling = toByteLevel(pair.text, symbols);
    const bytes = Buffer.from(pair.text, "utf8");
    if (bytes.length === 1) {
      if (byteId[bytes[0]!] !== pair.id) mismatches.push({ ...pair, reason: "byte", rank: byteId[bytes[0]!]! });
      continue;
    }
    const rank = rankOf.get(spelling);
    if (rank === undefined) mismatches.push({ ...pair, reason: pair.text.includes("\uFFFD") ? "lossy" : "not_a_token" });
    else {
      const shift = pair.id - 256 - rank;
      if (shift < 0 || shift > totalGaps) mismatches.push({ ...pair, reason: "out_of_range", rank: 256 + rank });
      else points.push({ pair, rank, shift });
    }
  }
  points.sort((a, b) => a.rank - b.rank || a.pair.id - b.pair.id);
  // The same pair given twice is one pair; one text at two ids is a conflict for both.
  const unique = points.filter((p, i) => !(points[i - 1]?.rank === p.rank && points[i - 1]?.pair.id === p.pair.id));
  const twice = new Set(unique.filter((p, i) => unique[i - 1]?.rank === p.rank || unique[i + 1]?.rank === p.rank));
  const kept = longestOrderedRun(unique.filter((p) => !twice.has(p)));
  for (const p of unique) if (!kept.has(p)) mismatches.push({ ...p.pair, reason: "conflict", rank: 256 + p.rank });
  const brackets: GapBracket[] = [];
  let prev = { id: 255, shift: 0 };
  for (const p of unique) {
    if (!kept.has(p)) continue;
    if (p.shift > prev.shift) brackets.push({ after: prev.id, before: p.pair.id, gaps: p.shift - prev.shift });
    prev = { id: p.pair.id, shift: p.shift };
  }
  if (totalGaps > prev.shift) brackets.push({ after: prev.id, before: firstAdded, gaps: totalGaps - prev.shift });
  const gaps = brackets.flatMap((b) => Array.from({ length: b.gaps }, (_, i) => b.after + 1 + i));
  const uncertainIds = brackets.reduce((n, b) => n + (b.before - b.after - 1 > b.gaps ? b.before - b.after - 1 : 0), 0);
  mismatches.sort((a, b) => a.id - b.id);
  return { totalGaps, brackets, gaps, uncertainIds, used: kept.size, mismatches };
}

/**
 * The points (sorted by rank, one per rank) of a longest run whose shift never decreases: the largest set of
 * pairs that agree with one placement (patience sorting, O(n log n)).
 */
function longestOrderedRun(points: readonly Point[]): Set<Point> {
  const tails: number[] = []; // index into points of the smallest tail of each run length
  const before = new Array<number>(points.length).fill(-1);
  points.forEach((p, i) => {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (points[tails[mid]!]!.shift <= p.shift) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) before[i] = tails[lo - 1]!;
    tails[lo] = i;
  });
  const kept = new Set<Point>();
  for (let i = tails.length ? tails[tails.length - 1]! : -1; i >= 0; i = before[i]!) kept.add(points[i]!);
  return kept;
}

/** Spelling of a gap id in a rebuilt vocabulary (an UNUSED token: no merge makes it). */
export const gapToken = (id: number): string => `[GAP${id}]`;

/**
 * Tokens 0..firstAdded-1 by the rule: the byte symbols, then each merge's result at the next id that is not a
 * gap. Throws when the merges and gaps do not fill the range exactly.
 */
export function tokensFromMerges(merges: readonly string[], gaps: readonly number[], firstAdded: number): string[] {
  const tokens = new Array<string>(firstAdded);
  const symbols = byteSymbols();
  byteLevelOrder().forEach((id, byte) => (tokens[id] = symbols[byte]!));
  const gapSet = new Set(gaps);
  const results = mergeResults(merges);
  let next = 0;
  for (let id = 256; id < firstAdded; id++) tokens[id] = gapSet.has(id) ? gapToken(id) : results[next++] ?? gapToken(id);
  if (next !== results.length || gapSet.size + results.length !== firstAdded - 256) {
    throw new Error(`${results.length} merges and ${gapSet.size} gaps do not fill ids 256..${firstAdded - 1}`);
  }
  return tokens;
}

export interface PairCheck {
  checked: number;
  matched: number;
  /** Pairs whose id holds another token (`got`: that token's byte-level spelling). */
  mismatches: Array<RealPair & { got: string | undefined }>;
}

/** Check a vocabulary (byte-level spellings by id) against real pairs, skipping the ids `skip` names. */
export function checkPairs(tokens: readonly string[], pairs: readonly RealPair[], skip: (id: number) => boolean = () => false): PairCheck {
  const symbols = byteSymbols();
  const result: PairCheck = { checked: 0, matched: 0, mismatches: [] };
  for (const pair of pairs) {
    if (skip(pair.id)) continue;
    result.checked++;
    if (tokens[pair.id] === toByteLevel(pair.text, symbols)) result.matched++;
    else result.mismatches.push({ ...pair, got: tokens[pair.id] });
  }
  return result;
}

/** Whether `id` lies in an inexact bracket of `placement` (its content is not pinned by the pairs). */
export function isUncertainId(placement: Pick<GapPlacement, "brackets">, id: number): boolean {
  return placement.brackets.some((b) => id > b.after && id < b.before && b.before - b.after - 1 > b.gaps);
}
