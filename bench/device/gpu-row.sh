#!/usr/bin/env bash
# Owns: issue 50's GPU row, run on a lent device machine from the repository root after
# bench/device/pack-gpu-row.sh packed .cache/gpu here: unpack Node and the payload, build libggml-cuda.so for the
# device's GPU from the packed ggml source (flash-attention kernels off, the issue's 209 s build) into the prebuilt
# CUDA binaries' folder, make the synthetic 0.6b model, check that llama.cpp really runs on the GPU, then
# `bench:speed` at 5, 26 and 200 tools: free, constrained, and constrained with jump-forward. Everything it reports
# goes to $OUT (the device tool's folder), or /tmp/gpu-row without one. Usage: bash .cache/gpu/gpu-row.sh [rounds]
set -euo pipefail
G=.cache/gpu
OUT="${OUT:-/tmp/gpu-row}"
ROUNDS="${1:-3}"
mkdir -p "$OUT"
say() { echo "gpu-row: $* (at ${SECONDS} s)" | tee -a "$OUT/steps.txt"; }

nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
ARCH=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '.')
CUDA_HOME="${CUDA_HOME:-$(ls -d /usr/local/cuda /usr/local/cuda-* 2>/dev/null | head -n 1)}"
export PATH="$PWD/$G/node:$CUDA_HOME/bin:$PATH"
export LD_LIBRARY_PATH="$CUDA_HOME/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export QTC_MODELS_DIR="$PWD/models"
mkdir -p "$G/node"
xz -dc "$G/node.xz" > "$G/node/node" && chmod +x "$G/node/node"
xz -dc "$G/payload.tar.xz" | tar -xf -
say "unpacked; node $(node --version), CUDA at $CUDA_HOME: $( (nvcc --version || echo 'no nvcc') | tail -n 1), $(cmake --version | head -n 1)"

cmake -S "$G/ggml" -B "$G/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DGGML_BACKEND_DL=ON \
  -DGGML_NATIVE=OFF -DGGML_BUILD_TESTS=OFF -DGGML_BUILD_EXAMPLES=OFF -DCMAKE_PLATFORM_NO_VERSIONED_SONAME=ON \
  -DCMAKE_SKIP_BUILD_RPATH=ON -DGGML_OPENMP=OFF -DGGML_CUDA=ON -DGGML_CUDA_FA=OFF -DGGML_CUDA_NCCL=OFF \
  -DCMAKE_CUDA_ARCHITECTURES="$ARCH" > "$OUT/cmake.log" 2>&1 || { tail -n 30 "$OUT/cmake.log"; exit 1; }
cmake --build "$G/build" -j "$(nproc)" --target ggml-cuda > "$OUT/build.log" 2>&1 &
BUILD=$!
# The model, on one core while the build takes the rest (16 s on this project's 2-core machine).
node bin/qtc.js make-model --shape 0.6b > "$OUT/make-model.txt" 2>&1
say "model made"
wait "$BUILD" || { tail -n 40 "$OUT/build.log"; exit 1; }
cp "$G/build/bin/libggml-cuda.so" node_modules/@node-llama-cpp/linux-x64-cuda/bins/linux-x64-cuda/
say "libggml-cuda.so built for sm_$ARCH ($(du -h "$G/build/bin/libggml-cuda.so" | cut -f1))"

node bench/device/llama-devices.mjs cuda | tee "$OUT/llama-devices.json"
say "llama.cpp runs on CUDA"

node dist-bench/decode-speed.js --model synthetic:0.6b --gpu cuda --tools 5,26,200 --tool-choice required \
  --rounds "$ROUNDS" --max-tokens 128 --threads 4 --context 32768 --out "$OUT/decode-speed-gpu.json" 2> "$OUT/bench-progress.txt" | tee "$OUT/bench.txt"
say "bench done"
