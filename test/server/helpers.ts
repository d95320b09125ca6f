// Owns: test helpers for the server: start one on a free loopback port, post raw bodies, read SSE streams.

import { request as httpRequest } from "node:http";
import type { FastifyInstance } from "fastify";
import { expect } from "vitest";
import { createServer, type ServerOptions } from "../../src/server/index.js";

export interface Running {
  app: FastifyInstance;
  /** `http://127.0.0.1:PORT` */
  url: string;
}

export async function start(options: ServerOptions): Promise<Running> {
  const app = createServer(options);
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return { app, url };
}

/** POST a raw body (string) or JSON (anything else). */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any; text: string; headers: Record<string, string> }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: Object.fromEntries(res.headers.entries()) };
}

/** Expect OpenAI's error shape with this status and code. */
export function expectOpenAIError(res: { status: number; json: any }, status: number, code: string, param?: string | null): void {
  expect(res.status).toBe(status);
  expect(Object.keys(res.json)).toEqual(["error"]);
  expect(Object.keys(res.json.error).sort()).toEqual(["code", "message", "param", "type"]);
  expect(res.json.error.code).toBe(code);
  expect(typeof res.json.error.message).toBe("string");
  expect(res.json.error.message.length).toBeGreaterThan(10);
  if (param !== undefined) expect(res.json.error.param).toBe(param);
}

/** Expect Anthropic's error shape with this status and error type. */
export function expectAnthropicError(res: { status: number; json: any }, status: number, type: string): void {
  expect(res.status).toBe(status);
  expect(res.json.type).toBe("error");
  expect(Object.keys(res.json.error).sort()).toEqual(["message", "type"]);
  expect(res.json.error.type).toBe(type);
  expect(res.json.error.message.length).toBeGreaterThan(10);
}

/** Parse an SSE body into `{event, data}` records (data JSON-parsed unless it is `[DONE]`). */
export function parseSse(text: string): Array<{ event?: string; data: any }> {
  return text
    .split("\n\n")
    .filter((frame) => frame.trim() !== "")
    .map((frame) => {
      let event: string | undefined;
      let data = "";
      for (const line of frame.split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      return { event, data: data === "[DONE]" ? data : JSON.parse(data) };
    });
}

/** Poll until `check()` is true (or fail after `ms`: a hang guard, generous so a loaded machine never trips it). */
export async function waitFor(check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

export const READ_FILE_OPENAI = {
  type: "function" as const,
  function: {
    name: "read_file",
    description: "Read a file",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false },
  },
};

export const READ_FILE_ANTHROPIC = {
  name: "read_file",
  description: "Read a file",
  input_schema: { type: "object" as const, properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false },
};

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

/**
 * One HTTP/1.1 request with the path sent exactly as given (no URL normalisation, unlike fetch): for encoded,
 * dotted and doubled paths.
 */
export function rawRequest(url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port: Number(port), method, path, agent: false, headers: { ...(payload !== undefined ? { "content-type": "application/json" } : {}), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(payload);
  });
}
