// A format beside a pattern that only fixes how the string starts (src/grammar/pattern-prefix.ts; issue 49's
// MaskBench coverage: `uri` beside `^(https?|ftp|file)://`, `^https://`, `^mailto:`): the format's strings after
// those prefixes, and the grammar admits exactly the strings qtc's validator accepts. A pattern that fixes more
// than prefixes stays refused.

import { describe, expect, it } from "vitest";
import { compileSchema } from "../../src/grammar/index.js";
import { admitsExactlyValid } from "./helpers.js";

const URIS = ["https://example.com/a", "http://x.org", "ftp://h/p", "file:///etc/hosts", "https:x", "mailto:a@b.co", "HTTPS://x.org", "https://a b", "wss://h/s", "ws+unix://x", "wss+unix://x", "urn:isbn:1", ""];

describe("a format beside a pattern that fixes how the string starts (issue 49)", () => {
  for (const pattern of ["^(https?|ftp|file)://", "^https://", "^https:", "^mailto:", "^(wss?|wss?\\+unix)://"]) {
    it(`uri beside ${pattern}: the grammar admits exactly the strings the validator accepts`, async () => {
      await admitsExactlyValid({ type: "string", format: "uri", pattern }, URIS);
    });
  }

  it("a pattern that fixes more than how the string starts stays refused", () => {
    for (const pattern of ["^(https?://|/).+", "^h+:", "example"]) {
      expect(compileSchema({ type: "string", format: "uri", pattern }, { unsupported: "strict" }), pattern).toMatchObject({ ok: false, error: { code: "unsupported_keyword", path: "/pattern" } });
    }
  });
});
