// Owns: the shared budget split ("shared"): each part of an object, tuple or repetition may use what the others
// leave at their least, instead of a static worst-case share; and the budget ladder that keeps the number of
// (value, budget) pairs a shared compile emits small.
//
// Why a second split: the worst-case split ("worst-case", schema-cost.ts) makes the sum of every part's most fit
// the budget, so the grammar alone bounds a whole call; but every level and sibling divides the budget again,
// and at 8,192 bytes a deeply nested member was left a 9-byte string or 3 items (MaskBench: most of the valid
// instances qtc rejected). Under "shared" a single part never spells more than the budget, but the parts
// together may: the caller bounds the whole value (the runtime's budget guard closes a call in time).

import type { Cost } from "./schema-cost.js";

/** How a budget is split among the parts of a value; see ToolGrammarOptions.budgetSplit. */
export type BudgetSplit = "worst-case" | "shared";

/** Most items a shared repetition admits (a `{0,n}` repetition costs llama.cpp n rules). */
export const SHARED_MAX_ITEMS = 1000;
/** Most extra members a shared open object admits: as many as items (an ESLint config lists 160 rules). */
export const SHARED_MAX_EXTRA = SHARED_MAX_ITEMS;

/**
 * Each consumer gets what the others leave at their least (never beyond its own most): the shares overlap, so
 * their sum may exceed `available`. Undefined when the minimums do not fit together.
 */
export function allocateShared(available: number, consumers: readonly Cost[]): number[] | undefined {
  const least = consumers.reduce((s, c) => s + c.min, 0);
  if (!Number.isFinite(least) || least > available) return undefined;
  return consumers.map((c) => Math.min(c.max, available - (least - c.min)));
}

/**
 * Items of a shared repetition in `space` bytes, each also costing `overhead` (its separator): as many as fit
 * at their least (at most maxCount and SHARED_MAX_ITEMS), each item as large as what the other required items
 * leave. Undefined when minCount items do not fit.
 */
export function planRepeatShared(space: number, item: Cost, overhead: number, minCount: number, maxCount: number): { count: number; itemBytes: number } | undefined {
  const unit = item.min + overhead;
  if (minCount * unit > space) return undefined;
  const count = Math.min(maxCount, SHARED_MAX_ITEMS, Math.floor(space / unit));
  if (count === 0) return { count: 0, itemBytes: 0 };
  const others = Math.max(0, minCount - 1) * unit;
  return { count, itemBytes: Math.min(item.max, space - others - overhead) };
}

/** Budgets below this are kept exactly; above, rounded down to 4 significant bits (at most 1/8 lost). */
const EXACT_BELOW = 64;

/**
 * A budget rounded down to the ladder, so that siblings and nearby levels share their rules (rounding down only
 * narrows what a part admits: still sound).
 */
export function ladder(budget: number): number {
  if (budget < EXACT_BELOW) return budget;
  const shift = Math.floor(Math.log2(budget)) - 3;
  return Math.floor(budget / 2 ** shift) * 2 ** shift;
}

/**
 * The budget a value reached again inside itself (recursion) gets: three quarters of it, on the ladder. Each
 * level is then a quarter smaller, so recursion ends after a few dozen levels at any budget.
 */
export function deeper(budget: number): number {
  return ladder(Math.floor((budget * 3) / 4));
}
