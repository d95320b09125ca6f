// Soak: `qtc serve` on the real runtime with the synthetic tiny Qwen3, 2,000 short requests over 200 distinct
// tool sets (each set compiles its validators and grammar once, then falls out of the bounded caches). The heap
// after the run, once garbage is collected, stays within a stated bound of the heap after the first pass over
// every set: no cache grows with the number of distinct tool sets a long-running server sees.

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createRuntime } from "../../src/engines/index.js";
import type { Runtime } from "../../src/runtime/runtime.js";
import { tinyModelPath } from "../helpers/models.js";
import { post, type Running, start } from "./helpers.js";

const TOOL_SETS = 200;
/**
 * 400 in the suite (every set seen twice, so the caches fill and evict); `npm run soak` runs the 2,000 of issue 14.
 * QTC_SOAK_REQUESTS sets it (each request is ~25 ms on an idle 2-core machine, far more when it is busy).
 */
const REQUESTS = Number(process.env.QTC_SOAK_REQUESTS ?? 400);
const CONCURRENCY = 4;
/**
 * Heap growth allowed from the warm-up to the largest sample (after a forced GC). Measured on the 2-core machine
 * (issue 14): before the caches moved to their owners, 76.4 → 79.1 → 80.4 MiB at 8 / 200 / 400 requests; after,
 * 77.0 → 81.7 → 82.3, and 81.2 → 82.0 → 83.3 → 82.8 MiB at 200 / 1,000 / 1,800 / 2,000 requests of the full run.
 * The bounded caches hold ~85 KiB a tool set (64 sets at most); one unbounded per-set cache would hold all 200
 * sets, ~17 MiB, by the end of the first pass.
 */
const GROWTH_BOUND_MIB = 12;

/** A forced full GC (`--expose-gc` turned on at run time; the function is taken from a fresh context). */
function collector(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

/** Tool set `k`: two tools whose names and properties are unique to the set. */
function toolSet(k: number) {
  const str = { type: "string", maxLength: 40 };
  return [
    { type: "function", function: { name: `read_${k}`, parameters: { type: "object", properties: { [`path_${k}`]: str }, required: [`path_${k}`], additionalProperties: false } } },
    { type: "function", function: { name: `grep_${k}`, parameters: { type: "object", properties: { [`pattern_${k}`]: str, path: str }, required: [`pattern_${k}`], additionalProperties: false } } },
  ];
}

let runtime: Runtime;
let server: Running;

beforeAll(async () => {
  runtime = await createRuntime({ model: await tinyModelPath(), threads: 2, contextSize: 1024, sequences: CONCURRENCY, gpu: "cpu" });
  server = await start({ runtime, parallel: CONCURRENCY });
});
afterAll(async () => {
  await server?.app.close();
  await runtime?.close();
});

async function one(i: number): Promise<void> {
  const k = i % TOOL_SETS;
  const body = {
    model: "tiny",
    messages: [{ role: "user", content: `Request ${i}: look at file ${k}.` }],
    tools: toolSet(k),
    tool_choice: "auto",
    max_tokens: 1 + (i % 2),
    seed: i,
    ...(i % 2 === 1 ? { stream: true } : {}),
  };
  const res = await post(`${server.url}/v1/chat/completions`, body);
  if (res.status !== 200) throw new Error(`request ${i}: ${res.status} ${res.text.slice(0, 300)}`);
}

/** Requests `from` to `to - 1`, CONCURRENCY at a time. */
async function run(from: number, to: number): Promise<void> {
  let next = from;
  const worker = async () => {
    while (next < to) await one(next++);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

function settledHeapMiB(gc: () => void): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

/** Requests before the first heap sample: code paths loaded and compiled, a few tool sets in the caches. */
const WARM_UP = 8;

test(`${REQUESTS} requests over ${TOOL_SETS} distinct tool sets keep the heap within ${GROWTH_BOUND_MIB} MiB of its size after warming up`, async () => {
  const gc = collector();
  const startedAt = performance.now();
  const samples: Array<[number, number]> = [];
  const sample = (done: number) => {
    samples.push([done, settledHeapMiB(gc)]);
    console.log(`soak: ${done} requests, ${((performance.now() - startedAt) / 1000).toFixed(0)} s, heap ${samples.at(-1)![1].toFixed(1)} MiB`);
  };
  await run(0, WARM_UP);
  sample(WARM_UP);
  for (let from = WARM_UP; from < REQUESTS; ) {
    const to = from < TOOL_SETS ? TOOL_SETS : Math.min(REQUESTS, from + 4 * TOOL_SETS);
    await run(from, to);
    sample(to);
    from = to;
  }
  const warm = samples[0]![1];
  const peak = Math.max(...samples.map(([, heap]) => heap));
  console.log(`soak: heap after GC (MiB) ${samples.map(([n, heap]) => `${n}: ${heap.toFixed(1)}`).join(", ")}; growth ${(peak - warm).toFixed(1)} MiB`);
  // An unbounded cache of anything per tool set would grow through the first pass (200 sets) and stay there.
  expect(peak - warm).toBeLessThan(GROWTH_BOUND_MIB);
}, 1_800_000);
