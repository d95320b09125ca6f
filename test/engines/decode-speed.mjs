// Owns: a side-by-side decode-speed run (not a test): local engine vs llama-server, with and without the grammar,
// the same requests interleaved. Usage: npx tsc -p tsconfig.json && node test/engines/decode-speed.mjs http://127.0.0.1:PORT [N]
import { createRuntime } from "../../dist/engines/index.js";
import { HARNESS_TOOLS } from "../../dist/harness/index.js";
const url = process.argv[2];
const local = await createRuntime({ model: "synthetic:tiny", threads: 1, contextSize: 2048 });
const remote = await createRuntime({ model: `llama-server:${url}` });
const sums = {};
const N = Number(process.argv[3] ?? 12);
for (let i = 0; i < N; i++) {
  for (const [engine, rt] of [["local", local], ["llama-server", remote]]) {
    for (const mode of ["unconstrained", "constrained"]) {
      const r = await rt.generate({ messages: [{ role: "user", content: `Task ${i}: fix the test.` }], tools: [...HARNESS_TOOLS], toolChoice: { name: "write_file" }, mode, maxTokens: 256, seed: 500 + i });
      const k = `${engine} ${mode}`;
      const s = (sums[k] ??= { tokens: 0, ms: 0, rates: [] });
      s.tokens += r.usage.completionTokens; s.rates.push(r.timings.decodeTokensPerSecond);
    }
  }
}
for (const [k, s] of Object.entries(sums)) {
  const sorted = [...s.rates].sort((a, b) => a - b);
  console.log(k.padEnd(28), "median decode tok/s", sorted[Math.floor(sorted.length / 2)].toFixed(1), "tokens", s.tokens);
}
await local.close(); await remote.close();
