// ONNX Runtime (CPU) as a long-lived process, for pipelines that call models many times
// (examples/ocr_page's ONNX Runtime engine): one session per model, kept, so a call costs
// what session.run costs and not a Node start and a model load.
//
//   node ort_serve.mjs [--threads N] [--ort-dir DIR]
//
// Protocol on stdin/stdout, one request at a time. A request is a JSON line, then the raw
// bytes of its input (little-endian, C order):
//   {"command": "version"}
//   {"command": "run", "model": PATH, "input": {"dtype": "float32", "dims": [1, 3, 48, 320]}}
// (the model's only input). The answer is a JSON line, then the raw bytes of each output:
//   {"ok": true, "run_ms": 12.3, "outputs": [{"name": ..., "dtype": ..., "dims": [...]}]}
//   {"ok": false, "error": "..."}
// run_ms is session.run's time, measured here. End of stdin ends the process.
import { createSession, defaultOrtDir, loadOrt } from './ort_load.mjs';

const TYPES = { float32: Float32Array, int64: BigInt64Array, int32: Int32Array, uint8: Uint8Array };

// Reads lines and exact byte counts from a stream that delivers chunks of any size.
class StreamReader {
  constructor(stream) {
    this.chunks = [];
    this.length = 0;
    this.ended = false;
    this.wake = null;
    stream.on('data', (c) => { this.chunks.push(c); this.length += c.length; this.notify(); });
    stream.on('end', () => { this.ended = true; this.notify(); });
  }

  notify() {
    if (this.wake) { const w = this.wake; this.wake = null; w(); }
  }

  joined() {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0] ?? Buffer.alloc(0);
  }

  take(n) {
    const all = this.joined();
    this.chunks = [all.subarray(n)];
    this.length -= n;
    return all.subarray(0, n);
  }

  async bytes(n) {
    while (this.length < n) {
      if (this.ended) return null;
      await new Promise((r) => { this.wake = r; });
    }
    return this.take(n);
  }

  async line() {
    for (;;) {
      const nl = this.joined().indexOf(10);
      if (nl >= 0) return this.take(nl + 1).toString('utf8');
      if (this.ended) return null;
      await new Promise((r) => { this.wake = r; });
    }
  }
}

function parseArgs(argv) {
  const args = { threads: 2, ortDir: defaultOrtDir };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--threads' && i + 1 < argv.length) args.threads = Number(argv[++i]);
    else if (argv[i] === '--ort-dir' && i + 1 < argv.length) args.ortDir = argv[++i];
    else throw new Error(`unknown option '${argv[i]}' (--threads N, --ort-dir DIR)`);
  }
  return args;
}

function reply(header, arrays = []) {
  process.stdout.write(JSON.stringify(header) + '\n');
  for (const a of arrays) process.stdout.write(Buffer.from(a.buffer, a.byteOffset, a.byteLength));
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const ort = loadOrt(args.ortDir);
  const sessions = new Map();
  const reader = new StreamReader(process.stdin);
  for (;;) {
    const line = await reader.line();
    if (line === null) return;
    let request;
    try {
      request = JSON.parse(line);
    } catch (e) {
      reply({ ok: false, error: `not a JSON request: ${e.message}` });
      return;  // the byte stream cannot be trusted after this
    }
    if (request.command === 'version') {
      reply({ ok: true, version: ort.env.versions?.common ?? 'unknown' });
      continue;
    }
    const input = request.input ?? {};
    const Type = TYPES[input.dtype];
    const dims = Array.isArray(input.dims) ? input.dims.map(Number) : null;
    if (request.command !== 'run' || !Type || !dims || dims.some((d) => !(d >= 0))) {
      reply({ ok: false, error: `bad request ${line.trim()}` });
      return;
    }
    const count = dims.reduce((a, b) => a * b, 1);
    const bytes = await reader.bytes(count * Type.BYTES_PER_ELEMENT);
    if (bytes === null) return;
    try {
      if (!sessions.has(request.model)) {
        sessions.set(request.model, await createSession(ort, request.model, args.threads));
      }
      const session = sessions.get(request.model);
      const data = new Type(count);  // an aligned copy: typed arrays need aligned offsets
      new Uint8Array(data.buffer).set(bytes);
      const feeds = { [session.inputNames[0]]: new ort.Tensor(input.dtype, data, dims) };
      const t0 = process.hrtime.bigint();
      const results = await session.run(feeds);
      const runMs = Number(process.hrtime.bigint() - t0) / 1e6;
      const outputs = session.outputNames.map((name) => results[name]);
      for (const t of outputs) {
        if (!TYPES[t.type]) throw new Error(`output type ${t.type} is not served`);
      }
      reply({ ok: true, run_ms: runMs,
              outputs: outputs.map((t, i) => ({ name: session.outputNames[i], dtype: t.type, dims: t.dims })) },
            outputs.map((t) => t.data));
    } catch (e) {
      reply({ ok: false, error: e.message });
    }
  }
}

main().catch((e) => {
  process.stderr.write(`ort_serve: ${e.stack || e}\n`);
  process.exit(2);
});
