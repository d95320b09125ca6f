// Owns: the signed results of one test file's process: the reporter module that runs inside it (a key read from
// stdin before any task module, HMAC-SHA-256 over each result line, a sequence number, and an end line that says
// whether the test file was loaded through), the entry that loads the test file, and the reader on qtc's side
// that counts only lines it can verify.

import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { pathToFileURL } from "node:url";

/** Prefix of a report line; the reporter writes them to file descriptor 3, a pipe of its own. */
export const REPORT_MARK = "qtc-test-report ";

/** The descriptor the reporter writes to (stdin carries the key, stdout and stderr the readable output). */
export const REPORT_FD = 3;

/**
 * The reporter, `--test-reporter` of each test file's `node` and imported by the guard (test-guard.ts) first of
 * all, so it is evaluated before any module of the run:
 * - it reads a 32-byte key, in hex, from stdin (all the parent writes there, so a later read gets end of file;
 *   stdin stays open, as libuv wants descriptors 0–2 to be) and keeps it only as the two HMAC midstates in an
 *   off-heap typed array (a heap snapshot holds no copy);
 * - the HMAC is plain JavaScript over typed arrays and operators, so no method task code could patch later
 *   (`crypto`, `Buffer`, `fs`) sees the key or the text it signs; a patched `fs.writeSync` can only drop or
 *   mangle a line, which the sequence numbers and the end line give away;
 * - the reporter attaches once, to node's own test stream (the guard waits for that before any task module
 *   loads); a second call, or a second call of `entry`, is tampering and is said so in the end line;
 * - the end line is written only when node's stream ends, and says whether the entry saw the test file loaded
 *   through: a stream ended early (a forged `beforeExit` before the file's tests exist) counts as not loaded.
 * A data: URL, so no file of the run (writable by its code) holds it.
 */
const REPORTER_SOURCE = `import fs from "node:fs";
const M = ${JSON.stringify(REPORT_MARK)}, FD = ${REPORT_FD};
const readSync = fs.readSync, writeSync = fs.writeSync, stringify = JSON.stringify;
const K = new Uint32Array([0x428a2f98,0x71374491,0xb5c0fbcf,0xe9b5dba5,0x3956c25b,0x59f111f1,0x923f82a4,0xab1c5ed5,
  0xd807aa98,0x12835b01,0x243185be,0x550c7dc3,0x72be5d74,0x80deb1fe,0x9bdc06a7,0xc19bf174,0xe49b69c1,0xefbe4786,
  0x0fc19dc6,0x240ca1cc,0x2de92c6f,0x4a7484aa,0x5cb0a9dc,0x76f988da,0x983e5152,0xa831c66d,0xb00327c8,0xbf597fc7,
  0xc6e00bf3,0xd5a79147,0x06ca6351,0x14292967,0x27b70a85,0x2e1b2138,0x4d2c6dfc,0x53380d13,0x650a7354,0x766a0abb,
  0x81c2c92e,0x92722c85,0xa2bfe8a1,0xa81a664b,0xc24b8b70,0xc76c51a3,0xd192e819,0xd6990624,0xf40e3585,0x106aa070,
  0x19a4c116,0x1e376c08,0x2748774c,0x34b0bcb5,0x391c0cb3,0x4ed8aa4a,0x5b9cca4f,0x682e6ff3,0x748f82ee,0x78a5636f,
  0x84c87814,0x8cc70208,0x90befffa,0xa4506ceb,0xbef9a3f7,0xc67178f2]);
const IV = [0x6a09e667,0xbb67ae85,0x3c6ef372,0xa54ff53a,0x510e527f,0x9b05688c,0x1f83d9ab,0x5be0cd19];
const W = new Uint32Array(64);
const rotr = (x, n) => (x >>> n) | (x << (32 - n));
function compress(st, o, b, p) {
  for (let i = 0; i < 16; i++) W[i] = (b[p + 4 * i] << 24) | (b[p + 4 * i + 1] << 16) | (b[p + 4 * i + 2] << 8) | b[p + 4 * i + 3];
  for (let i = 16; i < 64; i++) {
    const a = W[i - 15], c = W[i - 2];
    W[i] = W[i - 16] + (rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3)) + W[i - 7] + (rotr(c, 17) ^ rotr(c, 19) ^ (c >>> 10));
  }
  let a = st[o], bb = st[o + 1], c = st[o + 2], d = st[o + 3], e = st[o + 4], f = st[o + 5], g = st[o + 6], h = st[o + 7];
  for (let i = 0; i < 64; i++) {
    const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + W[i]) >>> 0;
    const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & bb) ^ (a & c) ^ (bb & c))) >>> 0;
    h = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = bb; bb = a; a = (t1 + t2) >>> 0;
  }
  st[o] += a; st[o + 1] += bb; st[o + 2] += c; st[o + 3] += d; st[o + 4] += e; st[o + 5] += f; st[o + 6] += g; st[o + 7] += h;
}
// SHA-256 of (64 bytes already in the midstate at st[o..o+7]) + msg[0..n), into out[0..8). The working state
// lives in S (off-heap, like the key), never in a short-lived array a heap snapshot could catch.
const S = new Uint32Array(64);
function finish(st, o, msg, n, out) {
  for (let i = 0; i < 8; i++) S[i] = st[o + i];
  const total = Math.ceil((n + 9) / 64) * 64;
  const b = new Uint8Array(total);
  for (let i = 0; i < n; i++) b[i] = msg[i];
  b[n] = 0x80;
  const bits = (64 + n) * 8;
  for (let i = 0; i < 6; i++) b[total - 1 - i] = Math.floor(bits / 2 ** (8 * i)) & 255;
  for (let p = 0; p < total; p += 64) compress(S, 0, b, p);
  for (let i = 0; i < 8; i++) out[i] = S[i];
  S.fill(0);
  W.fill(0);
}
// The key's inner and outer midstates; 256 bytes, so V8 keeps them off its heap.
const KEY = new Uint32Array(64);
let keyed = false;
(function readKey() {
  const raw = new Uint8Array(256);
  let got = 0;
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (let tries = 0; got < 64 && tries < 2000; tries++) {
    let n = 0;
    try { n = readSync(0, raw, got, 65 - got, null); } catch (e) { if (e && e.code === "EAGAIN") { Atomics.wait(sleeper, 0, 0, 5); continue; } break; }
    if (n === 0) break;
    got += n;
  }
  const hex = (c) => (c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1);
  const pads = new Uint8Array(128);
  let valid = got >= 64;
  for (let i = 0; i < 32 && valid; i++) {
    const hi = hex(raw[2 * i]), lo = hex(raw[2 * i + 1]);
    if (hi < 0 || lo < 0) valid = false;
    else { pads[i] = ((hi << 4) | lo) ^ 0x36; pads[64 + i] = ((hi << 4) | lo) ^ 0x5c; }
  }
  for (let i = 32; i < 64; i++) { pads[i] = 0x36; pads[64 + i] = 0x5c; }
  for (let i = 0; i < 8; i++) { KEY[i] = IV[i]; KEY[8 + i] = IV[i]; }
  compress(KEY, 0, pads, 0);
  compress(KEY, 8, pads, 64);
  raw.fill(0);
  pads.fill(0);
  W.fill(0);
  keyed = valid;
})();
const HEX = "0123456789abcdef";
function mac(text) {
  const msg = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) msg[i] = text.charCodeAt(i) & 127;
  const inner = new Uint32Array(8), outer = new Uint32Array(8), ib = new Uint8Array(32);
  finish(KEY, 0, msg, text.length, inner);
  for (let i = 0; i < 32; i++) ib[i] = (inner[i >> 2] >>> (24 - 8 * (i & 3))) & 255;
  finish(KEY, 8, ib, 32, outer);
  let s = "";
  for (let i = 0; i < 32; i++) { const v = (outer[i >> 2] >>> (24 - 8 * (i & 3))) & 255; s += HEX[v >> 4] + HEX[v & 15]; }
  return s;
}
const ascii = (s) => { let o = ""; for (let i = 0; i < s.length; i++) { const c = s.charCodeAt(i); o += c < 127 ? s[i] : "\\\\u" + HEX[(c >> 12) & 15] + HEX[(c >> 8) & 15] + HEX[(c >> 4) & 15] + HEX[c & 15]; } return o; };
let seq = 0, attached = false, entered = false, loaded = false, tampered = !keyed, ended = false;
const line = (o) => { o.seq = seq++; const text = ascii(stringify(o)); writeSync(FD, M + text + " " + mac(text) + "\\n"); };
let onAttach;
export const attachedToRunner = new Promise((r) => { onAttach = r; });
const set = (v) => v !== undefined && v !== false && v !== null;
async function* sign(source) {
  try {
    for await (const e of source) {
      if (e.type !== "test:pass" && e.type !== "test:fail") continue;
      const d = e.data;
      line({ ok: e.type === "test:pass", name: String(d.name), nesting: Number(d.nesting), suite: d.details?.type === "suite",
        skip: set(d.skip), todo: set(d.todo), cancelled: d.details?.error?.failureType === "cancelledByParent" });
    }
  } catch (e) {
    tampered = true;
    try { writeSync(2, "qtc: the signed reporter failed: " + String(e && e.message) + "\\n"); } catch {}
  }
  ended = true;
  line({ end: true, loaded, tampered });
}
// An arrow function: node constructs a reporter that has a prototype with a constructor instead of calling it.
export default (source) => {
  if (attached) { tampered = true; return (async function* () {})(); }
  attached = true;
  onAttach();
  return sign(source);
};
export function entry() {
  if (entered) { tampered = true; return () => {}; }
  entered = true;
  return (ok) => { if (!ended) loaded = ok === true; };
}
`;

/** The reporter as a module URL for `--test-reporter` and the guard's import. */
export const SIGNED_REPORTER = `data:text/javascript,${encodeURIComponent(REPORTER_SOURCE)}`;

/**
 * The `--eval` module that loads one test file: it takes the reporter's one-shot entry before any task module
 * exists, imports the test file, and tells the reporter whether the import finished (a load error is printed and
 * fails the file).
 */
export function entrySource(absFile: string): string {
  return [
    `import { entry } from ${JSON.stringify(SIGNED_REPORTER)};`,
    "const loaded = entry();",
    "let ok = false;",
    `try { await import(${JSON.stringify(pathToFileURL(absFile).href)}); ok = true; }`,
    "catch (e) { process.exitCode = 1; console.error(e); }",
    "loaded(ok);",
  ].join("\n");
}

/** A fresh key for one test file's process, in the form the reporter reads from stdin. */
export function newReportKey(): { key: Buffer; stdin: string } {
  const key = randomBytes(32);
  return { key, stdin: `${key.toString("hex")}\n` };
}

/** One verified result line. */
export interface SignedResult {
  ok: boolean;
  name: string;
  nesting: number;
  suite: boolean;
  skip: boolean;
  todo: boolean;
  cancelled: boolean;
}

/** What one test file's process reported, as far as it could be verified. */
export interface SignedFileReport {
  results: SignedResult[];
  /** A verified end line arrived: node's test stream ended. */
  ended: boolean;
  /** The end line says the test file was imported through before the stream ended. */
  loaded: boolean;
  /** A line failed its check (bad signature, out of sequence, after the end), or the reporter saw tampering. */
  untrusted: boolean;
}

/** Reads the reporter's descriptor: each line checked against the key and the expected sequence number. */
export class SignedReportReader {
  private partial = "";
  private next = 0;
  private readonly report: SignedFileReport = { results: [], ended: false, loaded: false, untrusted: false };
  constructor(
    private readonly key: Buffer,
    private readonly maxLine: number,
  ) {}

  push(chunk: string): void {
    const lines = (this.partial + chunk).split("\n");
    this.partial = lines.pop()!;
    for (const l of lines) this.line(l);
    // No honest line is this long: the reporter's are bounded by the test names node gives it.
    if (this.partial.length > this.maxLine) {
      this.report.untrusted = true;
      this.partial = "";
    }
  }

  end(): SignedFileReport {
    if (this.partial) this.line(this.partial);
    this.partial = "";
    return this.report;
  }

  private line(l: string): void {
    const body = l.startsWith(REPORT_MARK) ? l.slice(REPORT_MARK.length) : null;
    const cut = body === null ? -1 : body.lastIndexOf(" ");
    if (body === null || cut < 0 || this.report.ended || !this.verified(body.slice(0, cut), body.slice(cut + 1))) {
      this.report.untrusted = true;
      return;
    }
    let r: Partial<SignedResult> & { seq?: number; end?: boolean; loaded?: boolean; tampered?: boolean };
    try {
      r = JSON.parse(body.slice(0, cut)) as typeof r;
    } catch {
      this.report.untrusted = true;
      return;
    }
    if (r.seq !== this.next++) this.report.untrusted = true;
    else if (r.end === true) this.close(r.loaded === true, r.tampered === true);
    else if (typeof r.ok === "boolean") this.report.results.push(result(r));
    else this.report.untrusted = true;
  }

  private close(loaded: boolean, tampered: boolean): void {
    this.report.ended = true;
    this.report.loaded = loaded;
    if (tampered) this.report.untrusted = true;
  }

  private verified(text: string, mac: string): boolean {
    const want = createHmac("sha256", this.key).update(text, "latin1").digest();
    const got = /^[0-9a-f]{64}$/.test(mac) ? Buffer.from(mac, "hex") : null;
    return got !== null && timingSafeEqual(want, got);
  }
}

function result(r: Partial<SignedResult>): SignedResult {
  return {
    ok: r.ok === true,
    name: String(r.name),
    nesting: Number(r.nesting) || 0,
    suite: r.suite === true,
    skip: r.skip === true,
    todo: r.todo === true,
    cancelled: r.cancelled === true,
  };
}
