// Owns: what the real-client acceptance tests share: `qtc serve` on the synthetic tiny Qwen3 behind a recording
// proxy on 127.0.0.1 (every request and response the client exchanged, streams included), a scratch HOME and
// workspace per client, running a client CLI bounded in time with its network pointed only at loopback, and
// reading the exchanges back (tool lists sent, calls returned, results sent back).

import { spawn, spawnSync } from "node:child_process";
import diagnostics from "node:diagnostics_channel";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve, type ServeOptions, type Serving } from "../../src/server/serve.js";

/** The repo root. */
export const REPO = fileURLToPath(new URL("../..", import.meta.url));
/** The client package (test/clients/package.json): the clients live in its node_modules, not the root's. */
export const CLIENTS = fileURLToPath(new URL(".", import.meta.url));

/** A package installed in the client package: its folder, version and engines, or null when it is not installed. */
export function clientPackage(name: string): { dir: string; version: string; node: string | undefined; bins: Record<string, string> } | null {
  const dir = join(CLIENTS, "node_modules", name);
  if (!existsSync(join(dir, "package.json"))) return null;
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string; version: string; engines?: { node?: string }; bin?: string | Record<string, string> };
  const bins = typeof pkg.bin === "string" ? { [pkg.name.split("/").pop()!]: pkg.bin } : (pkg.bin ?? {});
  return { dir, version: pkg.version, node: pkg.engines?.node, bins: Object.fromEntries(Object.entries(bins).map(([k, v]) => [k, join(dir, v)])) };
}

/** The Node major a client's `engines` asks for at least (`>=22.0.0` -> 22), or 0 when it names none. */
export function minimumNodeMajor(engines: string | undefined): number {
  const m = /^\s*>=\s*(\d+)/.exec(engines ?? "");
  return m ? Number(m[1]) : 0;
}

/** The major of the Node that runs client CLIs: the first `node` on PATH, which .ci/run sets to Node 24. */
export const CLIENT_NODE_MAJOR = Number(/^v(\d+)/.exec(spawnSync("node", ["--version"], { encoding: "utf8" }).stdout ?? "")?.[1] ?? 0);
/** Context of the served model: the issue's measurements used 32,768, what agents' prompts need. */
export const CONTEXT_SIZE = 32_768;
/** The API key every client is given (qtc serve requires it, so a client that sends none fails loudly). */
export const API_KEY = "qtc-test-key";
/** The model name clients are told to use: one no client knows, like every local model. */
export const MODEL_NAME = "qwen3-local";

/** One HTTP exchange between the client and qtc serve, as the proxy saw it. */
export interface Exchange {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The request body parsed as JSON (undefined when it is not JSON). */
  body: any;
  status: number;
  /** The response body as text (a stream's whole SSE text). */
  response: string;
  /** The client went away before the answer ended (it exited with the request in flight). */
  abandoned: boolean;
}

export interface Qtc {
  /** The proxy's URL, `http://127.0.0.1:PORT` with no path: what clients are pointed at. */
  url: string;
  /** Every exchange so far, in order of arrival; one still being answered has status 0. */
  exchanges: Exchange[];
  /** The tool-call format the served model's template was detected as. */
  format: string;
  close(): Promise<void>;
}

/**
 * Start `qtc serve --model synthetic:tiny --api-key …` (the library's serve(), which the command calls; `serve`
 * adds other flags' options) and a recording proxy in front. `model`: another model spec (default: synthetic:tiny).
 */
export async function startQtc(options: { contextSize?: number; serve?: Partial<ServeOptions>; model?: string } = {}): Promise<Qtc> {
  const served: Serving = await serve({ ...options.serve, model: options.model ?? "synthetic:tiny", host: "127.0.0.1", port: 0, threads: 1, gpu: "cpu", contextSize: options.contextSize ?? CONTEXT_SIZE, apiKey: API_KEY });
  const exchanges: Exchange[] = [];
  const upstream = new URL(served.url);
  const proxy: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      let body: unknown;
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        body = undefined;
      }
      // Recorded as it arrives (status 0 until the answer ends), so a run cut off at its time bound still shows it.
      const exchange: Exchange = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body, status: 0, response: "", abandoned: false };
      exchanges.push(exchange);
      // A client that goes away mid-answer: qtc sees the disconnect too (and cancels the generation).
      res.on("close", () => {
        if (res.writableFinished) return;
        exchange.abandoned = true;
        out.destroy();
      });
      const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host, "content-length": String(raw.length) } }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        const back: Buffer[] = [];
        up.on("data", (c: Buffer) => {
          back.push(c);
          res.write(c);
        });
        up.on("end", () => {
          res.end();
          exchange.status = up.statusCode ?? 0;
          exchange.response = Buffer.concat(back).toString("utf8");
        });
      });
      out.on("error", () => res.destroy());
      out.end(raw);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  return {
    url,
    exchanges,
    format: served.runtime.format,
    close: async () => {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await served.close();
    },
  };
}

/** A scratch HOME (nothing of the user's configuration, no login) and a workspace with one known file. */
export interface Scratch {
  home: string;
  work: string;
}

export const NOTE = { name: "notes.txt", text: "qtc acceptance note\n" };

export function scratch(client: string): Scratch {
  const root = mkdtempSync(join(tmpdir(), `qtc-client-${client}-`));
  const home = join(root, "home");
  const work = join(root, "work");
  mkdirSync(home);
  mkdirSync(work);
  writeFileSync(join(work, NOTE.name), NOTE.text);
  return { home, work };
}

const DEAD_PROXY = "http://127.0.0.1:9";
// Anything a client sends off this machine goes to a port where nothing listens (discard, 9) and is refused;
// loopback goes direct (NO_PROXY). A client that ignores NO_PROXY (it would send loopback to the dead proxy too)
// runs with `deadProxy: false`; the strace check in runClient tells whether anything tried to leave either way.
const DEAD_PROXY_ENV = { HTTP_PROXY: DEAD_PROXY, HTTPS_PROXY: DEAD_PROXY, ALL_PROXY: DEAD_PROXY, http_proxy: DEAD_PROXY, https_proxy: DEAD_PROXY, all_proxy: DEAD_PROXY };

/**
 * Environment for a client process: a scratch HOME and XDG dirs, no proxy settings or provider keys from the
 * caller's environment, and (unless `deadProxy: false`) a proxy that refuses whatever is not loopback. Extra variables (base URL, key, model, the client's
 * telemetry switches) come from `extra`.
 */
export function clientEnv(s: Scratch, extra: Record<string, string>, options: { deadProxy?: boolean } = {}): NodeJS.ProcessEnv {
  const keep = ["PATH", "LANG", "TERM", "TZ", "QTC_MODELS_DIR"];
  const env: NodeJS.ProcessEnv = {};
  for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k];
  return {
    ...env,
    HOME: s.home,
    USERPROFILE: s.home,
    XDG_CONFIG_HOME: join(s.home, ".config"),
    XDG_DATA_HOME: join(s.home, ".local", "share"),
    XDG_CACHE_HOME: join(s.home, ".cache"),
    XDG_STATE_HOME: join(s.home, ".local", "state"),
    TMPDIR: tmpdir(),
    NO_PROXY: "127.0.0.1,localhost,::1",
    no_proxy: "127.0.0.1,localhost,::1",
    CI: "1",
    ...(options.deadProxy === false ? {} : DEAD_PROXY_ENV),
    ...extra,
  };
}

export interface ClientRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** True when the time bound killed it. */
  killed: boolean;
  /**
   * Every address outside loopback the client or its children tried to reach (connect/sendto/sendmsg, DNS
   * included), traced with strace; undefined when strace is not installed (.ci/run installs it).
   */
  egress?: string[];
}

/** Whether strace can trace here (installed, and ptrace allowed). */
export const CAN_TRACE = spawnSync("strace", ["-qq", "-e", "trace=none", "true"], { stdio: "ignore" }).status === 0;

/** Addresses in an strace log of connect/sendto/sendmsg calls that are not loopback (AF_UNIX never counts). */
export function outsideAddresses(log: string): string[] {
  const out = new Set<string>();
  for (const m of log.matchAll(/sin_port=htons\((\d+)\), sin_addr=inet_addr\("([^"]+)"\)|sin6_port=htons\((\d+)\),[^)]*inet_pton\(AF_INET6, "([^"]+)"/g)) {
    const [port, addr] = m[2] !== undefined ? [m[1], m[2]] : [m[3], m[4]!];
    if (/^127\./.test(addr) || addr === "::1" || /^::ffff:127\./.test(addr)) continue;
    out.add(`${addr}:${port}`);
  }
  return [...out];
}

/**
 * Run a client binary (a name in the client package's node_modules/.bin, or an absolute path) in `cwd`, stdin closed, killed (its whole group) after
 * `timeoutMs`; under strace when it can trace, so the test can check nothing left the machine.
 */
export function runClient(bin: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<ClientRun> {
  const path = isAbsolute(bin) ? bin : join(CLIENTS, "node_modules", ".bin", bin);
  const trace = CAN_TRACE ? join(mkdtempSync(join(tmpdir(), "qtc-trace-")), "net.log") : undefined;
  const [cmd, argv] = trace ? ["strace", ["-f", "-qq", "-e", "trace=connect,sendto,sendmsg", "-o", trace, path, ...args]] : [path, args];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    let killed = false;
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    const timer = setTimeout(() => {
      killed = true;
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }, options.timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const egress = trace && existsSync(trace) ? outsideAddresses(readFileSync(trace, "utf8")) : undefined;
      resolve({ code, signal, stdout, stderr, killed, ...(egress ? { egress } : {}) });
    });
  });
}

/** The exchanges that asked for a generation on one route (`/v1/messages`, `/v1/responses`, `/v1/chat/completions`). */
export function generations(qtc: Qtc, route: string): Exchange[] {
  return qtc.exchanges.filter((e) => e.method === "POST" && e.path.split("?")[0]!.endsWith(route));
}

/** A one-line summary of each exchange, for assertion messages: what the client asked and what qtc answered. */
export function describeExchanges(exchanges: readonly Exchange[]): string {
  return exchanges.map((e) => `${e.method} ${e.path} → ${e.status === 0 ? "(no answer yet)" : e.status}${e.abandoned ? " (abandoned by the client)" : ""} ${e.status >= 400 ? e.response.slice(0, 400) : ""}`).join("\n");
}

/** Parse an SSE body into its data records (JSON-parsed; `[DONE]` and non-JSON records are skipped). */
export function sseData(text: string): any[] {
  const out: any[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).trimStart())
      .join("\n");
    if (!data || data === "[DONE]") continue;
    try {
      out.push(JSON.parse(data));
    } catch {
      // not JSON: not a record these tests read
    }
  }
  return out;
}

/**
 * Watch this process's outgoing connections (undici's connects, which fetch and the SDKs use, and node:net
 * sockets' lookups) while an in-process SDK runs; `stop()` returns the hosts outside loopback it tried.
 */
export function watchEgress(): { stop(): string[] } {
  const outside = new Set<string>();
  const note = (host: string | undefined, port?: unknown) => {
    if (host && !/^(127\.|localhost$|::1$|\[::1\]$)/.test(host)) outside.add(`${host}:${String(port ?? "")}`);
  };
  const onUndici = (m: any) => note(m?.connectParams?.hostname, m?.connectParams?.port);
  const onSocket = (m: any) => m?.socket?.once?.("lookup", (_e: unknown, _a: unknown, _f: unknown, host: string) => note(host));
  diagnostics.subscribe("undici:client:beforeConnect", onUndici);
  diagnostics.subscribe("net.client.socket", onSocket);
  return {
    stop: () => {
      diagnostics.unsubscribe("undici:client:beforeConnect", onUndici);
      diagnostics.unsubscribe("net.client.socket", onSocket);
      return [...outside];
    },
  };
}
