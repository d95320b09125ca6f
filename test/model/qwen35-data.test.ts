// Qwen3.5's tokenizer data (qwen35-data.ts) and, when the data folder holds it, the rebuilt vocabulary checked
// against every real (id, text) pair there and against pairs from another source.

import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { checkPairs, isUncertainId, type RealPair } from "../../src/model/qwen35-bpe.js";
import { QWEN35_DATA_ENV, parseIdTextCsv, qwen35DataDir, readQwen35Merges, readQwen35Pairs } from "../../src/model/qwen35-data.js";
import { readQwen35Bpe, readQwen35Vocab } from "../../src/model/qwen35-vocab.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "qtc-qwen35-data-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the data folder", () => {
  test("is $QTC_QWEN35_DATA when set, else data/qwen3.5 in the package", () => {
    expect(qwen35DataDir({ [QWEN35_DATA_ENV]: "/x/y" })).toBe("/x/y");
    expect(qwen35DataDir({})).toMatch(/data[/\\]qwen3\.5$/);
  });

  test("CSV pairs: quoted fields keep commas, doubled quotes, newlines and whitespace; files merge by id", async () => {
    const csv = 'ID,Text,Delete\n262,   ,1\n317,"\r\n",1\n420,"=""",0\n487,""",",1\nnot-an-id,x,1\n';
    expect(parseIdTextCsv(csv)).toEqual([
      { id: 262, text: "   " },
      { id: 317, text: "\r\n" },
      { id: 420, text: '="' },
      { id: 487, text: '",' },
    ]);
    const sub = join(dir, "pairs");
    await mkdir(sub);
    await writeFile(join(sub, "notes.txt"), "not a CSV");
    await writeFile(join(sub, "a.csv"), csv);
    await writeFile(join(sub, "b.csv"), "ID,Text,Split,PPL\n502,--------,x,1\n262,   ,y,2\n");
    expect((await readQwen35Pairs(sub)).map((p) => p.id)).toEqual([262, 317, 420, 487, 502]);
    await writeFile(join(sub, "c.csv"), "ID,Text\n262,two spaces\n");
    await expect(readQwen35Pairs(sub)).rejects.toThrow(/id 262 has two texts/);
  });

  test("no merges file: null (the stand-in stays approximate); a merges file that is not Qwen3.5's is refused", async () => {
    const empty = join(dir, "empty");
    await mkdir(empty);
    expect(await readQwen35Merges(empty)).toBeNull();
    expect(await readQwen35Bpe(empty)).toBeNull();
    expect((await readQwen35Vocab(empty)).ids).toBe("approximate");
    const wrong = join(dir, "wrong");
    await mkdir(wrong);
    await writeFile(join(wrong, "merges.txt.gz"), gzipSync("#version: 0.2\nĠ Ġ\n"));
    await expect(readQwen35Merges(wrong)).rejects.toThrow(/is not Qwen3\.5's merges\.txt/);
  });
});

/** Real Qwen3.5 pairs from another source than the data folder: ik_llama.cpp PR #1490's logs (Qwen3.5-35B-A3B). */
const OUTSIDE: RealPair[] = [
  { id: 27, text: "<" },
  { id: 29, text: ">" },
  { id: 198, text: "\n" },
  { id: 271, text: "\n\n" },
  { id: 1628, text: "function" },
  { id: 15704, text: "parameter" },
  { id: 27362, text: "=get" },
  { id: 67017, text: "_weather" },
];

const bpe = await readQwen35Bpe();

describe.skipIf(bpe === null)(`Qwen3.5's vocabulary from its merges (needs merges.txt in ${qwen35DataDir()})`, () => {
  test("≥ 99.5% of the real pairs agree with the rank rule; each one that does not is listed with its reason", () => {
    const { pairs, placement } = bpe!;
    const listed = placement.mismatches.map((m) => `${m.id} ${JSON.stringify(m.text)} ${m.reason}${m.rank === undefined ? "" : ` (merge id ${m.rank})`}`);
    expect(pairs.length).toBeGreaterThan(0);
    expect(placement.mismatches.length, listed.join("\n")).toBeLessThanOrEqual(Math.floor(pairs.length * 0.005));
    expect(placement.used + placement.mismatches.length).toBe(pairs.length);
  });

  test("the stand-in's vocabulary holds every pair the placement used at its real id", async () => {
    const vocab = await readQwen35Vocab();
    expect(vocab.ids).toBe("real");
    const bad = new Set(bpe!.placement.mismatches.map((m) => m.id));
    const check = checkPairs(vocab.tokens, bpe!.pairs, (id) => bad.has(id));
    expect(check.mismatches).toEqual([]);
    expect(check.checked).toBe(bpe!.placement.used);
  });

  test("pairs from another source agree, except ids the pairs leave open (kept out, and counted)", async () => {
    const vocab = await readQwen35Vocab();
    const open = OUTSIDE.filter((p) => isUncertainId(bpe!.placement, p.id));
    const check = checkPairs(vocab.tokens, OUTSIDE, (id) => isUncertainId(bpe!.placement, id));
    expect(check.mismatches).toEqual([]);
    expect(check.checked + open.length).toBe(OUTSIDE.length);
  });
});
