// Owns: ArgumentStreamer, streaming a constrained call's arguments while the call is generated. Under the grammar
// a call's prefix is guaranteed to complete validly, so once its name is known the call starts (`tool-call-start`
// with its id) and its arguments go out as `tool-call-delta`s, re-spelled as they arrive into exactly the text of
// the call's canonical `arguments` (JSON.stringify of the parsed value): the deltas concatenate to it. Text written
// without the grammar, a tool whose arguments could be reordered, or a tool with a keyword the grammar does not
// hold (left to the validator, issue 52) is never streamed: such a call, id and name included, goes out whole once
// the parser has judged it valid, and not at all when it is rejected. The parser's events pass through `settle`,
// so one call keeps one index and one id.

import { streamEventsOf, type ContentEvent } from "../adapters/events.js";
import type { ToolCallFormat } from "../formats/index.js";
import { randomCallId } from "../parse/index.js";
import type { ParseEvent } from "../parse/types.js";
import type { CompiledTools } from "../tools/index.js";
import type { GenerationMode } from "./types.js";
import { JsonRespeller } from "./json-respeller.js";
import { XmlArgs } from "./xml-args.js";

/** A stand-in name to read the body's spelling around a name with (`{"name": "…", "arguments": `). */
const PROBE = "qtcProbeName";

type State = "idle" | "head" | "args" | "held";

/** How the streamer reads one call body: the text before the name, and the text between the name and the arguments. */
interface HeadShape {
  before: string;
  between: string;
}

/**
 * The head of a body around its name: JSON `{"name": "` then `", "arguments": `; tags `<function=` then `>` and the
 * framing. Undefined when the format spells the name some other way (its calls go out whole).
 */
function headShape(format: ToolCallFormat): HeadShape | undefined {
  const text = format.framing + format.bodyAround(PROBE).before;
  const at = text.indexOf(PROBE);
  const between = text.slice(at + PROBE.length);
  if (at < 1 || between === "") return undefined;
  return { before: text.slice(0, at), between };
}

/** What re-spells a call's arguments as they stream (JsonRespeller for a JSON body, XmlArgs for tags). */
interface ArgsBody {
  done: boolean;
  unsafe: boolean;
  push(text: string): { out: string; used: number };
}

export class ArgumentStreamer {
  private state: State = "idle";
  /** Text pushed but not yet read, in segments written with the grammar on or off. */
  private readonly queue: { text: string; grammar: boolean }[] = [];
  /** Absolute offset (in the turn's output) of the next character to read. */
  private pos = 0;
  private head = "";
  private name = "";
  private body: ArgsBody = new JsonRespeller();
  /** The call being streamed: its index, id and what was sent; undefined when the current call is not streamed. */
  private current: { index: number; id: string; sent: string; claimed: boolean } | undefined;

  private constructor(
    private readonly format: ToolCallFormat,
    private readonly shape: HeadShape,
    private readonly tools: StreamedTools,
    private readonly nextIndex: () => number,
    private readonly newId: () => string,
  ) {}

  /**
   * A streamer for a format's calls; undefined for a format whose head it cannot read (its calls go out whole).
   */
  static create(format: ToolCallFormat, tools: StreamedTools, nextIndex: () => number, newId: () => string): ArgumentStreamer | undefined {
    const shape = headShape(format);
    return shape && new ArgumentStreamer(format, shape, tools, nextIndex, newId);
  }

  /** Text the turn added; `grammar`: written under the grammar (only such text can start a streamed call). */
  push(text: string, grammar: boolean): void {
    if (text) this.queue.push({ text, grammar });
  }

  /** The streamed call's id for the parser's next valid call (once per call); undefined when no call is streamed. */
  claimId(): string | undefined {
    if (!this.current || this.current.claimed) return undefined;
    this.current.claimed = true;
    return this.current.id;
  }

  /** Read what was pushed, as far as the current call allows; returns the start and argument deltas it completes. */
  pull(): ContentEvent[] {
    const out: ContentEvent[] = [];
    while (this.queue.length > 0 && this.state !== "held") {
      const segment = this.queue[0]!;
      const used = this.read(segment, out);
      this.pos += used;
      if (used >= segment.text.length) this.queue.shift();
      else segment.text = segment.text.slice(used);
      if (used === 0) break;
    }
    return out;
  }

  /**
   * The parser's event: a call or rejected block this streamer streamed keeps its index and id (the rest of its
   * arguments, if any, then the call); any other event streams as before. Reading resumes after the block.
   */
  settle(event: ParseEvent): ContentEvent[] {
    if (event.type !== "call" && event.type !== "call-rejected") return streamEventsOf(event, this.nextIndex);
    const out = this.pull();
    const current = this.current;
    if (current && event.type === "call" && event.call.id === current.id) {
      const { call } = event;
      const rest = call.arguments.startsWith(current.sent) ? call.arguments.slice(current.sent.length) : "";
      if (rest) out.push({ type: "tool-call-delta", index: current.index, id: current.id, argumentsDelta: rest });
      out.push({ type: "tool-call", index: current.index, call });
    } else if (current && event.type === "call-rejected") out.push({ type: "error", error: event.error });
    else out.push(...streamEventsOf(event, this.nextIndex));
    this.skipTo(event.type === "call" ? event.call.end : event.error.end);
    return out;
  }

  /** Forget the current call and read on from `end` (the judged block's end in the output). */
  private skipTo(end: number): void {
    this.state = "idle";
    this.current = undefined;
    while (this.queue.length > 0 && this.pos < end) {
      const segment = this.queue[0]!;
      const drop = Math.min(segment.text.length, end - this.pos);
      this.pos += drop;
      if (drop >= segment.text.length) this.queue.shift();
      else segment.text = segment.text.slice(drop);
    }
  }

  /** Read from one segment; returns the characters used. */
  private read(segment: { text: string; grammar: boolean }, out: ContentEvent[]): number {
    const { text } = segment;
    if (this.state === "idle") {
      if (!segment.grammar) return text.length;
      // The open tag is one special token: it arrives whole, inside one step's text.
      const at = text.indexOf(this.format.open.text);
      if (at < 0) return text.length;
      this.state = "head";
      this.head = "";
      this.name = "";
      return at + this.format.open.text.length;
    }
    if (this.state === "head") return this.readHead(text, out);
    return this.readArgs(text, out);
  }

  /** The body's head up to its arguments: `before`, the name (up to its closing quote), `between`; anything else holds the call. */
  private readHead(text: string, out: ContentEvent[]): number {
    const { before, between } = this.shape;
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      const at = this.head.length;
      if (at < before.length) {
        if (before[at] !== c) return this.hold(i + 1);
        this.head += c;
        continue;
      }
      const rest = this.head.length - before.length;
      if (rest === 0 && c !== between[0]) {
        // Reading the name: the text after it ends it (tool names hold no quote, `>` or backslash under the grammar).
        if (c === "\\" || this.name.length > 256) return this.hold(i + 1);
        this.name += c;
        continue;
      }
      if (between[rest] !== c || this.name === "") return this.hold(i + 1);
      this.head += c;
      if (rest + 1 < between.length) continue;
      // Only a call the grammar alone makes valid may be announced before the parser judges it: a rejected call
      // whose id and name went out would leave the client an announced call that never comes (issue 52).
      if (!this.tools.heldByGrammar(this.name)) return this.hold(i + 1);
      const tags = this.format.parameterTags();
      if (!tags && !this.tools.jsonStreamable(this.name)) return this.hold(i + 1);
      this.state = "args";
      const name = this.name;
      this.body = tags ? new XmlArgs(tags, this.format.bodyAround(name).after, (param) => this.tools.stringParameter(name, param)) : new JsonRespeller();
      this.current = { index: this.nextIndex(), id: this.newId(), sent: "", claimed: false };
      out.push({ type: "tool-call-start", index: this.current.index, id: this.current.id, name: this.name });
      return i + 1;
    }
    return text.length;
  }

  /**
   * Arguments: re-spelled and sent as they come, until they are complete (then the call waits for the parser). Text
   * that would make the sent text no prefix of the final arguments is never sent: the body stops before it.
   */
  private readArgs(text: string, out: ContentEvent[]): number {
    const current = this.current!;
    const { out: delta, used } = this.body.push(text);
    if (delta) {
      current.sent += delta;
      out.push({ type: "tool-call-delta", index: current.index, id: current.id, argumentsDelta: delta });
    }
    if (this.body.done || this.body.unsafe) this.state = "held";
    return used;
  }

  /** Stop reading until the parser judges the block (it then goes out as the parser says). */
  private hold(used: number): number {
    this.state = "held";
    return used;
  }
}

/**
 * Whether a tool's arguments stream as generated: no object in its schema may hold a member name that
 * JSON.stringify would move to the front (an array index such as "0"). Listed names are checked; objects open to
 * other names (`additionalProperties` or `patternProperties` other than false) are not streamed.
 */
export function streamableSchema(schema: unknown): boolean {
  const seen = new Set<unknown>();
  const walk = (node: unknown, depth: number): boolean => {
    if (typeof node !== "object" || node === null || seen.has(node)) return true;
    if (depth > 64) return false;
    seen.add(node);
    const o = node as Record<string, unknown>;
    for (const key of ["additionalProperties", "patternProperties", "unevaluatedProperties"]) {
      if (key in o && o[key] !== false) return false;
    }
    const props = o.properties;
    if (typeof props === "object" && props !== null && Object.keys(props).some((k) => /^(?:0|[1-9]\d*)$/.test(k))) return false;
    return Object.values(o).every((v) => walk(v, depth + 1));
  };
  return walk(schema, 0);
}

const NONE_RELAXED: ReadonlySet<string> = new Set();

/** What the streamer asks of a turn's tools. */
export interface StreamedTools {
  /**
   * Every keyword that decides the validity of the tool's calls is held by the turn's grammar (none was left to
   * the validator): only then may a call stream before the parser has judged it.
   */
  heldByGrammar(tool: string): boolean;
  /** The tool's arguments keep their order when stringified (see streamableSchema): a JSON body may stream. */
  jsonStreamable(tool: string): boolean;
  /** A tag-bodied parameter's value is read as raw text (its schema allows strings), as the parser reads it. */
  stringParameter(tool: string, parameter: string): boolean;
}

/** What a turn needs to stream its calls: the parser's id maker (a streamed call keeps its id) and the streamer. */
export interface TurnStreaming {
  /** The parser's `newId`: the streamed call's id, else a fresh random one. */
  newId: () => string;
  /** The turn's streamer (undefined when its calls go out whole), numbering calls with `nextIndex`. */
  create(nextIndex: () => number): ArgumentStreamer | undefined;
}

/**
 * Streaming for one turn: constrained turns with tools stream their calls (a JSON-bodied tool whose schema is not
 * streamableSchema goes out whole, as does a tool that `relaxed` names); unconstrained turns hold each call until
 * the parser has judged it valid. `relaxed`: the tools with a keyword the turn's grammars left to the validator so
 * far (read when a call's name is known, after the grammar that writes it was compiled). Default: none.
 */
export function turnStreaming(mode: GenerationMode, format: ToolCallFormat, tools: CompiledTools | undefined, relaxed: () => ReadonlySet<string> = () => NONE_RELAXED): TurnStreaming {
  let streamer: ArgumentStreamer | undefined;
  const newId = () => streamer?.claimId() ?? randomCallId();
  if (mode !== "constrained" || !tools) return { newId, create: () => undefined };
  const verdicts = new Map<string, boolean>();
  const streamed: StreamedTools = {
    heldByGrammar: (name) => !relaxed().has(name),
    jsonStreamable(name) {
      let ok = verdicts.get(name);
      if (ok === undefined) verdicts.set(name, (ok = streamableSchema(tools.get(name)?.definition.parameters)));
      return ok;
    },
    stringParameter(name, parameter) {
      const tool = tools.get(name);
      // As the parser types a value: unlisted names (no extra members allowed) stay raw text.
      const types = tool && (tool.allowsExtra || tool.properties.has(parameter)) ? tool.typesOf(parameter) : undefined;
      return types === undefined || (types !== "any" && types.has("string"));
    },
  };
  return { newId, create: (nextIndex) => (streamer = ArgumentStreamer.create(format, streamed, nextIndex, randomCallId)) };
}
