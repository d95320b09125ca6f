// BFCL's data at first use: fetched from a server on 127.0.0.1 (serving qtc's own fixture in BFCL's layout) into
// the cache, checked against the manifest's SHA-256, reused without a request the second time; a bad checksum
// or no server is one clear `download_failed` that names --data; --data is read as it is.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BFCL_CATEGORIES, BFCL_MANIFEST, bfclFiles, ensureBfclData, readBfclCategory, type BfclManifest } from "../../src/bench/bfcl-data.js";
import { qtcFailure } from "../helpers/errors.js";

async function expectCode(p: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  const e = await qtcFailure(p);
  expect(e.code).toBe(code);
  expect(e.message).toMatch(message);
}

const FIXTURE = fileURLToPath(new URL("../fixtures/bfcl/data", import.meta.url));
const FILES = ["BFCL_v4_simple_python.json", "possible_answer/BFCL_v4_simple_python.json", "BFCL_v4_irrelevance.json"];
const sha = (file: string) => createHash("sha256").update(readFileSync(path.join(FIXTURE, file))).digest("hex");
const manifest: BfclManifest = Object.fromEntries(FILES.map((f) => [f, sha(f)]));

let server: Server;
let base: string;
let tmp: string;
const requests: string[] = [];

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "qtc-bfcl-"));
  server = createServer((req, res) => {
    requests.push(req.url ?? "");
    const file = path.join(FIXTURE, decodeURIComponent((req.url ?? "/").slice("/data/".length)));
    try {
      const body = readFileSync(file);
      res.writeHead(200, { "content-length": body.length }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/data/`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await rm(tmp, { recursive: true, force: true });
});

describe("BFCL data", () => {
  it("downloads each file once into the cache, with progress, and reads the questions with their answers", async () => {
    const cacheDir = path.join(tmp, "cache");
    const progress: string[] = [];
    const dir = await ensureBfclData(["simple_python", "irrelevance"], { cacheDir, baseUrl: base, manifest, onProgress: (f, got, total) => progress.push(`${f} ${got}/${total}`) });
    expect(dir).toBe(cacheDir);
    expect(requests).toEqual(FILES.map((f) => `/data/${f}`));
    expect(progress.at(-1)).toMatch(/^BFCL_v4_irrelevance\.json (\d+)\/\1$/);
    const simple = readBfclCategory(dir, "simple_python");
    expect(simple.map((q) => q.id)).toEqual(["simple_python_0", "simple_python_1", "simple_python_2"]);
    expect(simple[0]!.expected).toEqual([{ "geometry.area": { width: [2.5], height: [4], unit: ["m", ""] } }]);
    expect(readBfclCategory(dir, "irrelevance").map((q) => q.expected)).toEqual([[], []]);

    await ensureBfclData(["simple_python", "irrelevance"], { cacheDir, baseUrl: base, manifest });
    expect(requests).toHaveLength(FILES.length);
  });

  it("refuses a file whose checksum differs from the pinned one", async () => {
    const wrong = { ...manifest, "BFCL_v4_irrelevance.json": "0".repeat(64) };
    await expectCode(ensureBfclData(["irrelevance"], { cacheDir: path.join(tmp, "bad"), baseUrl: base, manifest: wrong }), "download_failed", /SHA-256.*--data DIR/);
  });

  it("offline: says so and names --data", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await expectCode(ensureBfclData(["irrelevance"], { cacheDir: path.join(tmp, "off"), baseUrl: `http://127.0.0.1:${port}/`, manifest }), "download_failed", /could not fetch.*--data DIR/);
  });

  it("reads --data as it is, and says which file a folder lacks", async () => {
    expect(await ensureBfclData(["simple_python", "parallel"], { dataDir: FIXTURE, baseUrl: "http://127.0.0.1:9/" })).toBe(FIXTURE);
    await expectCode(ensureBfclData(["live_simple"], { dataDir: FIXTURE }), "file_not_found", /BFCL_v4_live_simple\.json/);
  });

  it("pins a SHA-256 for every file of every category", () => {
    const files = BFCL_CATEGORIES.flatMap((c) => Object.values(bfclFiles(c)).filter((f): f is string => f !== null));
    expect(files.filter((f) => !/^[0-9a-f]{64}$/.test(BFCL_MANIFEST[f] ?? ""))).toEqual([]);
  });
});
