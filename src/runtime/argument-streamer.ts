// Owns: ArgumentStreamer, streaming a constrained call's arguments while the call is generated. Under the grammar
// a call's prefix is guaranteed to complete validly, so once its name is known the call starts (`tool-call-start`
// with its id) and its arguments go out as `tool-call-delta`s, re-spelled as they arrive into exactly the text of
// the call's canonical `arguments` (JSON.stringify of the parsed value): the deltas concatenate to it. Text written
// without the grammar, or a tool whose arguments could be reordered, is never streamed: such a call still goes
// out whole once the parser has judged it. The parser's events pass through `settle`, so one call keeps one
// index and one id.

import { streamEventsOf, type ContentEvent } from "../adapters/events.js";
import type { ToolCallFormat } from "../formats/index.js";
import { randomCallId } from "../parse/index.js";
import type { ParseEvent } from "../parse/types.js";
import type { CompiledTools } from "../tools/index.js";
import type { GenerationMode } from "./types.js";
import { JsonRespeller } from "./json-respeller.js";

/** A stand-in name to read the body's spelling around a name with (`{"name": "…", "arguments": `). */
const PROBE = "qtcProbeName";

type State = "idle" | "head" | "args" | "held";

/** How the streamer reads one call body: the text before the name, and the text between the name and the arguments. */
interface HeadShape {
  before: string;
  between: string;
}

/** The head of a JSON body (`{"name": "`, then `", "arguments": `), or undefined when arguments are tags. */
function headShape(format: ToolCallFormat): HeadShape | undefined {
  if (format.parameterTags() !== undefined) return undefined;
  const text = format.framing + format.bodyAround(PROBE).before;
  const at = text.indexOf(PROBE);
  if (at < 1 || text[at - 1] !== '"' || text[at + PROBE.length] !== '"') return undefined;
  return { before: text.slice(0, at), between: text.slice(at + PROBE.length) };
}

export class ArgumentStreamer {
  private state: State = "idle";
  /** Text pushed but not yet read, in segments written with the grammar on or off. */
  private readonly queue: { text: string; grammar: boolean }[] = [];
  /** Absolute offset (in the turn's output) of the next character to read. */
  private pos = 0;
  private head = "";
  private name = "";
  private respeller = new JsonRespeller();
  /** The call being streamed: its index, id and what was sent; undefined when the current call is not streamed. */
  private current: { index: number; id: string; sent: string; claimed: boolean } | undefined;

  private constructor(
    private readonly format: ToolCallFormat,
    private readonly shape: HeadShape,
    private readonly streamable: (name: string) => boolean,
    private readonly nextIndex: () => number,
    private readonly newId: () => string,
  ) {}

  /**
   * A streamer for a format whose body is one JSON object; undefined for formats it cannot stream (their calls go
   * out whole). `streamable(name)`: the tool's arguments keep their order when stringified (see streamableSchema).
   */
  static create(format: ToolCallFormat, streamable: (name: string) => boolean, nextIndex: () => number, newId: () => string): ArgumentStreamer | undefined {
    const shape = headShape(format);
    return shape && new ArgumentStreamer(format, shape, streamable, nextIndex, newId);
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
      if (rest === 0 && c !== '"') {
        // Reading the name: a quote ends it (tool names hold no quote or backslash under the grammar).
        if (c === "\\" || this.name.length > 256) return this.hold(i + 1);
        this.name += c;
        continue;
      }
      if (between[rest] !== c || this.name === "") return this.hold(i + 1);
      this.head += c;
      if (rest + 1 < between.length) continue;
      if (!this.streamable(this.name)) return this.hold(i + 1);
      this.state = "args";
      this.respeller = new JsonRespeller();
      this.current = { index: this.nextIndex(), id: this.newId(), sent: "", claimed: false };
      out.push({ type: "tool-call-start", index: this.current.index, id: this.current.id, name: this.name });
      return i + 1;
    }
    return text.length;
  }

  /** Arguments: re-spelled and sent as they come, until the value is complete (then the call waits for the parser). */
  private readArgs(text: string, out: ContentEvent[]): number {
    const current = this.current!;
    const { out: delta, used } = this.respeller.push(text);
    if (this.respeller.unsafe) return this.hold(used);
    if (delta) {
      current.sent += delta;
      out.push({ type: "tool-call-delta", index: current.index, id: current.id, argumentsDelta: delta });
    }
    if (this.respeller.done) this.state = "held";
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

/** What a turn needs to stream its calls: the parser's id maker (a streamed call keeps its id) and the streamer. */
export interface TurnStreaming {
  /** The parser's `newId`: the streamed call's id, else a fresh random one. */
  newId: () => string;
  /** The turn's streamer (undefined when its calls go out whole), numbering calls with `nextIndex`. */
  create(nextIndex: () => number): ArgumentStreamer | undefined;
}

/**
 * Streaming for one turn: constrained turns with tools stream their calls (a tool whose schema is not
 * streamableSchema goes out whole); unconstrained turns hold each call until the parser has judged it valid.
 */
export function turnStreaming(mode: GenerationMode, format: ToolCallFormat, tools: CompiledTools | undefined): TurnStreaming {
  let streamer: ArgumentStreamer | undefined;
  const newId = () => streamer?.claimId() ?? randomCallId();
  if (mode !== "constrained" || !tools) return { newId, create: () => undefined };
  const verdicts = new Map<string, boolean>();
  const streamable = (name: string): boolean => {
    let ok = verdicts.get(name);
    if (ok === undefined) verdicts.set(name, (ok = streamableSchema(tools.get(name)?.definition.parameters)));
    return ok;
  };
  return { newId, create: (nextIndex) => (streamer = ArgumentStreamer.create(format, streamable, nextIndex, randomCallId)) };
}
