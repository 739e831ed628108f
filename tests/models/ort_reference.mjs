// Runs an ONNX model on ONNX Runtime (CPU, the npm package onnxruntime-node) as the reference
// for Tessera's model checks and benchmarks.
//
//   node ort_reference.mjs run MODEL.onnx --input NAME=FILE.npy... --output-dir DIR
//       writes DIR/<output name>.npy for every model output
//   node ort_reference.mjs bench MODEL.onnx (--input NAME=FILE.npy | --shape NAME=1x3x48x192)...
//       [--shape-cycle NAME=1x3x48x320,1x3x48x96,...] [--runs 20] [--warmup 3] [--json]
//   --shape-cycle: input NAME takes the next shape on every run, in turn, in one session (as
//   `tessera bench --shape-cycle`); warm-up goes through the list once; compare mean_ms.
//       median/min/max latency of session.run in ms
//
// Common options: --threads N (intra-op threads, default 2), --ort-dir DIR (where
// onnxruntime-node is installed; default: third_party/ort of this repository, or
// $TESSERA_ORT_DIR).
import fs from 'node:fs';
import path from 'node:path';
import { createSession, defaultOrtDir, loadOrt } from './ort_load.mjs';

function fail(message) {
  process.stderr.write(`ort_reference: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const args = { command: argv[0], model: argv[1], inputs: [], shapes: [], cycle: null, threads: 2,
                 runs: 20, warmup: 3, json: false, outputDir: null,
                 ortDir: defaultOrtDir };
  if (!['run', 'bench'].includes(args.command) || !args.model) {
    fail('usage: ort_reference.mjs run|bench MODEL.onnx [options] (see the top of this file)');
  }
  for (let i = 2; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) fail(`${flag} needs a value`);
      return argv[++i];
    };
    const pair = (v) => {
      const eq = v.indexOf('=');
      if (eq <= 0) fail(`${flag} expects NAME=VALUE, got '${v}'`);
      return [v.slice(0, eq), v.slice(eq + 1)];
    };
    switch (flag) {
      case '--input': args.inputs.push(pair(value())); break;
      case '--shape': args.shapes.push(pair(value())); break;
      case '--shape-cycle': args.cycle = pair(value()); break;
      case '--output-dir': args.outputDir = value(); break;
      case '--threads': args.threads = Number(value()); break;
      case '--runs': args.runs = Number(value()); break;
      case '--warmup': args.warmup = Number(value()); break;
      case '--ort-dir': args.ortDir = value(); break;
      case '--json': args.json = true; break;
      default: fail(`unknown option '${flag}'`);
    }
  }
  return args;
}

// --- .npy files (format versions 1-3, little-endian, C order) -------------------------------
const NPY_TYPES = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array],
  '<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array],
  '<i2': ['int16', Int16Array], '|i1': ['int8', Int8Array],
  '|u1': ['uint8', Uint8Array], '|b1': ['bool', Uint8Array],
};

function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') fail(`${file}: not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*True/.test(header);
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (!descr || shapeText === undefined) fail(`${file}: unreadable .npy header ${header}`);
  if (fortran) fail(`${file}: Fortran-order arrays are not supported`);
  const type = NPY_TYPES[descr];
  if (!type) fail(`${file}: unsupported dtype ${descr}`);
  const dims = shapeText.split(',').map((s) => s.trim()).filter((s) => s.length).map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  const offset = start + headerLen;
  const bytes = buf.subarray(offset, offset + count * type[1].BYTES_PER_ELEMENT);
  // Copy into an aligned buffer: typed arrays need offsets aligned to the element size.
  const data = new type[1](count);
  new Uint8Array(data.buffer).set(bytes);
  return { dtype: type[0], data: type[0] === 'bool' ? Uint8Array.from(data, (v) => v !== 0) : data, dims };
}

function writeNpy(file, tensor) {
  const entry = Object.entries(NPY_TYPES).find(([, t]) => t[0] === tensor.type);
  if (!entry) fail(`output type ${tensor.type} cannot be written as .npy`);
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` : `(${tensor.dims.join(', ')})`;
  let header = `{'descr': '${entry[0]}', 'fortran_order': False, 'shape': ${shape}, }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';  // total header: 64-aligned
  const prefix = Buffer.alloc(10);
  prefix.write('\x93NUMPY', 0, 'latin1');
  prefix[6] = 1;
  prefix[7] = 0;
  prefix.writeUInt16LE(header.length, 8);
  const data = tensor.data;
  fs.writeFileSync(file, Buffer.concat([prefix, Buffer.from(header, 'latin1'),
    Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

// Inputs for --shape: floats uniform in [-1, 1) like `tessera bench` uses, so both time the
// same kind of data (a fixed-seed generator keeps runs comparable).
function uniformTensor(ort, dims) {
  const count = dims.reduce((a, b) => a * b, 1);
  const data = new Float32Array(count);
  let state = 12345;
  for (let i = 0; i < count; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    data[i] = state / 2147483648 - 1;
  }
  return new ort.Tensor('float32', data, dims);
}

function buildFeeds(ort, session, args) {
  const feeds = {};
  for (const [name, file] of args.inputs) {
    const a = readNpy(file);
    feeds[name] = new ort.Tensor(a.dtype, a.data, a.dims);
  }
  for (const [name, shape] of args.shapes) {
    feeds[name] = uniformTensor(ort, shape.split('x').map(Number));
  }
  for (const name of session.inputNames) {
    if (!(name in feeds)) fail(`no value for model input '${name}' (use --input or --shape)`);
  }
  return feeds;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  let ort;
  try {
    ort = loadOrt(args.ortDir);
  } catch (e) {
    fail(e.message);
  }
  const session = await createSession(ort, args.model, args.threads);
  if (args.cycle) args.shapes.push([args.cycle[0], args.cycle[1].split(',')[0]]);
  const feeds = buildFeeds(ort, session, args);

  if (args.command === 'run') {
    if (!args.outputDir) fail('run needs --output-dir');
    fs.mkdirSync(args.outputDir, { recursive: true });
    const results = await session.run(feeds);
    for (const name of session.outputNames) {
      // Output names may hold characters a file name cannot: the same rule as `tessera run`.
      writeNpy(path.join(args.outputDir, `${name.replace(/[^A-Za-z0-9._-]/g, '_')}.npy`),
               results[name]);
    }
    return;
  }

  // One feed set per --shape-cycle shape (or just the one), made before timing.
  const feedSets = [feeds];
  if (args.cycle) {
    feedSets.length = 0;
    for (const shape of args.cycle[1].split(',')) {
      feedSets.push({ ...feeds, [args.cycle[0]]: uniformTensor(ort, shape.split('x').map(Number)) });
    }
  }
  const warmup = args.cycle ? Math.max(args.warmup, feedSets.length) : args.warmup;
  for (let i = 0; i < warmup; i++) await session.run(feedSets[i % feedSets.length]);
  const times = [];
  for (let i = 0; i < args.runs; i++) {
    const f = feedSets[i % feedSets.length];
    const t0 = process.hrtime.bigint();
    await session.run(f);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  times.sort((a, b) => a - b);
  const mid = times.length >> 1;
  const median = times.length % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
  const report = { median_ms: median, mean_ms: mean, min_ms: times[0], max_ms: times[times.length - 1],
                   runs: args.runs, warmup, threads: args.threads,
                   backend: 'onnxruntime-cpu', version: ort.env.versions?.common ?? 'unknown' };
  if (args.json) {
    process.stdout.write(JSON.stringify(report) + '\n');
  } else {
    process.stdout.write(`median ${median.toFixed(3)} ms, min ${report.min_ms.toFixed(3)} ms, ` +
                         `max ${report.max_ms.toFixed(3)} ms (${args.runs} runs, ` +
                         `${args.threads} threads)\n`);
  }
}

main().catch((e) => fail(e.stack || String(e)));
