// distinctClosing: the closing of a call under the key guard writes distinct keys where the matcher's own closing
// spells the same shortest key each time (a minimum member count the grammar holds makes the closing write members).
import type { Token } from "node-llama-cpp";
import { describe, expect, test } from "vitest";
import { compileToolGrammar } from "../../../src/grammar/index.js";
import { parse } from "../../../src/parse/index.js";
import { distinctClosing } from "../../../src/engine/semantic/distinct-closing.js";
import { QtcMatcher } from "../../../src/engine/qtc-matcher.js";
import { KeyGuard, KeyVocab } from "../../../src/engine/semantic/key-guard.js";
import { normalizeTools } from "../../../src/tools/index.js";
import { useTinyVocab } from "../../helpers/tiny-vocab.js";

const vocab = useTinyVocab();

const text = (tokens: readonly number[]) => vocab().model.detokenize(tokens as Token[], true);
const schema = { type: "object", additionalProperties: { type: "integer", minimum: 0, maximum: 9 }, minProperties: 6 };
const tools = normalizeTools([{ name: "t", parameters: schema }]);

describe("distinctClosing", () => {
  test("closes a call that still needs members with distinct keys; the matcher's own closing repeats one", () => {
    const compiled = compileToolGrammar(tools, { toolChoice: "required", maxTokens: 256, parallel: false });
    if (!compiled.ok) throw new Error(compiled.error.message);
    const head = '<tool_call>\n{"name": "t", "arguments": {"e": 1, "';
    const { model, engine, tables } = vocab();
    const keyVocab = new KeyVocab(tables.texts);
    const m = QtcMatcher.create(compiled.value, engine);
    expect(m.acceptAll(model.tokenize(head, true) as number[]).length).toBeGreaterThan(0);
    const keys = new KeyGuard(keyVocab);
    keys.feed(head.slice(head.indexOf("{")));
    const plain = parse(head + text(m.closing()!), { tools });
    expect(plain.errors.map((e) => e.reason)).toContain("duplicate_key");

    const closing = distinctClosing(m, keys, keyVocab)!;
    const r = parse(head + text(closing), { tools });
    expect(r.errors).toEqual([]);
    const args = JSON.parse(r.calls[0]!.arguments) as Record<string, number>;
    expect(Object.keys(args).length).toBe(6);
    // Not accepted: the matcher is where it was, and takes the closing whole.
    expect(m.acceptAll(closing)).toEqual(closing);
  });
});
