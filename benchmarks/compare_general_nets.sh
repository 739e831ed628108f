#!/usr/bin/env bash
# Median latency of public nets other than PaddleOCR (conv nets, transformer encoders and
# recurrent nets; benchmarks/general_nets.py writes them) on Tessera next to ONNX Runtime's,
# timed as tests/models/bench_paddleocr.sh times PaddleOCR (interleaved rounds, each engine's
# lowest median; a markdown table; docs/PERFORMANCE.md holds the last one recorded).
#
#   benchmarks/compare_general_nets.sh [--dir build/general_nets] [bench_paddleocr.sh's options:
#                                       --tessera, --backend, --threads, --runs, --warmup, --rounds]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$ROOT/build/general_nets"
if [ "${1:-}" = "--dir" ]; then
  DIR="$2"
  shift 2
fi
/usr/bin/python3 "$ROOT/benchmarks/general_nets.py" "$DIR"
exec "$ROOT/tests/models/bench_paddleocr.sh" --runs 15 --warmup 3 --rounds 3 "$@" --models "$DIR" --no-cycle \
  --case "mobilenetv2_nhwc_224 mobilenetv2_nhwc_224.onnx 1x224x224x3" \
  --case "mobilenetv2_nhwc4_512 mobilenetv2_nhwc4_512.onnx 1x512x512x4" \
  --case "mlsd_512 mlsd_512.onnx 1x512x512x4" \
  --case "ultraface_320x240 ultraface_320x240.onnx 1x3x240x320" \
  --case "ultraface_640x480 ultraface_640x480.onnx 1x3x480x640" \
  --case "resnet18_224 resnet18_224.onnx 1x3x224x224" \
  --case "vit_s_197x384 vit_s_197x384.onnx 1x197x384" \
  --case "bert_base_128x768 bert_base_128x768.onnx 1x128x768" \
  --case "bert_base_4x128x768 bert_base_4x128x768.onnx 4x128x768" \
  --case "yolov8n_640 yolov8n_640.onnx 1x3x640x640" \
  --case "efficientnet_b0_224 efficientnet_b0_224.onnx 1x3x224x224" \
  --case "lstm_speech_100x1x80 lstm_speech_100x1x80.onnx 100x1x80" \
  --case "bilstm_crnn_64x1x96 bilstm_crnn_64x1x96.onnx 64x1x96" \
  --case "lstm_b8_50x8x128 lstm_b8_50x8x128.onnx 50x8x128" \
  --case "gru_b8_50x8x128 gru_b8_50x8x128.onnx 50x8x128" \
  --case "lstm_b32_50x32x128 lstm_b32_50x32x128.onnx 50x32x128" \
  --case "style_transfer_256 style_transfer_256.onnx 1x3x256x256" \
  --case "resnext_224 resnext_224.onnx 1x3x224x224" \
  --case "convnext_224 convnext_224.onnx 1x3x224x224" \
  --case "unet_256 unet_256.onnx 1x3x256x256" \
  --case "wav2vec_features_16000 wav2vec_features_16000.onnx 1x1x16000" \
  --case "gpt2_256x768 gpt2_256x768.onnx 1x256x768"
