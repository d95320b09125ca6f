// Owns: the prompt as segments: the template's own markup apart from the caller's content, so that the runtime
// can tokenize the template's markers as special tokens and everything else as plain text.
//
// Markup is text the chat template itself writes: the turn markers (im_start, im_end), role names, the
// newlines around turns, the format's call tags around history calls, the tool_response tags around tool
// results, the think tags around reasoning, the fixed wording of the tools section and the JSON or XML
// scaffolding of a rendered call (QWEN3_TOKENS in src/formats spells each marker). Content is every character that comes from the caller: system, user,
// assistant and tool text, reasoning, past calls' names and arguments, and each tool's JSON (names,
// descriptions and schemas are client input too).

/** One run of prompt text: `markup` from the template (may hold special tokens), `content` from the caller (never). */
export interface PromptSegment {
  kind: "markup" | "content";
  text: string;
}

/** Collects a prompt as segments; adjacent segments of one kind merge, empty ones are dropped. */
export class PromptBuilder {
  private readonly parts: PromptSegment[] = [];

  /** Text the template writes itself. */
  markup(text: string): this {
    return this.push("markup", text);
  }

  /** Text that came from the caller (users, tools, the model's earlier turns). */
  content(text: string): this {
    return this.push("content", text);
  }

  /** Append another builder's segments (a section rendered on its own). */
  append(other: PromptBuilder): this {
    for (const part of other.parts) this.push(part.kind, part.text);
    return this;
  }

  get segments(): readonly PromptSegment[] {
    return this.parts;
  }

  /** The prompt as one string: the segments' texts joined. */
  text(): string {
    return this.parts.map((p) => p.text).join("");
  }

  private push(kind: PromptSegment["kind"], text: string): this {
    if (text === "") return this;
    const last = this.parts[this.parts.length - 1];
    if (last?.kind === kind) last.text += text;
    else this.parts.push({ kind, text });
    return this;
  }
}
