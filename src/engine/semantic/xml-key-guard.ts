// Owns: the semantic state of a call whose arguments are tags (qwen3coder, Qwen3.5 XML): each parameter whose value is
// JSON (an object, an array) gets a KeyGuard of its own for as long as that value is written, so no key is
// completed twice in any object inside it, nor an item in an array whose items must be distinct. Parameter names
// need no state: the grammar writes each at most once.

import type { XmlCallSpelling } from "../../formats/index.js";
import { type GrammarTool, shapesAtKey } from "../../grammar/index.js";
import { KeyGuard, type KeyProbe, type KeyTracker, type KeyVocab } from "./key-guard.js";

/** Most characters of markup kept to read a tag from (a tool or parameter name longer than this is not guarded). */
const MARKUP_TAIL = 512;

export class XmlKeyGuard implements KeyTracker {
  /** The JSON value being written, when the current parameter's value is JSON. */
  private value: KeyGuard | undefined;
  private inValue = false;
  /** Markup since the last value, or the last characters of a value (where its close tag shows). */
  private tail = "";
  private tool: GrammarTool | undefined;

  constructor(
    private readonly vocab: KeyVocab,
    private readonly spelling: XmlCallSpelling,
    private readonly tools: readonly GrammarTool[],
  ) {}

  clone(): XmlKeyGuard {
    const copy = new XmlKeyGuard(this.vocab, this.spelling, this.tools);
    copy.value = this.value?.clone();
    copy.inValue = this.inValue;
    copy.tail = this.tail;
    copy.tool = this.tool;
    return copy;
  }

  feed(text: string): boolean {
    let repeated = false;
    for (const ch of text) repeated = this.step(ch) || repeated;
    return repeated;
  }

  fingerprint(): string {
    return JSON.stringify([this.value?.fingerprint() ?? 0, this.inValue, this.tail, this.tool?.name ?? 0]);
  }

  get comparing(): boolean {
    return this.value?.comparing ?? false;
  }

  get mayBan(): boolean {
    return this.value?.mayBan ?? false;
  }

  banned(probe: KeyProbe, candidates: readonly number[] | undefined): number[] {
    return this.value ? this.value.banned(probe, candidates) : [];
  }

  /** One character; true when it completed a key its object already had. */
  private step(ch: string): boolean {
    const s = this.spelling;
    if (this.inValue) {
      // A JSON value ends with its last bracket; a close tag inside one of its strings is text, not the end.
      if (this.value) {
        const repeated = this.value.feed(ch);
        if (!this.value.idle) return repeated;
      }
      this.tail = (this.tail + ch).slice(-s.parameterClose.length);
      if (this.tail === s.parameterClose) this.leaveValue();
      return false;
    }
    this.tail = (this.tail + ch).slice(-MARKUP_TAIL);
    if (ch !== s.tagEnd.slice(-1) || !this.tail.endsWith(s.tagEnd)) return false;
    const name = (open: string) => {
      const at = this.tail.lastIndexOf(open);
      return at < 0 ? undefined : this.tail.slice(at + open.length, this.tail.length - s.tagEnd.length);
    };
    const param = name(s.parameterOpen);
    const fn = name(s.functionOpen);
    if (param !== undefined && (fn === undefined || this.tail.lastIndexOf(s.parameterOpen) > this.tail.lastIndexOf(s.functionOpen))) this.enterValue(param);
    else if (fn !== undefined) this.tool = this.tools.find((t) => t.name === fn);
    return false;
  }

  private enterValue(param: string): void {
    const params = this.tool?.params;
    const isJson = params !== undefined && (params.json.includes(param) || (params.extraJson && !params.raw.includes(param)));
    this.inValue = true;
    this.tail = "";
    const plan = this.tool?.unique;
    const shapes = plan ? shapesAtKey(plan, plan.root, param) : [];
    this.value = isJson ? new KeyGuard(this.vocab, plan && shapes.length > 0 ? { kind: "value", plan, shapes } : undefined) : undefined;
  }

  private leaveValue(): void {
    this.inValue = false;
    this.value = undefined;
    this.tail = "";
  }
}
