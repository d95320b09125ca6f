// Owns: writing GBNF text: literal and character-class escaping, and the rule set that names rules after what
// they match, merges rules with identical bodies, and prints the grammar in a stable order (root first).

/** A GBNF expression that matches `text` exactly (a quoted literal; `""` for the empty string). */
export function literal(text: string): string {
  let out = '"';
  for (const ch of text) out += escapeChar(ch, "literal");
  return out + '"';
}

/** The GBNF for a special token forced by id, e.g. `<[151657]>`. */
export function tokenRef(id: number): string {
  return `<[${id}]>`;
}

/** An inclusive code-point range for a character class. */
export type CodeRange = readonly [number, number];

/** A GBNF character class from ranges, e.g. `[a-z0-9]`. Ranges may be unsorted; they are printed as given. */
export function charClass(ranges: readonly CodeRange[]): string {
  let out = "[";
  for (const [lo, hi] of ranges) {
    out += classChar(lo);
    if (hi > lo) out += "-" + classChar(hi);
  }
  return out + "]";
}

function classChar(cp: number): string {
  return escapeChar(String.fromCodePoint(cp), "class");
}

function escapeChar(ch: string, where: "literal" | "class"): string {
  const cp = ch.codePointAt(0) ?? 0;
  if (ch === "\\") return "\\\\";
  if (where === "literal" && ch === '"') return '\\"';
  if (where === "class" && (ch === "]" || ch === "[" || ch === "-" || ch === '"')) return "\\" + ch;
  // llama.cpp knows no `\^` escape; a `^` first in a class would negate it.
  if (where === "class" && ch === "^") return "\\x5E";
  if (ch === "\n") return "\\n";
  if (ch === "\r") return "\\r";
  if (ch === "\t") return "\\t";
  if (cp < 0x20 || cp === 0x7f) return "\\x" + hex(cp, 2);
  if (cp >= 0x80 && cp <= 0xffff) return "\\u" + hex(cp, 4);
  if (cp > 0xffff) return "\\U" + hex(cp, 8);
  return ch;
}

function hex(n: number, width: number): string {
  return n.toString(16).toUpperCase().padStart(width, "0");
}

const SIMPLE_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** A rule name: lowercase letters, digits and `-` only (llama.cpp's rule-name alphabet), never empty. */
export function ruleName(hint: string): string {
  if (SIMPLE_NAME.test(hint)) return hint;
  const name = hint
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return name === "" ? "r" : name;
}

/**
 * The rules of one grammar. `add` names a rule after its hint and returns the name of an existing rule with the
 * same body instead of adding a duplicate. `reserve` + `define` allow recursive rules. Names never collide:
 * a taken hint gets a numeric suffix.
 */
export class RuleSet {
  private readonly bodies = new Map<string, string>();
  private readonly byBody = new Map<string, string>();
  private readonly order: string[] = [];
  private readonly deferred: (() => { text: string; rules: number })[] = [];
  /**
   * The next numeric suffix to try per base name. Names are never freed, so every suffix below it is taken: a
   * scan from 2 each time was quadratic (JsonSchemaStore's meta.schema.json: 58,400 rules, 50 s in freshName).
   */
  private readonly nextSuffix = new Map<string, number>();

  /** Add a rule (or reuse the one with the same body); returns its name. */
  add(hint: string, body: string): string {
    const existing = this.byBody.get(body);
    if (existing !== undefined) return existing;
    const name = this.freshName(hint);
    this.bodies.set(name, body);
    this.byBody.set(body, name);
    this.order.push(name);
    return name;
  }

  /** Add a rule under exactly this name (it must be free), e.g. the chain rules whose names encode a count. */
  addNamed(name: string, body: string): string {
    if (this.bodies.has(name)) throw new Error(`internal: rule ${name} defined twice`);
    this.bodies.set(name, body);
    if (!this.byBody.has(body)) this.byBody.set(body, name);
    this.order.push(name);
    return name;
  }

  /** Reserve a name for a rule whose body refers to itself; call `define` later. */
  reserve(hint: string): string {
    const name = this.freshName(hint);
    this.bodies.set(name, "");
    this.order.push(name);
    return name;
  }

  /** Give a reserved rule its body. */
  define(name: string, body: string): void {
    this.bodies.set(name, body);
  }

  has(name: string): boolean {
    return this.bodies.has(name);
  }

  /**
   * Rules printed after all others, produced only at print time (e.g. long counting chains, whose length is
   * known only once every user has asked for its bound): whole `name ::= body` lines, each ending in "\n".
   */
  defer(render: () => { text: string; rules: number }): void {
    this.deferred.push(render);
  }

  /** The GBNF text (`root ::= …` first, then every rule in the order it was added, deferred rules last). */
  print(root: string): { text: string; rules: number } {
    let text = `root ::= ${root}\n`;
    let rules = 1 + this.order.length;
    for (const name of this.order) text += `${name} ::= ${this.bodies.get(name)}\n`;
    for (const render of this.deferred) {
      const block = render();
      text += block.text;
      rules += block.rules;
    }
    return { text, rules };
  }

  private freshName(hint: string): string {
    const base = ruleName(hint);
    if (base !== "root" && !this.bodies.has(base)) return base;
    for (let i = this.nextSuffix.get(base) ?? 2; ; i++) {
      const name = `${base}-${i}`;
      if (!this.bodies.has(name)) {
        this.nextSuffix.set(base, i + 1);
        return name;
      }
    }
  }
}

/** `a | b | c`, wrapped in parentheses when there is more than one alternative (for use inside a sequence). */
export function group(alternatives: readonly string[]): string {
  const unique = [...new Set(alternatives)];
  if (unique.length === 1) return unique[0]!;
  return `(${unique.join(" | ")})`;
}
