// gen_scale.mjs — writes the shared workload's data files at a scale bench-workload.json does not
// list (e.g. 1M issues), with every other generator parameter unchanged:
//
//   node bench/gen_scale.mjs 1M 1000000 DIR      # → DIR/rows-1M.jsonl, DIR/txns-1M.jsonl
//
// It copies the 100k scale entry (users, comments/tags per issue, txn count), sets `issues`, and
// hands the result to the shared generator (../shared/bench/lib/bench-gen.mjs writeScale), so the
// rows and txns follow the same streams and rules as the normative files. Exit 2 on bad usage.
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join } from "node:path";

const [name, issuesArg, out] = process.argv.slice(2);
const issues = Number(issuesArg);
if (!name || !out || !Number.isInteger(issues) || issues < 1) {
  process.stderr.write("usage: node bench/gen_scale.mjs NAME ISSUES DIR\n");
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const shared = process.env.RINDLE_SHARED_BENCH ?? join(here, "..", "..", "shared", "bench");
const gen = await import(pathToFileURL(join(shared, "lib", "bench-gen.mjs")).href);
const w = gen.loadWorkload(join(shared, "bench-workload.json"));
w.scales[name] = { ...w.scales["100k"], issues };
const r = gen.writeScale(w, name, out);
console.log(`wrote ${name} (${issues} issues) to ${out}: rows ${r.rows.sha256}, txns ${r.txns.sha256}`);
