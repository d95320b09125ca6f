import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { pullModel, remoteModelOf, resolveHfEndpoint } from "../../src/model/download.js";
import { resolveModel } from "../../src/model/resolve.js";
import { tinyModelPath } from "../helpers/models.js";
import { qtcFailure } from "../helpers/errors.js";

// The real download path (node-llama-cpp's downloader) against a server on 127.0.0.1 that serves the synthetic
// tiny GGUF under any path containing "/good", with range requests, and 404 for everything else. No network.

let modelFile: string;
let modelSha: string;
let server: http.Server;
let base: string;
let refusedBase: string;
let dir: string;
const requests: string[] = [];

beforeAll(async () => {
  modelFile = await tinyModelPath();
  modelSha = createHash("sha256").update(await readFile(modelFile)).digest("hex");
  const size = (await stat(modelFile)).size;
  server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (!req.url?.includes("/good")) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    const range = /bytes=(\d+)-(\d*)/.exec(req.headers.range ?? "");
    const start = range ? Number(range[1]) : 0;
    const end = range && range[2] ? Number(range[2]) : size - 1;
    const headers = { "content-length": String(end - start + 1), "accept-ranges": "bytes", "content-type": "application/octet-stream" };
    if (range) res.writeHead(206, { ...headers, "content-range": `bytes ${start}-${end}/${size}` });
    else res.writeHead(200, headers);
    if (req.method === "HEAD") res.end();
    else createReadStream(modelFile, { start, end }).pipe(res);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  // A port that was open a moment ago and is closed now: connecting to it is refused.
  const closed = http.createServer();
  await new Promise<void>((ok) => closed.listen(0, "127.0.0.1", ok));
  refusedBase = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/`;
  await new Promise<void>((ok) => closed.close(() => ok()));
  dir = await mkdtemp(join(tmpdir(), "qtc-dl-"));
});
afterAll(async () => {
  server.closeAllConnections(); // the downloader keeps connections alive
  await new Promise<void>((ok) => server.close(() => ok()));
  await rm(dir, { recursive: true, force: true });
});

const sha = async (path: string) => createHash("sha256").update(await readFile(path)).digest("hex");
const failure = qtcFailure;

describe("pullModel", () => {
  test("downloads an hf: URI from the endpoint into the models dir, byte-identical", async () => {
    const models = join(dir, "hf");
    const r = await pullModel("hf:qtc-test/Tiny-GGUF/good-tiny.gguf", { modelsDir: models, hfEndpoint: base, showProgress: false });
    expect(r.path).toBe(join(models, "hf_qtc-test_good-tiny.gguf"));
    expect(r.alreadyPresent).toBe(false);
    expect(await sha(r.path)).toBe(modelSha);
    expect(requests).toContain("GET /qtc-test/Tiny-GGUF/resolve/main/good-tiny.gguf?download=true");
    expect((await readdir(models)).sort()).toEqual(["hf_qtc-test_good-tiny.gguf"]); // no temp files left

    const before = requests.length;
    const again = await pullModel("hf:qtc-test/Tiny-GGUF/good-tiny.gguf", { modelsDir: models, hfEndpoint: base });
    expect(again).toMatchObject({ path: r.path, alreadyPresent: true });
    expect(requests.length).toBe(before); // present: no request at all
  });

  test("downloads a plain http URL", async () => {
    const models = join(dir, "url");
    const r = await pullModel(`${base}files/good/model.gguf`, { modelsDir: models, showProgress: false });
    expect(r.path).toBe(join(models, "model.gguf"));
    expect(await sha(r.path)).toBe(modelSha);
  });

  test("HTTP 404 is download_failed (exit 1), and nothing is left behind", async () => {
    const models = join(dir, "404");
    const e = await failure(pullModel("hf:qtc-test/Tiny-GGUF/missing.gguf", { modelsDir: models, hfEndpoint: base }));
    expect([e.code, e.exitCode]).toEqual(["download_failed", 1]);
    expect(e.message).not.toContain("\n");
    expect(await readdir(models).catch(() => [])).toEqual([]);
  });

  // node-llama-cpp's downloader alone retries a refused connection for minutes; qtc's reachability check says why
  // at once. The test's timeout is the generous bound: only that minutes-long retry crosses it.
  test("a refused connection is download_failed (exit 1), saying the connection was refused", { timeout: 60_000 }, async () => {
    const e = await failure(pullModel("hf:qtc-test/Tiny-GGUF/good-tiny.gguf", { modelsDir: join(dir, "refused"), hfEndpoint: refusedBase }));
    expect([e.code, e.exitCode]).toEqual(["download_failed", 1]);
    expect(e.message).toContain("connection refused");
    const e2 = await failure(pullModel(`${refusedBase}good.gguf`, { modelsDir: join(dir, "refused") }));
    expect(e2.code).toBe("download_failed");
    expect(e2.message).toContain("connection refused");
  });

  test("the endpoint comes from the option, then QTC_HF_ENDPOINT, MODEL_ENDPOINT, HF_ENDPOINT", () => {
    expect(resolveHfEndpoint(undefined, {})).toBe("https://huggingface.co/");
    expect(resolveHfEndpoint(undefined, { HF_ENDPOINT: "http://h" })).toBe("http://h/");
    expect(resolveHfEndpoint(undefined, { HF_ENDPOINT: "http://h", MODEL_ENDPOINT: "http://m/" })).toBe("http://m/");
    expect(resolveHfEndpoint(undefined, { QTC_HF_ENDPOINT: "http://q", MODEL_ENDPOINT: "http://m/" })).toBe("http://q/");
    expect(resolveHfEndpoint("http://o", { QTC_HF_ENDPOINT: "http://q" })).toBe("http://o/");
  });

  test("specs that name nothing downloadable are model_not_found (exit 2)", async () => {
    for (const spec of ["synthetic:tiny", "replay:run-1", "not-a-model", "hf:user-only"]) {
      const e = await failure(pullModel(spec, { modelsDir: join(dir, "none") }));
      expect([spec, e.code, e.exitCode]).toEqual([spec, "model_not_found", 2]);
    }
  });
});

describe("resolveModel with remote models", () => {
  test("an hf: URI is downloaded once, then resolved from the models dir", async () => {
    const models = join(dir, "resolve-hf");
    const r = await resolveModel("hf:qtc-test/Tiny-GGUF/good-tiny.gguf", { modelsDir: models, hfEndpoint: base, showProgress: false });
    expect(r).toMatchObject({ path: join(models, "hf_qtc-test_good-tiny.gguf"), source: "hf", synthetic: false });
    expect(await sha(r.path)).toBe(modelSha);
    const offline = await resolveModel("hf:qtc-test/Tiny-GGUF/good-tiny.gguf", { modelsDir: models, hfEndpoint: refusedBase });
    expect(offline.path).toBe(r.path);
  });

  test("an http URL resolves with source url", async () => {
    const models = join(dir, "resolve-url");
    const r = await resolveModel(`${base}x/good/other.gguf`, { modelsDir: models, showProgress: false });
    expect(r).toMatchObject({ path: join(models, "other.gguf"), name: "other", source: "url", synthetic: false });
    expect(await sha(r.path)).toBe(modelSha);
  });

  test("a registry name resolves to its file in the models dir without any network", async () => {
    const models = join(dir, "resolve-registry");
    const e = await failure(resolveModel("qwen3-0.6b", { modelsDir: models, download: false }));
    expect(e.code).toBe("model_not_found");
    const local = join(models, remoteModelOf("qwen3-0.6b")!.fileName);
    expect(local).toBe(join(models, "hf_Qwen_Qwen3-0.6B-Q8_0.gguf"));
    await mkdir(models, { recursive: true });
    await writeFile(local, "placeholder");
    const r = await resolveModel("qwen3-0.6b", { modelsDir: models, hfEndpoint: refusedBase });
    expect(r).toMatchObject({ path: local, name: "qwen3-0.6b", source: "registry", synthetic: false, format: "hermes" });
    expect(r.uri).toBe("hf:Qwen/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf");
  });

  test("a registry model that is absent and unreachable fails with download_failed", async () => {
    const e = await failure(resolveModel("qwen3-1.7b", { modelsDir: join(dir, "absent"), hfEndpoint: refusedBase }));
    expect([e.code, e.exitCode]).toEqual(["download_failed", 1]);
  });
});
