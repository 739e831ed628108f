// Loading ONNX Runtime for Node.js (onnxruntime-node, installed by scripts/setup.sh into
// third_party/ort) and opening a session the way every reference run here does: CPU, N
// intra-op threads, sequential, all graph optimisations.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const defaultOrtDir = process.env.TESSERA_ORT_DIR || path.join(repoRoot, 'third_party', 'ort');

// Throws with the cause when the package is missing.
export function loadOrt(ortDir = defaultOrtDir) {
  try {
    return createRequire(path.join(path.resolve(ortDir), 'package.json'))('onnxruntime-node');
  } catch (e) {
    throw new Error(`cannot load onnxruntime-node from ${ortDir} (run scripts/setup.sh): ${e.message}`);
  }
}

// `extra`: more session options (benchmarks/ort_profile.mjs turns the profiler on).
export function createSession(ort, model, threads, extra = {}) {
  return ort.InferenceSession.create(model, {
    executionProviders: ['cpu'], intraOpNumThreads: threads, interOpNumThreads: 1,
    executionMode: 'sequential', graphOptimizationLevel: 'all', ...extra,
  });
}
