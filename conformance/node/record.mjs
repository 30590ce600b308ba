// record.mjs — runs rindle-peer-case/1 inputs through the REAL engine (@rindle/wasm@0.9.0, Rust
// compiled to wasm) and writes each one's rindle-peer-expected/1 file beside it, in the format of
// fixtures/README.md ("rindle-wasm/ cases"):
//
//   node record.mjs [--verify] FILE|DIR...
//
// A DIR means every case-*.json in it (not *.expected.json). For each input:
//   - a new Db; every schema table registered (positional {columns, primaryKey});
//   - the initial rows written in ONE write txn, then the query registered as query 1
//     (`hello` = its schema, `hydrate.snapshot` = its events);
//   - each txn of the input staged and committed (`txns[i].commit` = the commit's batches);
//   - the view data = @rindle/client FlatArrayView folding the snapshot and every commit's events
//     for query 1 (a top-level `one` query presents the row or null);
//   - at every step a fresh one-shot query of the same engine (`db.write().query(ast)`, rolled
//     back) is compared with the view data by projection (the requery presents only the columns a
//     level selects); a step where they differ is listed in `checks.mismatches` as
//     {step: "hydrate"} or {step: "txn", txn: i}, with `requery` (the fresh data) and `data`
//     (the incremental data). There the incremental result is the engine's bug and the fresh one
//     is the right answer (rindle-sim check-case compares against `requery`).
// --verify records in memory and compares every step's data with the EXISTING expected files
// instead of writing (to check this recorder against recorded fixtures); exit 1 on a difference.
// Exit codes: 0 ok, 1 a case could not be recorded (or --verify found a difference), 2 usage.
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import init, { Db } from "@rindle/wasm/pkg/rindle.js";
import { FlatArrayView } from "@rindle/client";

const require = createRequire(import.meta.url);
const ENGINE = {
  wasm: `@rindle/wasm@${require("@rindle/wasm/package.json").version}`,
  client: "@rindle/client (FlatArrayView)",
  surface:
    "Db+WriteTxn from @rindle/wasm/pkg/rindle.js (after init); view data = @rindle/client FlatArrayView fold of db.query snapshot + commit events",
};

function usage(msg) {
  process.stderr.write(`record.mjs: ${msg}\nusage: node record.mjs [--verify] FILE|DIR...\n`);
  process.exit(2);
}

// Cells the engine reports as undefined (columns a level does not select) → {"$absent": true}.
function absent(v) {
  if (Array.isArray(v)) return v.map((x) => (x === undefined ? { $absent: true } : absent(x)));
  if (v && typeof v === "object") {
    const out = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = absent(x);
    return out;
  }
  return v;
}

// Sorted keys, so comparisons ignore key order.
function canon(v) {
  if (Array.isArray(v)) return v.map(canon);
  if (v && typeof v === "object") {
    const out = {};
    for (const k of Object.keys(v).sort()) if (v[k] !== undefined) out[k] = canon(v[k]);
    return out;
  }
  return v;
}
const same = (a, b) => JSON.stringify(canon(a)) === JSON.stringify(canon(b));

// `actual` reduced to the keys `shape` has (recursively).
function project(actual, shape) {
  if (Array.isArray(actual) && Array.isArray(shape)) {
    return actual.map((x, i) => (i < shape.length ? project(x, shape[i]) : x));
  }
  if (actual && shape && typeof actual === "object" && typeof shape === "object") {
    const out = {};
    for (const k of Object.keys(shape)) if (k in actual) out[k] = project(actual[k], shape[k]);
    return out;
  }
  return actual;
}

function recordCase(c, file) {
  if (c.format !== "rindle-peer-case/1") throw new Error(`${file}: $.format: expected "rindle-peer-case/1", got ${JSON.stringify(c.format)}`);
  const db = new Db();
  try {
    const cols = {};
    for (const name of Object.keys(c.schema.tables).sort()) {
      const t = c.schema.tables[name];
      const names = t.columns.map((x) => x.name);
      cols[name] = names;
      db.registerTable(name, { columns: names, primaryKey: t.primaryKey.map((k) => names.indexOf(k)) }, false);
    }
    const pos = (table, obj) => {
      if (!cols[table]) throw new Error(`${file}: unknown table ${table}`);
      return cols[table].map((k) => (k in obj ? obj[k] : null));
    };
    const seedTx = db.write();
    for (const [table, rows] of Object.entries(c.rows)) for (const r of rows) seedTx.add(table, pos(table, r));
    const seedCommit = seedTx.commit();

    const one = c.ast.one === true;
    const present = (rows) => (one ? (rows.length ? rows[0] : null) : rows);
    const h = db.query(1, c.ast);
    const view = new FlatArrayView(h.schema);
    view.applyChanges(h.snapshot);
    const mismatches = [];
    const check = (step, txn) => {
      const data = present(view.data);
      const q = db.write();
      let rq;
      try {
        rq = present(q.query(c.ast));
      } finally {
        q.rollback();
      }
      if (!same(project(data, rq), rq)) {
        const m = txn === undefined ? { step } : { step, txn };
        mismatches.push({ ...m, requery: canon(rq), data: canon(data) });
      }
      return canon(data);
    };
    const out = {
      format: "rindle-peer-expected/1",
      case: c.name,
      engine: ENGINE,
      queryId: 1,
      status: "ok",
      seedCommit: absent(seedCommit),
      hello: { comparatorVersion: h.comparatorVersion, schema: absent(h.schema) },
      hydrate: { snapshot: absent(h.snapshot), data: check("hydrate") },
      txns: [],
    };
    c.txns.forEach((ops, i) => {
      const tx = db.write();
      for (const op of ops) {
        if (op.op === "add") tx.add(op.table, pos(op.table, op.row));
        else if (op.op === "remove") tx.remove(op.table, pos(op.table, op.row));
        else if (op.op === "edit") tx.edit(op.table, pos(op.table, op.old), pos(op.table, op.row));
        else throw new Error(`${file}: $.txns[${i}]: unknown op ${JSON.stringify(op.op)}`);
      }
      const commit = tx.commit();
      for (const b of commit) if (b.queryId === 1) view.applyChanges(b.events);
      out.txns.push({ commit: absent(commit), data: check("txn", i) });
    });
    out.checks = { requery: mismatches.length ? "mismatch" : "ok", mismatches };
    return out;
  } finally {
    db.free();
  }
}

const args = process.argv.slice(2);
const verify = args[0] === "--verify";
if (verify) args.shift();
if (!args.length) usage("expected one or more case files or directories");
const files = [];
for (const a of args) {
  let st;
  try {
    st = statSync(a);
  } catch {
    usage(`${a}: no such file or directory`);
  }
  if (st.isDirectory()) {
    for (const f of readdirSync(a).sort()) if (/^case-.*\.json$/.test(f) && !f.endsWith(".expected.json")) files.push(join(a, f));
  } else files.push(a);
}

const wasm = readFileSync(new URL("./rindle_bg.wasm", import.meta.resolve("@rindle/wasm/pkg/rindle.js")));
await init({ module_or_path: wasm });

let ok = 0, failed = 0, withMismatch = 0;
const t0 = Date.now();
for (const file of files) {
  const target = file.replace(/\.json$/, ".expected.json");
  try {
    const rec = recordCase(JSON.parse(readFileSync(file, "utf8")), file);
    if (rec.checks.mismatches.length) withMismatch++;
    if (verify) {
      const want = JSON.parse(readFileSync(target, "utf8"));
      const bad = [];
      if (!same(rec.hydrate.data, want.hydrate.data)) bad.push("hydrate");
      rec.txns.forEach((t, i) => { if (!same(t.data, want.txns[i]?.data)) bad.push(`txn ${i}`); });
      if (bad.length) throw new Error(`recorded data differs from ${target} at ${bad.join(", ")}`);
    } else {
      writeFileSync(target, JSON.stringify(rec, null, 1) + "\n");
    }
    ok++;
  } catch (e) {
    failed++;
    process.stderr.write(`record.mjs: ${file}: ${e && e.message ? e.message : e}\n`);
  }
}
console.log(`record.mjs: ${verify ? "verified" : "recorded"} ${ok} of ${files.length} cases with ${ENGINE.wasm} in ${Date.now() - t0} ms (${withMismatch} with requery mismatches)${failed ? `, ${failed} FAILED` : ""}`);
process.exit(failed ? 1 : 0);
