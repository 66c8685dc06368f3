#!/usr/bin/env bash
# One prepared run on a CUDA machine (an H200 here), inside a 10-minute limit: masked vs unmasked
# tokens/s with the mask on llama.cpp's backend sampling path (dense, packed and resident input)
# and on the host, host work per token, on the tiny test model, a bigger random-weight Qwen3 model
# (1.2 GB) and a real model from `npm run models` (SmolLM2-135M); and the backend path's tokens
# against the host path's (greedy must be equal). Everything it needs travels in .gpu/ and the
# real model in .gpu-model-a/ + .gpu-model-b/ (made here by `bash scripts/gpu/pack.sh`); nothing
# is downloaded there.
#
# Device calls: a call carries at most 64 MiB with the working tree (~5 MiB), .gpu/ is ~48 MiB and
# the real model 98 MB, so the model goes first in two halves, back to back (a machine stays warm
# 30 s after a call, and carried ignored folders stay there while it is warm):
#   run(command="true", carry=[".gpu-model-a"], timeout_s=60)
#   run(command="true", carry=[".gpu-model-b"], timeout_s=60)
#   run(command="bash scripts/gpu/check.sh", carry=[".gpu"], timeout_s=540)
# With only the last call (or a machine that went cold between), the real model is skipped and
# the log says so; the other two models are measured as before.
# Locally, without a GPU, `bash scripts/gpu/check.sh --cpu` runs the same steps on the CPU build
# (small sizes; the real model from its parts, or from .cache/models) to check the script itself.
# Results: $OUT/gpu-check.log, $OUT/*.json and $OUT/gpu.json, the summary to copy into
# bench/results/gpu.json (or ./gpu-check-out/ when OUT is unset): 8 files with three models, the
# most that comes back from $OUT; write nothing else there.
set -uo pipefail
cd "$(dirname "$0")/../.."
MODE=cuda
[ "${1:-}" = "--cpu" ] && MODE=cpu
OUT_DIR=${OUT:-$PWD/gpu-check-out}
mkdir -p "$OUT_DIR"
exec > >(tee -a "$OUT_DIR/gpu-check.log") 2>&1
T0=$(date +%s)
step() { echo "== [$(( $(date +%s) - T0 )) s] $*"; }

step "machine"
uname -a; nproc
if [ "$MODE" = cuda ]; then nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || { echo "no NVIDIA GPU here"; exit 1; }; fi

step "node"
NODE=node
if ! command -v node >/dev/null || [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt 20 ]; then
  [ -f .gpu/node.xz ] || { echo "no Node >= 20 here and no .gpu/node.xz (run bash scripts/gpu/pack.sh and carry .gpu)"; exit 1; }
  mkdir -p /tmp/toolmask-node && xz -dc .gpu/node.xz > /tmp/toolmask-node/node && chmod +x /tmp/toolmask-node/node
  NODE=/tmp/toolmask-node/node
fi
"$NODE" --version || exit 1

step "runtime"
if [ "$MODE" = cuda ]; then
  [ -f .gpu/runtime.tar.xz ] || { echo "no .gpu/runtime.tar.xz (run bash scripts/gpu/pack.sh here and carry .gpu)"; exit 1; }
  xz -dc .gpu/runtime.tar.xz | tar -xf - || exit 1
  # libcudart / libcublas 13 for node-llama-cpp's CUDA build: the toolkit's, or the Python wheels'.
  LIBS=$(find /usr/local/cuda*/lib64 /usr/local/cuda*/targets/*/lib /opt /usr/lib/python3* /usr/local/lib/python3* \
    \( -name 'libcublas.so.13*' -o -name 'libcudart.so.13*' \) 2>/dev/null | xargs -r -n1 dirname | sort -u | tr '\n' ':')
  export LD_LIBRARY_PATH="${LIBS}${LD_LIBRARY_PATH:-}"
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  # The CUDA build carries only PTX for sm_90 after pruning: the driver compiles it once per kernel
  # (cached here, so a rerun on the same machine starts fast).
  export CUDA_CACHE_PATH=/tmp/toolmask-cuda-cache CUDA_CACHE_MAXSIZE=4294967296
  ldd node_modules/@node-llama-cpp/linux-x64-cuda/bins/linux-x64-cuda/libggml-cuda.so | grep -E "not found|cublas|cudart" || true
fi
GPU_ARG=$([ "$MODE" = cuda ] && echo cuda || echo false)

step "models"
BIG_E=1024 BIG_L=16
[ "$MODE" = cpu ] && BIG_E=128 BIG_L=2
"$NODE" -e "
const { writeTestModel } = await import('./dist/model/test-model.js');
const { mkdirSync } = await import('node:fs');
mkdirSync('/tmp/toolmask-models', { recursive: true });
for (const [name, e, l] of [['tiny', 64, 2], ['big', $BIG_E, $BIG_L]]) {
  const t = Date.now(); const r = writeTestModel({ path: '/tmp/toolmask-models/' + name + '.gguf', seed: 1, embedding: e, layers: l });
  console.log(name, 'embedding', e, 'layers', l, (r.bytes / 1e6).toFixed(0) + ' MB', (Date.now() - t) + ' ms');
}" --input-type=module || exit 1
# The real model: its halves joined and checked against the sha256 pack.sh recorded.
MODELS="tiny big"
REAL=$(cat .gpu-model-a/name 2>/dev/null || echo smollm2-135m-instruct)
if [ -f .gpu-model-a/part ] && [ -f .gpu-model-b/part ]; then
  cat .gpu-model-a/part .gpu-model-b/part > /tmp/toolmask-models/real.gguf
  if [ "$(sha256sum /tmp/toolmask-models/real.gguf | cut -d' ' -f1)" = "$(cat .gpu-model-a/sha256)" ]; then
    echo "real: $REAL joined from its two halves, sha256 as packed"; MODELS="$MODELS real"
  else
    echo "FAILED: the real model's halves do not join to the packed sha256 (carried from different packs?)"
  fi
elif [ "$MODE" = cpu ] && [ -f ".cache/models/$REAL.gguf" ]; then
  ln -sf "$PWD/.cache/models/$REAL.gguf" /tmp/toolmask-models/real.gguf; MODELS="$MODELS real"
  echo "real: $REAL from .cache/models (no parts packed)"
else
  echo "SKIPPED: the real model ($REAL): .gpu-model-a/part and .gpu-model-b/part were not both here (carry them in the two calls just before this one)"
fi

step "load + first tokens on $GPU_ARG (PTX compiled by the driver on first use)"
timeout 240 "$NODE" --input-type=module -e "
const { loadModel, generate } = await import('./dist/index.js');
let t = Date.now(); const m = await loadModel({ path: '/tmp/toolmask-models/big.gguf', gpu: '$GPU_ARG' === 'false' ? false : '$GPU_ARG' });
console.log('loaded on', m.gpu || 'cpu', Date.now() - t, 'ms'); t = Date.now();
const r = await generate(m, { messages: [{ role: 'user', content: 'hi' }], maxTokens: 8 });
console.log('first 8 tokens', Date.now() - t, 'ms', r.timings); m.dispose();" || { echo "FAILED: could not decode on $GPU_ARG"; exit 1; }

if [ "$MODE" = cuda ]; then
  step "gpu: auto picks the CUDA build, with no CPU-fallback notice"
  timeout 120 "$NODE" --input-type=module -e "
const { loadModel } = await import('./dist/index.js');
const m = await loadModel({ path: '/tmp/toolmask-models/tiny.gguf', gpu: 'auto' });
console.log('auto loaded on', m.gpu || 'cpu'); m.dispose(); if (m.gpu !== 'cuda') process.exit(1);" 2>&1 | tee /tmp/toolmask-auto.log
  { [ "${PIPESTATUS[0]}" = 0 ] && ! grep -q "no GPU in use" /tmp/toolmask-auto.log; } || echo "FAILED: gpu: auto did not use CUDA"
fi

for name in $MODELS; do
  step "backend vs host path tokens ($name)"
  timeout 120 "$NODE" scripts/gpu/check-paths.mjs --model /tmp/toolmask-models/$name.gguf --gpu $GPU_ARG | tee "$OUT_DIR/check-paths-$name.json"
  step "masked vs unmasked tok/s and host work per token ($name)"
  timeout 150 "$NODE" scripts/bench/bench-backend-mask.mjs --model /tmp/toolmask-models/$name.gguf --gpu $GPU_ARG --tokens 200 --reps 3 \
    --out "$OUT_DIR/backend-mask-$name.json"
  # After each model: a run stopped at its limit still brings back the models it finished.
  "$NODE" scripts/gpu/summarize.mjs "$OUT_DIR" "$MODE"
done
step "done: $OUT_DIR/gpu.json (copy it to bench/results/gpu.json)"
