// real_engine_driver.mjs — ONE run of the shared workload (../shared/bench/bench-workload.json
// "procedure") through the real engine, @rindle/wasm in Node, printing its figures as one JSON
// line on stdout. workload_bench starts it once per repetition (a fresh process each time, as the
// workload's notes ask), alternating with its own run on the same data files.
//
//   node --expose-gc bench/real_engine_driver.mjs --modules DIR --workload FILE \
//        --rows rows-<scale>.jsonl --txns txns-<scale>.jsonl [--warmup-rows R --warmup-txns T]
//
// DIR is a node_modules holding @rindle/wasm (scripts/install-node-deps.sh installs the pinned
// 0.9.0 into conformance/node/node_modules). Steps and timing boundaries are the procedure's:
// register the four tables; stage every row in ONE write txn and commit (parsing is done in
// chunks of 10,000 lines between timed segments, so the harness never holds every row as JS
// objects); register the ten queries in queryId order (timed each); apply each txn line as one
// write txn (commit timed alone, and open + stage + commit); then a fresh one-shot evaluation of
// each query (db.write().query(ast), rolled back; 5 repetitions, median). The optional warm-up is
// the same procedure over a smaller data set on a separate Db first (JIT and wasm tier-up done
// before measuring), as the stored results did. Memory: the process's peak RSS
// (process.resourceUsage().maxRSS, which includes the warm-up) and RSS / wasm linear memory
// after each phase. Errors: bad usage exits 2; an engine error exits 1 with the message.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";

function usage(msg) {
  process.stderr.write(`real_engine_driver: ${msg}\n`);
  process.exit(2);
}

const args = {};
for (let i = 2; i < process.argv.length; i += 2) {
  const k = process.argv[i];
  if (!k.startsWith("--") || i + 1 >= process.argv.length) usage(`bad argument ${k}`);
  args[k.slice(2)] = process.argv[i + 1];
}
for (const k of ["modules", "workload", "rows", "txns"]) if (!args[k]) usage(`--${k} is required`);

const pkg = join(args.modules, "@rindle", "wasm");
const version = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).version;
const wasmMod = await import(pathToFileURL(join(pkg, "pkg", "rindle.js")).href);
const wasmExports = await wasmMod.default({ module_or_path: readFileSync(join(pkg, "pkg", "rindle_bg.wasm")) });
const { Db } = wasmMod;
const workload = JSON.parse(readFileSync(args.workload, "utf8"));
const TABLES = ["user", "issue", "comment", "tag"];

const median = (v) => {
  if (!v.length) return 0;
  const s = [...v].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const rank = (v, q) => {
  if (!v.length) return 0;
  const s = [...v].sort((a, b) => a - b);
  return s[Math.max(Math.ceil(q * s.length), 1) - 1];
};
const wasmBytes = () => wasmExports.memory.buffer.byteLength;
const rssBytes = () => process.memoryUsage().rss;

// Splits a file's text into lines without keeping parsed objects around; line 0 is the header.
function lines(path) {
  const text = readFileSync(path, "utf8");
  const out = text.split("\n");
  if (out.length && out[out.length - 1] === "") out.pop();
  return out;
}

function load(db, rowLines) {
  let stageMs = 0;
  const tx = db.write();
  for (let start = 1; start < rowLines.length; start += 10000) {
    const chunk = [];
    for (let i = start; i < Math.min(start + 10000, rowLines.length); i++) chunk.push(JSON.parse(rowLines[i]));
    const t0 = performance.now();
    for (const [table, row] of chunk) tx.add(table, row);
    stageMs += performance.now() - t0;
  }
  const c0 = performance.now();
  tx.commit();
  const commitMs = performance.now() - c0;
  return { stageMs, commitMs, totalMs: stageMs + commitMs };
}

function applyTxns(db, txnLines) {
  const parsed = txnLines.slice(1).map((l) => JSON.parse(l));
  const commitMs = [];
  const txnMs = [];
  const byKind = {};
  let events = 0;
  for (const t of parsed) {
    const t0 = performance.now();
    const tx = db.write();
    for (const op of t.ops) {
      if (op.op === "add") tx.add(op.table, op.row);
      else if (op.op === "remove") tx.remove(op.table, op.row);
      else tx.edit(op.table, op.old, op.row);
    }
    const c0 = performance.now();
    const batches = tx.commit();
    const t1 = performance.now();
    for (const b of batches) events += b.events.length;
    commitMs.push(t1 - c0);
    txnMs.push(t1 - t0);
    (byKind[t.kind] ??= []).push(t1 - c0);
  }
  const total = txnMs.reduce((a, b) => a + b, 0);
  const kinds = {};
  for (const [k, v] of Object.entries(byKind)) kinds[k] = median(v);
  return {
    count: parsed.length,
    events,
    commitMedian: median(commitMs),
    commitP99: rank(commitMs, 0.99),
    commitMax: rank(commitMs, 1),
    txnsPerSec: total > 0 ? parsed.length / (total / 1000) : 0,
    commitMedianByKind: kinds,
  };
}

function runOnce(rowsPath, txnsPath) {
  const phases = {};
  const db = new Db();
  for (const t of TABLES) {
    db.registerTable(t, { columns: workload.schema.columns[t], primaryKey: [0] }, false);
  }
  const loadFig = load(db, lines(rowsPath));
  if (globalThis.gc) globalThis.gc();
  phases.load = { rss: rssBytes(), wasm: wasmBytes() };
  const hydrateByQuery = {};
  let hydrateMs = 0;
  for (const q of workload.queries) {
    const t0 = performance.now();
    db.query(q.queryId, q.ast);
    const ms = performance.now() - t0;
    hydrateByQuery[q.queryId] = ms;
    hydrateMs += ms;
  }
  phases.hydrate = { rss: rssBytes(), wasm: wasmBytes() };
  const txns = applyTxns(db, lines(txnsPath));
  phases.txns = { rss: rssBytes(), wasm: wasmBytes() };
  const freshByQuery = {};
  for (const q of workload.queries) {
    const reps = [];
    for (let r = 0; r < 5; r++) {
      const tx = db.write();
      const t0 = performance.now();
      tx.query(q.ast);
      reps.push(performance.now() - t0);
      tx.rollback();
    }
    freshByQuery[q.queryId] = median(reps);
  }
  phases.fresh = { rss: rssBytes(), wasm: wasmBytes() };
  db.free();
  return { loadMs: loadFig.totalMs, load: loadFig, hydrateMs, hydrateByQuery, txns, freshByQuery, phases };
}

try {
  if (args["warmup-rows"] && args["warmup-txns"]) {
    runOnce(args["warmup-rows"], args["warmup-txns"]);
    if (globalThis.gc) globalThis.gc();
  }
  const fig = runOnce(args.rows, args.txns);
  fig.engine = `@rindle/wasm@${version}`;
  fig.node = process.version;
  fig.warmup = Boolean(args["warmup-rows"]);
  fig.peakRssBytes = process.resourceUsage().maxRSS * 1024;
  fig.peakWasmBytes = wasmBytes(); // linear memory never shrinks: its final size is its peak
  process.stdout.write(JSON.stringify(fig) + "\n");
} catch (e) {
  process.stderr.write(`real_engine_driver: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
}
