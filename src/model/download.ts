// Owns: downloading model files into the models directory with node-llama-cpp's downloader (progress bar on a
// TTY), the local file name of each remote model, and turning network failures into one clear `download_failed`.

import { existsSync } from "node:fs";
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import { fail } from "../errors.js";
import { modelsDir as defaultModelsDir, findModelFile } from "./paths.js";
import { findRegistryModel } from "./registry.js";

/** Environment variable naming a Hugging Face mirror for `hf:` URIs (tests, offline mirrors). */
export const HF_ENDPOINT_ENV = "QTC_HF_ENDPOINT";

/** What to tell someone whose download failed while a command was loading its --model. */
export const OFFLINE_HINT = "To work offline, pass --model PATH (a local GGUF file) or --model synthetic:tiny.";

/** What `qtc pull` says instead: pull takes no --model, the commands that load a model do. */
export const PULL_OFFLINE_HINT =
  "Offline there is nothing to pull: give bench, run, agent or serve a GGUF file you already have as --model FILE, or --model synthetic:tiny (a model qtc writes itself).";

export interface PullOptions {
  /** Where model files go. Default: modelsDir() (`$QTC_MODELS_DIR`, else the user's cache folder). */
  modelsDir?: string;
  /** Draw node-llama-cpp's progress bar. Default: true when stderr is a TTY. */
  showProgress?: boolean;
  /**
   * Base URL `hf:` URIs resolve against. Default: `$QTC_HF_ENDPOINT`, else node-llama-cpp's own default
   * (`$HF_ENDPOINT`, `$MODEL_ENDPOINT`, or https://huggingface.co/).
   */
  hfEndpoint?: string;
  /** Download again even when the file is already present. Default: false. */
  force?: boolean;
  /**
   * How long the reachability check before the download may take, in ms. Default: PULL_DEFAULTS.probeTimeoutMs.
   * (node-llama-cpp's downloader retries a refused connection for minutes; the check fails fast instead.)
   */
  probeTimeoutMs?: number;
  /** Cancels the download (QtcException `aborted`). Default: none. */
  signal?: AbortSignal;
  /** The advice a `download_failed` message ends with. Default: OFFLINE_HINT. */
  offlineHint?: string;
}

/** Defaults of pullModel. */
export const PULL_DEFAULTS = {
  /** Default: 15,000 ms. */
  probeTimeoutMs: 15_000,
  /** Default: "https://huggingface.co/" (node-llama-cpp's default too). */
  hfEndpoint: "https://huggingface.co/",
} as const;

export interface PullResult {
  path: string;
  bytes: number;
  /** The URI or URL that was (or would have been) downloaded. */
  uri: string;
  /** True when the file was already present and nothing was downloaded. */
  alreadyPresent: boolean;
  ms: number;
}

/** A remote model: an `hf:` URI naming a file, or an http(s) URL. */
export interface RemoteModel {
  uri: string;
  /** File name inside the models directory. */
  fileName: string;
  /** For `hf:` URIs: the user, repository, branch and file path inside it. */
  hf?: { user: string; repo: string; branch: string; path: string };
}

/**
 * The remote model a spec names (a registry name, `hf:<user>/<repo>/<path>.gguf[#branch]`, or an http(s) URL),
 * or null when the spec is none of those. The local name keeps the user so two repositories cannot collide:
 * `hf_<user>_<file>`.
 */
export function remoteModelOf(spec: string): RemoteModel | null {
  const entry = findRegistryModel(spec);
  const uri = entry?.uri ?? spec;
  if (uri.startsWith("hf:")) {
    const [body, branch] = uri.slice("hf:".length).split("#");
    const [user, repo, ...rest] = body!.split("/");
    const file = rest.at(-1);
    if (!user || !repo || !file || !file.toLowerCase().endsWith(".gguf")) {
      fail("model_not_found", `"${spec}" is not an hf: URI qtc can fetch: use hf:<user>/<repo>/<file>.gguf`);
    }
    return { uri, fileName: sanitize(`hf_${user}_${file}`), hf: { user, repo, branch: branch || "main", path: rest.join("/") } };
  }
  if (/^https?:\/\//i.test(uri)) {
    const file = basename(new URL(uri).pathname);
    return { uri, fileName: sanitize(file.toLowerCase().endsWith(".gguf") ? file : `${file || "model"}.gguf`) };
  }
  return null;
}

const sanitize = (name: string): string => name.replace(/[^A-Za-z0-9._-]/g, "_");

/**
 * Where a remote model lives once downloaded (it may not exist yet): in `modelsDir`, or, for the default folder,
 * where an older qtc downloaded it (`<package root>/models`) when it is only there (see findModelFile).
 */
export function localPathOf(remote: RemoteModel, modelsDir: string = defaultModelsDir()): string {
  return findModelFile(remote.fileName, modelsDir);
}

/**
 * Download a model (registry name, `hf:` URI or URL) into the models directory unless it is already there.
 * Network and HTTP failures become a QtcException `download_failed` (exit 1) that says what failed and how to
 * work offline.
 */
export async function pullModel(spec: string, opts: PullOptions = {}): Promise<PullResult> {
  const started = performance.now();
  const remote = remoteModelOf(spec);
  if (remote === null) {
    const why = spec.startsWith("synthetic:")
      ? `synthetic models are written, not downloaded: run qtc make-model, or give the other commands --model ${spec}`
      : `"${spec}" is not a registry name, an hf: URI or an http(s) URL, so there is nothing to download`;
    fail("model_not_found", why);
  }
  const dir = opts.modelsDir ?? defaultModelsDir();
  const path = localPathOf(remote, dir);
  if (!opts.force && existsSync(path)) {
    return { path, bytes: (await stat(path)).size, uri: remote.uri, alreadyPresent: true, ms: performance.now() - started };
  }
  const hfEndpoint = resolveHfEndpoint(opts.hfEndpoint);
  const hint = opts.offlineHint ?? OFFLINE_HINT;
  await probe(downloadUrlOf(remote, hfEndpoint), remote.uri, opts.probeTimeoutMs ?? PULL_DEFAULTS.probeTimeoutMs, hint, opts.signal);
  const { createModelDownloader } = await import("node-llama-cpp"); // loaded on first use: importing it costs about a second
  try {
    const downloader = await createModelDownloader({
      modelUri: remote.uri,
      dirPath: dir,
      fileName: remote.fileName,
      showCliProgress: opts.showProgress ?? process.stderr.isTTY === true,
      skipExisting: !opts.force,
      deleteTempFileOnCancel: true,
      endpoints: { huggingFace: hfEndpoint },
    });
    const downloaded = await downloader.download({ signal: opts.signal });
    return { path: downloaded, bytes: (await stat(downloaded)).size, uri: remote.uri, alreadyPresent: false, ms: performance.now() - started };
  } catch (e) {
    if (opts.signal?.aborted) fail("aborted", `download of ${remote.uri} was aborted`, { exitCode: 1 });
    fail("download_failed", `could not download ${remote.uri}: ${describeDownloadError(e)}. ${hint}`, { exitCode: 1 });
  }
}

const nonEmpty = (s: string | undefined): string | undefined => (s !== undefined && s.trim() !== "" ? s : undefined);

/** The Hugging Face base URL: the option, else $QTC_HF_ENDPOINT, $MODEL_ENDPOINT, $HF_ENDPOINT, else huggingface.co. */
export function resolveHfEndpoint(option?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen =
    nonEmpty(option) ?? nonEmpty(env[HF_ENDPOINT_ENV]) ?? nonEmpty(env.MODEL_ENDPOINT) ?? nonEmpty(env.HF_ENDPOINT) ?? PULL_DEFAULTS.hfEndpoint;
  return chosen.endsWith("/") ? chosen : `${chosen}/`;
}

/** The URL a remote model's bytes come from (for `hf:`, the repository's `resolve/<branch>/<path>` URL). */
export function downloadUrlOf(remote: RemoteModel, hfEndpoint: string): string {
  if (remote.hf === undefined) return remote.uri;
  const { user, repo, branch, path } = remote.hf;
  const file = path.split("/").map(encodeURIComponent).join("/");
  return `${hfEndpoint}${encodeURIComponent(user)}/${encodeURIComponent(repo)}/resolve/${encodeURIComponent(branch)}/${file}?download=true`;
}

/**
 * Check that the file is reachable before handing it to the downloader: a HEAD request (following redirects)
 * with a timeout. A refused connection, an unknown host or an HTTP error fails at once with download_failed.
 * 401/403 pass when HF_TOKEN is set, since node-llama-cpp retries with the token.
 */
async function probe(url: string, uri: string, timeoutMs: number, hint: string, signal?: AbortSignal): Promise<void> {
  const timeout = AbortSignal.timeout(timeoutMs);
  let status: number;
  try {
    const res = await fetch(url, { method: "HEAD", redirect: "follow", signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    status = res.status;
  } catch (e) {
    if (signal?.aborted) fail("aborted", `download of ${uri} was aborted`, { exitCode: 1 });
    const why = timeout.aborted ? `no answer from ${new URL(url).host} within ${timeoutMs} ms` : describeDownloadError(e);
    fail("download_failed", `could not download ${uri}: ${why}. ${hint}`, { exitCode: 1 });
  }
  if (status < 400) return;
  if ((status === 401 || status === 403) && nonEmpty(process.env.HF_TOKEN) !== undefined) return;
  fail("download_failed", `could not download ${uri}: ${describeStatus(status)} from ${url}. ${hint}`, { exitCode: 1 });
}

const describeStatus = (status: number): string => `HTTP ${status}${HTTP_REASONS[status] ? ` (${HTTP_REASONS[status]})` : ""}`;

/**
 * One short phrase for why a download failed: the HTTP status, a refused connection, an unknown host (offline),
 * a timeout, or the error's own first line.
 */
export function describeDownloadError(e: unknown): string {
  const chain: unknown[] = [];
  for (let cur: unknown = e; cur != null && chain.length < 6; cur = (cur as { cause?: unknown }).cause) chain.push(cur);
  const text = chain.map((c) => `${(c as { code?: unknown }).code ?? ""} ${c instanceof Error ? c.message : String(c)}`).join(" | ");
  const statusProp = chain.map((c) => (c as { statusCode?: unknown }).statusCode).find((n) => typeof n === "number");
  const status = typeof statusProp === "number" ? statusProp : Number(/\bstatus(?: code)?:? ?([1-5]\d\d)\b/i.exec(text)?.[1] ?? NaN);
  if (/ECONNREFUSED/.test(text)) return "connection refused (is the server up, or are you offline?)";
  if (/ENOTFOUND|EAI_AGAIN/.test(text)) return "host not found (no network, or DNS is down)";
  if (/ETIMEDOUT|timed? ?out/i.test(text)) return "the connection timed out";
  if (/ECONNRESET|socket hang up/i.test(text)) return "the connection was reset";
  if (Number.isFinite(status)) return describeStatus(status);
  const messages = chain.map((c) => (c instanceof Error ? c.message : String(c)).split("\n")[0]!);
  return (messages.length > 1 ? `${messages[0]}: ${messages.at(-1)}` : messages[0]!).slice(0, 200);
}

const HTTP_REASONS: Readonly<Record<number, string>> = {
  401: "unauthorized: the repository may be gated; set HF_TOKEN",
  403: "forbidden",
  404: "not found",
  429: "rate limited",
  500: "server error",
  503: "service unavailable",
};
