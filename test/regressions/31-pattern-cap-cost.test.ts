// Issue 31: MaskBench's Github_hard---o21332 (a content schema with URL-path patterns) took 203 s to compile. The
// pattern emitter searched its repetition caps one outer cap at a time, up to 1,000 for `(/segment*)*`, and again
// for every budget the pattern was emitted at; none of that work counted against the compile's emit-step limit.
// Now the search is binary, memoized per (pattern, budget), and its measurements count as emit steps, so a
// schema's patterns cannot make one compile run long: over the limit it is refused with `schema_too_large`.

import type { LlamaModel } from "node-llama-cpp";
import { beforeAll, describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/grammar/canonical-json.js";
import { compileSchema } from "../../src/grammar/index.js";
import { GrammarChecker } from "../../src/model/grammar-checker.js";
import type { JsonSchema } from "../../src/tools/types.js";
import { tinyModel } from "../grammar/helpers.js";

let model: LlamaModel;
beforeAll(async () => {
  ({ model } = await tinyModel());
}, 120_000);

// An RFC 3986 path: segments of unreserved characters or %-escapes, `(/segment*)*` repeated without bound.
const seg = "([a-zA-Z0-9._~!$&'()*+,;=:@-]|%[0-9a-fA-F]{2})";
const path = `^/(${seg}+(/${seg}*)*)?$`;
const url = `^https://([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)*example\\.org(/(${seg}+(/${seg}*)*)?(\\?${seg}*)?(#${seg}*)?)?$`;

/** A content item of the same shape as o21332 (links to items that link again), with its paths everywhere. */
function contentSchema(): JsonSchema {
  const link = { type: "object", properties: { base_path: { type: "string", pattern: path }, web_url: { type: "string", pattern: url }, title: { type: "string" } }, required: ["base_path"] };
  const links = { type: "array", items: { $ref: "#/definitions/linked" } };
  return {
    type: "object",
    definitions: {
      linked: { ...link, properties: { ...link.properties, links: { type: "object", properties: { parent: links, children: links, related: links } } } },
    },
    properties: {
      base_path: { type: "string", pattern: path },
      routes: { type: "array", items: { type: "object", properties: { path: { type: "string", pattern: path }, type: { enum: ["exact", "prefix"] } }, required: ["path", "type"] } },
      redirects: { type: "array", items: { type: "object", properties: { path: { type: "string", pattern: path }, destination: { type: "string", pattern: path } } } },
      links: { type: "object", properties: { parent: links, organisations: links, related: links } },
    },
    required: ["base_path"],
  } as JsonSchema;
}

describe("pattern repetition caps cost bounded work (issue 31, o21332)", () => {
  it("a content schema of URL-path patterns at many budgets compiles within the emit-step limit, and admits its values", async () => {
    const r = compileSchema(contentSchema(), { maxTokens: 8192, budgetSplit: "shared" });
    if (!r.ok) throw new Error(`${r.error.code} ${r.error.path}: ${r.error.message}`);
    const c = await GrammarChecker.create(model, r.value);
    const item = { base_path: "/government/news/a%20b", routes: [{ path: "/government/news/a%20b", type: "exact" }], links: { parent: [{ base_path: "/government", web_url: "https://www.example.org/government?x=1#top", links: { parent: [{ base_path: "/" }] } }] } };
    expect(c.checkText(canonicalJson(item)).accepted).toBe(true);
    expect(c.checkText(canonicalJson({ ...item, base_path: "government" })).accepted).toBe(false);
    expect(c.checkText(canonicalJson({ ...item, base_path: "/a%2" })).accepted).toBe(false);
  });

  it("patterns whose cap searches need more than the emit-step limit are refused with schema_too_large", () => {
    // 64 members (the most patterns a compile takes), each a 3 KB pattern: segments of 64 words of 50 letters,
    // `(/word*)*`, under its own maxLength, so 64 cap searches over about 3,300 nodes each.
    const words = Array.from({ length: 64 }, (_, i) => `word${String(i).padStart(2, "0")}${"abcdefghijklmnopqrstuvwxyz".repeat(2).slice(0, 44)}`);
    const list = `(${words.join("|")})`;
    const properties = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`p${i}`, { type: "string", pattern: `^(/${list}*)*$`, maxLength: 40 + i }]));
    const r = compileSchema({ type: "object", properties } as JsonSchema, { maxTokens: 8192, budgetSplit: "shared" });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe("schema_too_large");
      expect(r.error.path).toMatch(/^\/properties\/p\d+$/);
    }
  });
});
