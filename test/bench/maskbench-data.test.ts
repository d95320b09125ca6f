// MaskBench's data is downloaded at first use into the user cache, SHA-256 checked, with progress; tested against a
// tiny archive made here and served on 127.0.0.1 (no network). A bad checksum or no server is a one-line DataError.

import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DataError, ensureData } from "../../bench/lib/maskbench-data.js";

let server: Server;
let url: string;
let archive: Buffer;
let sha256: string;
let hits = 0;

beforeAll(async () => {
  const src = mkdtempSync(join(tmpdir(), "mb-src-"));
  mkdirSync(join(src, "jsonschemabench-x", "maskbench", "data"), { recursive: true });
  writeFileSync(join(src, "jsonschemabench-x", "maskbench", "data", "Tiny---a.json"), JSON.stringify({ schema: { type: "integer" }, tests: [{ valid: true, data: 1 }] }));
  const file = join(src, "data.tar.gz");
  expect(spawnSync("tar", ["-czf", file, "-C", src, "jsonschemabench-x"]).status).toBe(0);
  archive = readFileSync(file);
  sha256 = createHash("sha256").update(archive).digest("hex");
  server = createServer((_req, res) => {
    hits++;
    res.writeHead(200, { "content-length": String(archive.length) });
    res.end(archive);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/data.tar.gz`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

function sink(): { stream: Writable; text: () => string } {
  let text = "";
  const stream = new Writable({ write: (c, _e, cb) => ((text += String(c)), cb()) });
  return { stream, text: () => text };
}

describe("MaskBench data download", () => {
  it("downloads, checks the SHA-256, unpacks into the cache, shows progress; the next call uses the cache", async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), "mb-cache-"));
    const log = sink();
    const dir = await ensureData({ url, sha256, cacheDir, log: log.stream });
    expect(readdirSync(dir)).toEqual(["Tiny---a.json"]);
    expect(log.text()).toContain("100%");
    const before = hits;
    expect(await ensureData({ url, sha256, cacheDir, log: log.stream })).toBe(dir);
    expect(hits).toBe(before);
  });

  it("refuses an archive whose checksum differs, and keeps nothing", async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), "mb-cache-"));
    const log = sink();
    await expect(ensureData({ url, sha256: "0".repeat(64), cacheDir, log: log.stream })).rejects.toBeInstanceOf(DataError);
    expect(readdirSync(cacheDir)).toEqual([]);
  });

  it("says offline clearly when nothing answers", async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), "mb-cache-"));
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const e = await ensureData({ url: `http://127.0.0.1:${port}/x.tar.gz`, cacheDir, log: sink().stream }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DataError);
    expect((e as Error).message).toMatch(/offline\? Pass --data DIR/);
  });
});
