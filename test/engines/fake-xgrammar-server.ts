// Fake vLLM and SGLang servers that constrain for real: each speaks its protocol's request and reply shapes
// (vLLM: POST /v1/completions with `structured_outputs.grammar`, a `text_completion` reply, per
// vllm-project/vllm docs/features/structured_outputs.md and the OpenAI completions API; SGLang: POST /generate with
// `sampling_params.ebnf`, a `{text, meta_info}` reply, per docs.sglang.io basic_usage/sampling_params and
// native_api), compiles the grammar it is sent with web-xgrammar over the Qwen3 vocabulary, and samples at random
// under xgrammar's mask (seeded), so a test sees real masking of qtc's grammar, not a canned reply. A server made
// with `ignoreGrammar` drops the grammar (as vLLM does for Qwen3 under some parsers) and samples freely.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { XgrammarSession } from "../../src/engines/xgrammar-check.js";
import { type XgCompiled } from "../../src/engines/xgrammar-wasm.js";

export interface FakeXgrammarServer {
  url: string;
  /** Every request body the server got. */
  requests: Record<string, unknown>[];
  close(): Promise<void>;
}

/** Structure tokens the sampler prefers (byte-level spellings), so random walks close what they open. */
const PREFER = ['"', '"}', "}", "}}", '"}}', "Ċ", "</", "<tool_call>", "</tool_call>", "<|im_end|>", "</parameter>", "</function>"];

/** GPT-2's byte-to-unicode table, inverted: a byte-level token spelling back to bytes. */
function byteDecoder(): Map<string, number> {
  const bs: number[] = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  const cs = [...bs];
  let n = 0;
  for (let b = 0; b < 256; b++) if (!bs.includes(b)) (bs.push(b), cs.push(256 + n++));
  return new Map(bs.map((b, i) => [String.fromCodePoint(cs[i]!), b]));
}

/** Token ids → text, as the server's detokenizer with skip_special_tokens false. */
function detokenizer(vocab: readonly string[]): (tokens: readonly number[]) => string {
  const bytes = byteDecoder();
  return (tokens) => {
    const out: number[] = [];
    for (const t of tokens) {
      const spelling = vocab[t]!;
      // Added tokens (ids from 151643) are spelled as themselves.
      if (t >= 151643) out.push(...Buffer.from(spelling, "utf8"));
      else for (const ch of spelling) out.push(bytes.get(ch) ?? 0x3f);
    }
    return Buffer.from(out).toString("utf8");
  };
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = "";
  for await (const chunk of req) text += String(chunk);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Start a fake `kind` server on 127.0.0.1 (one XgrammarSession per server; grammars compiled once each). */
export async function startFakeXgrammarServer(kind: "vllm" | "sglang", opts: { ignoreGrammar?: boolean; session?: XgrammarSession } = {}): Promise<FakeXgrammarServer> {
  const session = opts.session ?? (await XgrammarSession.create());
  const prefer = session.tokenIds(PREFER);
  const decode = detokenizer(session.vocab);
  const grammars = new Map<string, Promise<XgCompiled>>();
  const free = await session.compile('root ::= [^<]*');
  const requests: Record<string, unknown>[] = [];
  const generate = async (ebnf: string | undefined, seed: number, maxTokens: number) => {
    let compiled = free;
    if (ebnf !== undefined && !opts.ignoreGrammar) {
      if (!grammars.has(ebnf)) grammars.set(ebnf, session.compile(ebnf));
      compiled = await grammars.get(ebnf)!;
    }
    const walk = await session.walk(compiled, { seed, maxTokens, prefer, preferShare: 0.5 });
    return { text: decode(walk.tokens), tokens: walk.tokens.length, length: !walk.ended };
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "GET" && req.url === "/health") return send(200, {});
    if (req.method === "GET" && req.url === "/v1/models" && kind === "vllm") return send(200, { object: "list", data: [{ id: "Qwen/Qwen3-0.6B", object: "model" }] });
    const body = await readBody(req);
    requests.push(body);
    if (kind === "vllm" && req.method === "POST" && req.url === "/v1/completions") {
      const so = body.structured_outputs as { grammar?: string } | undefined;
      const g = await generate(so?.grammar, Number(body.seed ?? 0), Number(body.max_tokens ?? 16));
      return send(200, {
        id: "cmpl-fake",
        object: "text_completion",
        created: 0,
        model: body.model,
        choices: [{ index: 0, text: g.text, logprobs: null, finish_reason: g.length ? "length" : "stop", stop_reason: null }],
        usage: { prompt_tokens: 20, completion_tokens: g.tokens, total_tokens: 20 + g.tokens },
      });
    }
    if (kind === "sglang" && req.method === "POST" && req.url === "/generate") {
      const sp = (body.sampling_params ?? {}) as Record<string, unknown>;
      const g = await generate(sp.ebnf as string | undefined, Number(sp.sampling_seed ?? 0), Number(sp.max_new_tokens ?? 128));
      return send(200, { text: g.text, meta_info: { id: "fake", finish_reason: g.length ? { type: "length", length: g.tokens } : { type: "stop", matched: 151645 }, prompt_tokens: 20, completion_tokens: g.tokens } });
    }
    send(404, { error: "not found" });
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(e) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
