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
  /** Stop listening and drop every connection (a refused connection from now on). */
  stop(): Promise<void>;
  /** Listen again on the same port. */
  start(): Promise<void>;
}

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
    if (req.url === "/health" || req.url === "/v1/models") {
      res.writeHead(fake.behaviour === "500" ? 500 : 200, { "content-type": "application/json" }).end('{"status":"ok","data":[]}');
      return;
    }
    if (req.url === "/props") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ model_path: "/models/fake.gguf", total_slots: 2, default_generation_settings: { n_ctx: 4096 } }));
      return;
    }
    if (req.url === "/tokenize") {
      const content = json.content;
      const tokens = Array.isArray(content)
        ? content.map((id) => ({ id, piece: id === 151657 ? "<tool_call>" : `<added${String(id)}>` }))
        : Array.from({ length: Math.max(1, Math.ceil(String(content).length / 4)) }, (_, i) => 100 + i);
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
