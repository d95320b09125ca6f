// The README's engine and model-level-fix commands, run as the README writes them (`npx qtc …` is bin/qtc.js here),
// with the changes test/readme/command-coverage.ts states: the llama-server and OpenAI-compatible URLs are real
// servers this test starts on free ports, the trainer runs 2 steps an epoch, the agent and bench runs are one short
// turn. The training commands run in a scratch folder holding a link to the repo's bench/, so their relative
// paths (data/, tuned.gguf, bench/tasks/fizzbuzz) work as written. Needs dist/ built and llama-server built.

import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeUpstream, type FakeUpstream } from "../engines/fake-upstream.js";
import { startLlamaServer, type LlamaServerProcess } from "../engines/llama-server-helper.js";
import { REPO, readmeText, shellCommands } from "./readme-blocks.js";

const README_REPLICAS = "npx qtc serve --upstream http://127.0.0.1:8081 --upstream http://127.0.0.1:8082";
const README_OPENAI_UPSTREAM = "npx qtc serve --upstream http://127.0.0.1:1234 --upstream-kind openai";
const README_BENCH_ENGINES = "npx qtc bench --model synthetic:tiny --model llama-server:http://127.0.0.1:8081 --constrained --tasks 3 --seeds 1";
const README_DATA = "npx qtc data --out train-data/";
const README_FINETUNE = "npx qtc finetune --model synthetic:tiny --data train-data/train.jsonl --out tuned.gguf --epochs 2";
const README_LORA = "npx qtc finetune --model synthetic:tiny --data train-data/train.jsonl --out adapter.gguf --lora 8 --alpha 16";
const README_AGENT = "npx qtc agent --task bench/tasks/fizzbuzz --model tuned.gguf --call-policy required-first";

const QTC = join(REPO, "bin", "qtc.js");
const root = mkdtempSync(join(tmpdir(), "qtc-readme-engines-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The README line's arguments after `npx qtc`, with each README URL replaced by a live one. */
function argsOf(command: string, urls: Record<string, string> = {}): string[] {
  return command.split(" ").slice(2).map((a) => Object.entries(urls).reduce((s, [from, to]) => s.replace(from, to), a));
}

function qtcSync(args: string[], cwd: string, timeout = 300_000) {
  return spawnSync(process.execPath, [QTC, ...args], { cwd, encoding: "utf8", timeout });
}

/** Start `qtc serve` (as a child), wait for its banner, run `use` on its origin, then stop it. */
async function withServe(args: string[], use: (origin: string) => Promise<void>): Promise<void> {
  const child = spawn(process.execPath, [QTC, ...args, "--port", "0"], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += String(d)));
  child.stderr.on("data", (d) => (stderr += String(d)));
  try {
    const deadline = Date.now() + 60_000;
    let origin: string | undefined;
    while (!origin && Date.now() < deadline) {
      origin = /(http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(stdout)?.[1];
      if (child.exitCode !== null) throw new Error(`qtc serve exited ${child.exitCode}: ${stderr}`);
      if (!origin) await new Promise((r) => setTimeout(r, 100));
    }
    if (!origin) throw new Error(`no banner: ${stdout}${stderr}`);
    await use(origin);
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    if (child.exitCode === null) child.kill("SIGINT");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
  }
}

const WEATHER = [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } }];

async function chat(origin: string, body: object): Promise<{ status: number; json: { choices?: { message: { tool_calls?: { function: { name: string; arguments: string } }[] } }[] } }> {
  const response = await fetch(`${origin}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as never };
}

it("the commands run here are the README's", () => {
  const commands = shellCommands(readmeText()).map((c) => c.command);
  for (const c of [README_REPLICAS, README_OPENAI_UPSTREAM, README_BENCH_ENGINES, README_DATA, README_FINETUNE, README_LORA, README_AGENT]) expect(commands).toContain(c);
});

describe("the README's engine commands", () => {
  let a: LlamaServerProcess;
  let b: LlamaServerProcess;
  beforeAll(async () => {
    [a, b] = await Promise.all([startLlamaServer(), startLlamaServer()]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("qtc serve over two llama-server replicas answers a required call structured", { timeout: 120_000 }, async () => {
    await withServe(argsOf(README_REPLICAS, { "http://127.0.0.1:8081": a.url, "http://127.0.0.1:8082": b.url }), async (origin) => {
      for (let i = 0; i < 2; i++) {
        const r = await chat(origin, { model: "m", messages: [{ role: "user", content: "weather in Paris?" }], tools: WEATHER, tool_choice: "required", max_tokens: 128, seed: i });
        expect(r.status).toBe(200);
        expect(r.json.choices?.[0]?.message.tool_calls?.[0]?.function.name).toBe("get_weather");
      }
    });
  });

  it("qtc bench across the local engine and llama-server writes one report with both", { timeout: 300_000 }, () => {
    const out = join(root, "bench");
    const r = qtcSync([...argsOf(README_BENCH_ENGINES, { "http://127.0.0.1:8081": a.url }), "--max-turns", "1", "--max-tokens", "64", "--out", out], REPO);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { rows: { model: string; mode: string }[] };
    const models = new Set(report.rows.map((row) => row.model));
    expect(models.size).toBe(2);
    expect([...models].some((m) => m.startsWith("llama-server"))).toBe(true);
  });
});

describe("the README's OpenAI-compatible upstream command", () => {
  // A chat endpoint that, like a server with no tool parser for Qwen3, leaves the call as text in content.
  let fake: FakeUpstream;
  beforeAll(async () => {
    fake = await startFakeUpstream();
    fake.chatText = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
  });
  afterAll(() => fake?.stop());

  it("turns the upstream's raw <tool_call> text into structured tool_calls", { timeout: 60_000 }, async () => {
    await withServe(argsOf(README_OPENAI_UPSTREAM, { "http://127.0.0.1:1234": fake.url }), async (origin) => {
      const r = await chat(origin, { model: "m", messages: [{ role: "user", content: "weather in Paris?" }], tools: WEATHER });
      expect(r.status).toBe(200);
      const call = r.json.choices?.[0]?.message.tool_calls?.[0]?.function;
      expect(call?.name).toBe("get_weather");
      expect(JSON.parse(call?.arguments ?? "null")).toEqual({ city: "Paris" });
    });
  });
});

describe("the README's model-level-fix commands, in order", () => {
  const work = join(root, "train");
  beforeAll(() => {
    spawnSync("mkdir", ["-p", work]);
    symlinkSync(join(REPO, "bench"), join(work, "bench"));
  });

  it("qtc data, then qtc finetune on its JSONL (full, then LoRA), then qtc agent with the tuned model", { timeout: 600_000 }, () => {
    const data = qtcSync(argsOf(README_DATA), work);
    expect(data.status, data.stderr).toBe(0);
    expect(readFileSync(join(work, "train-data", "train.jsonl"), "utf8").trim().split("\n").length).toBeGreaterThan(0);

    const tune = qtcSync([...argsOf(README_FINETUNE), "--max-steps", "2", "--threads", "1"], work);
    expect(tune.status, tune.stderr).toBe(0);
    expect(readFileSync(join(work, "tuned.gguf")).subarray(0, 4).toString("latin1")).toBe("GGUF");

    const lora = qtcSync([...argsOf(README_LORA), "--max-steps", "1", "--threads", "1"], work);
    expect(lora.status, lora.stderr).toBe(0);
    expect(readFileSync(join(work, "adapter.gguf")).subarray(0, 4).toString("latin1")).toBe("GGUF");

    const agent = qtcSync([...argsOf(README_AGENT), "--max-turns", "1", "--max-tokens", "48", "--json"], work);
    expect(agent.status, agent.stderr).toBe(0);
    const record = JSON.parse(agent.stdout) as { callPolicy?: string; turns: unknown[] };
    expect(record.turns.length).toBe(1);
  });
});
