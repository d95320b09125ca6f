// Owns: the GPU row's check that llama.cpp really runs on the GPU it was asked for: llama.cpp skips a backend it
// cannot load without a word, so ask which devices it uses. Prints them as JSON; exits 1 on anything but that GPU.
// Usage: node bench/device/llama-devices.mjs [cuda|vulkan|cpu] (default cuda).
import { getLlama } from "node-llama-cpp";

const want = process.argv[2] ?? "cuda";
const llama = await getLlama({ gpu: want === "cpu" ? false : want, build: "never", skipDownload: true, progressLogs: false });
const vram = await llama.getVramState();
const report = { asked: want, gpu: llama.gpu, devices: await llama.getGpuDeviceNames(), vramTotalGiB: +(vram.total / 2 ** 30).toFixed(1) };
console.log(JSON.stringify(report));
await llama.dispose();
if (want !== "cpu" && (llama.gpu !== want || vram.total === 0)) process.exit(1);
