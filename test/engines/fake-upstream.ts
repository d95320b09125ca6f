// Owns: a tiny fake upstream on 127.0.0.1 (node:http) for the failure tests: llama-server's /props, /tokenize,
// /health and /completion, and an OpenAI /v1/chat/completions, each answering as `behaviour` says (well, 500,
// a hang, garbage, a dropped grammar, a stream cut mid-way), switchable between requests.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Behaviour = "ok" | "500" | "hang" | "garbage" | "drop-grammar" | "cut";

export interface FakeUpstream {
  url: string;
  behaviour: Behaviour;
  /** What the chat endpoint's model writes (raw text, `<tool_call>` blocks included). */
  chatText: string;
  /** Requests /completion and /v1/chat/completions received. */
  generations: number;
  /** Requests /tokenize received. */
  tokenizeCalls: number;
  /** Runs first on every request; returning true means it answered (a test's own hostile reply). */
  override: ((req: IncomingMessage, res: ServerResponse, json: Record<string, unknown>) => boolean) | undefined;
  /** Stop listening and drop every connection (a refused connection from now on). */
  stop(): Promise<void>;
  /** Listen again on the same port. */
  start(): Promise<void>;
}

/** Qwen3's spellings of the added tokens qtc's formats name. */
const QWEN3_SPELLINGS: Record<number, string> = {
  151643: "<|endoftext|>",
  151644: "<|im_start|>",
  151645: "<|im_end|>",
  151657: "<tool_call>",
  151658: "</tool_call>",
  151665: "<tool_response>",
  151666: "</tool_response>",
  151667: "<think>",
  151668: "</think>",
};

export const CALL_TEXT = '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>';

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    req.on("data", (c: Buffer) => (text += c.toString("utf8")));
    req.on("end", () => resolve(text));
  });
}

function sse(res: ServerResponse, events: unknown[]): void {
  res.writeHead(200, { "content-type": "text/event-stream" });
  for (const e of events) res.write(`data: ${JSON.stringify(e)}\n\n`);
  res.end();
}

/** Split text into a few pieces, as a server streams it. */
function pieces(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 7) out.push(text.slice(i, i + 7));
  return out;
}

export async function startFakeUpstream(): Promise<FakeUpstream> {
  let server: Server;
  let port = 0;
  const fake: FakeUpstream = {
    url: "",
    behaviour: "ok",
    chatText: CALL_TEXT,
    generations: 0,
    tokenizeCalls: 0,
    override: undefined,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
    start: async () => {
      server = createServer((req, res) => void handle(req, res));
      await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
      port = (server.address() as AddressInfo).port;
      fake.url = `http://127.0.0.1:${port}`;
    },
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const text = await body(req);
    const json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    if (fake.override?.(req, res, json)) return;
    if (req.url === "/health" || req.url === "/v1/models") {
      res.writeHead(fake.behaviour === "500" ? 500 : 200, { "content-type": "application/json" }).end('{"status":"ok","data":[]}');
      return;
    }
    if (req.url === "/props") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ model_path: "/models/fake.gguf", total_slots: 2, default_generation_settings: { n_ctx: 4096 } }));
      return;
    }
    if (req.url === "/tokenize") {
      fake.tokenizeCalls++;
      const content = json.content;
      // As llama-server: an array's strings are tokenized one by one, its numbers passed through as ids.
      const textTokens = (s: string) => Array.from({ length: Math.max(1, Math.ceil(s.length / 4)) }, (_, i) => 100 + i);
      const tokens = Array.isArray(content)
        ? json.with_pieces === true
          ? content.map((id) => ({ id, piece: QWEN3_SPELLINGS[id as number] ?? `<added${String(id)}>` }))
          : content.flatMap((p) => (typeof p === "number" ? [p] : textTokens(String(p))))
        : textTokens(String(content));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ tokens }));
      return;
    }
    fake.generations++;
    if (fake.behaviour === "hang") return; // never answers
    if (fake.behaviour === "500") {
      res.writeHead(500, { "content-type": "application/json" }).end('{"error":{"message":"boom"}}');
      return;
    }
    if (fake.behaviour === "garbage") {
      res.writeHead(200, { "content-type": "text/event-stream" }).end("data: {not json\n\n");
      return;
    }
    if (req.url === "/completion") {
      const chunks = pieces(CALL_TEXT).map((content) => ({ content, tokens: [1], stop: false }));
      if (fake.behaviour === "cut") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        // Visible text first, so the client has seen the stream start before the upstream dies.
        res.write(`data: ${JSON.stringify({ content: "Let me look. ", tokens: [1], stop: false })}\n\n`);
        setTimeout(() => res.socket?.destroy(), 50);
        return;
      }
      const grammar = fake.behaviour === "drop-grammar" ? "" : json.grammar;
      const final = { content: "", stop: true, stop_type: "eos", tokens_predicted: chunks.length, tokens_evaluated: 10, generation_settings: { grammar, grammar_lazy: json.grammar_lazy ?? false }, timings: { predicted_per_second: 100 } };
      sse(res, [...chunks, final]);
      return;
    }
    if (req.url === "/v1/chat/completions") {
      const chunks = pieces(fake.chatText).map((content) => ({ choices: [{ index: 0, delta: { content }, finish_reason: null }] }));
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const c of chunks) res.write(`data: ${JSON.stringify(c)}\n\n`);
      if (fake.behaviour === "cut") {
        setTimeout(() => res.socket?.destroy(), 50);
        return;
      }
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 10, completion_tokens: chunks.length } })}\n\n`);
      res.end("data: [DONE]\n\n");
      return;
    }
    res.writeHead(404).end();
  };
  await fake.start();
  return fake;
}
