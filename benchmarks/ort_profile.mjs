// ONNX Runtime's own per-node timings of a model (CPU, onnxruntime-node's profiler), to set
// next to `tessera bench --profile` when looking for the ops where Tessera loses.
//
//   node benchmarks/ort_profile.mjs MODEL.onnx [--shape NAME=1x3x224x224]... [--runs 30]
//       [--warmup 5] [--threads 2] [--top 40]
//
// Inputs are random floats in [-1, 1) (integers 0), as `tessera bench` feeds them; inputs
// with dynamic dimensions need --shape. Prints each node's median kernel time over the runs
// (the slowest --top of them, in graph order) and a per-op-type summary. The profiler adds
// a little to each node; compare shares and per-node times, not the total with
// `tessera bench`'s latency.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSession, loadOrt } from '../tests/models/ort_load.mjs';

function fail(message) {
  process.stderr.write(`ort_profile: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const args = { model: argv[0], shapes: new Map(), runs: 30, warmup: 5, threads: 2, top: 40 };
  if (!args.model || args.model.startsWith('--')) fail('usage: ort_profile.mjs MODEL.onnx [options] (see the top of this file)');
  for (let i = 1; i < argv.length; i++) {
    const flag = argv[i];
    if (i + 1 >= argv.length) fail(`${flag} needs a value`);
    const v = argv[++i];
    switch (flag) {
      case '--shape': {
        const eq = v.indexOf('=');
        if (eq <= 0) fail(`--shape expects NAME=1x3x224x224, got '${v}'`);
        args.shapes.set(v.slice(0, eq), v.slice(eq + 1).split('x').map(Number));
        break;
      }
      case '--runs': args.runs = Number(v); break;
      case '--warmup': args.warmup = Number(v); break;
      case '--threads': args.threads = Number(v); break;
      case '--top': args.top = Number(v); break;
      default: fail(`unknown option '${flag}'`);
    }
  }
  return args;
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : 0;
}

function randomFeed(ort, session, shapes) {
  const feeds = {};
  for (const name of session.inputNames) {
    const meta = session.inputMetadata?.find?.((m) => m.name === name);
    let dims = shapes.get(name) ?? meta?.shape;
    if (!dims || dims.some((d) => typeof d !== 'number' || d < 0)) fail(`input '${name}' has dynamic dimensions: give --shape ${name}=...`);
    const count = dims.reduce((a, b) => a * b, 1);
    const type = meta?.type ?? 'float32';
    if (type === 'float32') {
      const data = new Float32Array(count);
      for (let i = 0; i < count; i++) data[i] = Math.random() * 2 - 1;
      feeds[name] = new ort.Tensor('float32', data, dims);
    } else if (type === 'int64') {
      feeds[name] = new ort.Tensor('int64', new BigInt64Array(count), dims);
    } else {
      fail(`input '${name}' is ${type}; only float32 and int64 inputs are fed`);
    }
  }
  return feeds;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const ort = loadOrt();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ort_profile-'));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));  // on errors too
  const prefix = path.join(dir, 'profile');
  // The reference runs' options, plus the profiler.
  const session = await createSession(ort, args.model, args.threads, { enableProfiling: true, profileFilePrefix: prefix });
  const feeds = randomFeed(ort, session, args.shapes);
  for (let i = 0; i < args.warmup + args.runs; i++) await session.run(feeds);
  session.endProfiling();
  await session.release?.();
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.json'));
  if (!file) fail(`the profiler wrote no file under ${dir}`);
  const events = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));

  // Node events are '<node>_kernel_time'; runs come in order, so the last --runs of each node
  // are the timed ones.
  const nodes = new Map();
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
    const name = e.name.slice(0, -'_kernel_time'.length);
    if (!nodes.has(name)) nodes.set(name, { op: e.args?.op_name ?? '?', times: [], order: nodes.size });
    nodes.get(name).times.push(e.dur / 1000);
  }
  const rows = [...nodes.entries()].map(([name, n]) => ({ name, op: n.op, order: n.order, ms: median(n.times.slice(-args.runs)) }));
  const total = rows.reduce((a, r) => a + r.ms, 0);
  const shown = new Set([...rows].sort((a, b) => b.ms - a.ms).slice(0, args.top).map((r) => r.name));
  console.log(`ONNX Runtime ${ort.env?.versions?.common ?? ''} CPU, ${args.threads} threads: median of ${args.runs} runs per node`);
  console.log('      ms  op                    node');
  for (const r of rows.filter((x) => shown.has(x.name)).sort((a, b) => a.order - b.order))
    console.log(`${r.ms.toFixed(3).padStart(8)}  ${r.op.padEnd(20)}  ${r.name}`);
  const byType = new Map();
  for (const r of rows) {
    const t = byType.get(r.op) ?? { ms: 0, count: 0 };
    t.ms += r.ms; t.count += 1;
    byType.set(r.op, t);
  }
  console.log(`by op type (summed node medians ${total.toFixed(3)} ms):`);
  for (const [op, t] of [...byType.entries()].sort((a, b) => b[1].ms - a[1].ms))
    console.log(`${t.ms.toFixed(3).padStart(8)}  ${(100 * t.ms / total).toFixed(1).padStart(5)}%  ${String(t.count).padStart(4)}  ${op}`);
}

main().catch((e) => fail(e.message));
