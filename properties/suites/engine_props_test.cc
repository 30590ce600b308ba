// engine_props_test.cc — engine-level RapidCheck properties (SPEC §4 item 7) over random
// schemas, rows, queries (single-table, and nested: related + EXISTS) and write transactions
// (properties/suites/generators.h):
//   a. view == fresh: folded views == Db::QueryResult == FreshQuery after every commit;
//   b. a failed txn (invalid op), an explicit Rollback() and a dropped txn leave no trace;
//   c. rebase: an exactly confirmed prediction delivers nothing; a rebase over a different server
//      delta with the prediction re-applied inside the cycle delivers one coalesced batch per
//      query that folds to fresh.
// Each property runs kCases cases (RINDLE_RC_PROP sets max_success in code; an explicit
// max_success in RC_PARAMS overrides it, the other RC_PARAMS keys — seed, noshrink, reproduce —
// apply as usual).
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "engine/ast_json.h"
#include "engine/db.h"
#include "engine/ivm/view.h"
#include "oracles/fresh_query.h"
#include "oracles/plain_store.h"
#include "properties/suites/generators.h"
#include "properties/suites/rc_check.h"

namespace rindle::props {

#define RINDLE_RC_PROP(TestCase, Name, Cases)                                  \
  void rindleProp_##TestCase##_##Name();                                       \
  TEST(TestCase, Name) {                                                       \
    ::rindle::props::CheckGTestWithCount(&rindleProp_##TestCase##_##Name,     \
                                         Cases);                               \
  }                                                                            \
  void rindleProp_##TestCase##_##Name()

constexpr int kCases = 1000;

namespace {

std::string Dump(const nlohmann::json& j) { return j.dump(); }

// A Db with the setup's tables, a folded ResultView per registered query, and the model of its
// head (and of its sync baseline).
struct World {
  std::unique_ptr<Db> db = std::make_unique<Db>();
  Schema schema;
  std::map<int64_t, Ast> asts;
  std::map<int64_t, ResultView> views;
  PlainTables head;  // expected head rows
  PlainTables sync;  // expected sync rows
};

void ApplyDeltaToModel(const Schema& schema, PlainTables& t, const ServerDeltaOp& d) {
  const TableSpec& spec = schema.at(d.table);
  auto& table = t[d.table];
  switch (d.type) {
    case ServerDeltaOp::Type::kAdd: table[spec.PkOf(d.row)] = d.row; break;
    case ServerDeltaOp::Type::kRemove: table.erase(spec.PkOf(d.row)); break;
    case ServerDeltaOp::Type::kEdit:
      table.erase(spec.PkOf(d.old_row));
      table[spec.PkOf(d.row)] = d.row;
      break;
  }
}

std::string DeltaString(const std::vector<ServerDeltaOp>& deltas) {
  std::string out;
  for (const auto& d : deltas) {
    out += "\n  ";
    out += d.type == ServerDeltaOp::Type::kAdd      ? "add "
           : d.type == ServerDeltaOp::Type::kRemove ? "remove "
                                                    : "edit ";
    out += d.table + " ";
    if (d.type == ServerDeltaOp::Type::kEdit) out += RowDebugString(d.old_row) + " -> ";
    out += RowDebugString(d.row);
  }
  return out;
}

std::string BatchesString(const std::vector<QueryBatch>& batches) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& b : batches) {
    nlohmann::json ev = nlohmann::json::array();
    for (const auto& e : b.events) ev.push_back(ChangeEventToJson(e));
    j.push_back({{"query", b.query_id}, {"events", ev}});
  }
  return j.dump();
}

PlainTables ReadTables(const Db& db, const Schema& schema, bool sync) {
  PlainTables out;
  for (const auto& [name, spec] : schema) {
    auto rows = sync ? db.SyncRows(name) : db.TableRows(name);
    if (!rows.ok()) RC_FAIL("reading table " + name + ": " + rows.status().ToString());
    auto& t = out[name];
    for (const auto& r : *rows) t[spec.PkOf(r)] = r;
  }
  return out;
}

void Fold(World& w, const std::vector<QueryBatch>& batches, const std::string& when) {
  std::set<int64_t> seen;
  for (const auto& b : batches) {
    if (!seen.insert(b.query_id).second)
      RC_FAIL(when + ": two batches for query " + std::to_string(b.query_id) + ": " +
              BatchesString(batches));
    auto it = w.views.find(b.query_id);
    if (it == w.views.end()) RC_FAIL(when + ": batch for unknown query " + std::to_string(b.query_id));
    auto s = it->second.Apply(b.events);
    if (!s.ok())
      RC_FAIL(when + ": folding query " + std::to_string(b.query_id) + " failed: " + s.ToString() +
              "\n  batches: " + BatchesString(batches));
  }
}

// Folded view == Db::QueryResult == FreshQuery over the Db's current rows, for every query; and
// the Db's head rows == the model.
void CheckWorld(World& w, const std::string& when) {
  const PlainTables rows = ReadTables(*w.db, w.schema, /*sync=*/false);
  if (!PlainTablesEqual(rows, w.head))
    RC_FAIL(when + ": head rows differ from the model\n  engine: " + Dump(PlainTablesToJson(rows)) +
            "\n  model:  " + Dump(PlainTablesToJson(w.head)));
  for (auto& [qid, view] : w.views) {
    const Ast& ast = w.asts.at(qid);
    auto result = w.db->QueryResult(qid);
    if (!result.ok()) RC_FAIL(when + ": QueryResult: " + result.status().ToString());
    auto fresh = FreshQuery(ast, rows, w.schema);
    if (!fresh.ok()) RC_FAIL(when + ": FreshQuery: " + fresh.status().ToString());
    const std::string v = Dump(view.RawJson());
    const std::string r = Dump(TreeToJson(*result));
    const std::string f = Dump(TreeToJson(*fresh));
    if (v != f || r != f) {
      RC_FAIL(when + ": query " + std::to_string(qid) + " " + Dump(AstToJson(ast)) +
              "\n  folded view: " + v + "\n  QueryResult: " + r + "\n  fresh:       " + f +
              "\n  rows:        " + Dump(PlainTablesToJson(rows)));
    }
  }
}

void Register(World& w, int64_t qid, const Ast& ast) {
  auto snap = w.db->RegisterQuery(qid, ast);
  if (!snap.ok())
    RC_FAIL("RegisterQuery rejected a valid AST " + Dump(AstToJson(ast)) + ": " +
            snap.status().ToString());
  ResultView view(snap->shape);
  auto s = view.Apply(snap->events);
  if (!s.ok()) RC_FAIL("folding the snapshot failed: " + s.ToString());
  w.asts.emplace(qid, ast);
  w.views.emplace(qid, std::move(view));
}

void SeedByServer(World& w, const PlainTables& rows) {
  std::vector<ServerDeltaOp> deltas = NetDelta(w.sync, rows);
  auto s = w.db->ServerBatchBegin("daemon", deltas);
  if (!s.ok()) RC_FAIL("seeding ServerBatchBegin: " + s.ToString());
  auto b = w.db->ServerBatchEnd();
  if (!b.ok()) RC_FAIL("seeding ServerBatchEnd: " + b.status().ToString());
  for (const auto& d : deltas) {
    ApplyDeltaToModel(w.schema, w.sync, d);
    ApplyDeltaToModel(w.schema, w.head, d);
  }
  Fold(w, *b, "seed (server batch)");
}

void SeedByTxn(World& w, const PlainTables& rows) {
  auto tx = w.db->Write();
  for (const auto& [name, t] : rows) {
    for (const auto& [pk, r] : t) {
      auto s = tx->Add(name, r);
      if (!s.ok()) RC_FAIL("seeding add " + RowDebugString(r) + ": " + s.ToString());
      w.head[name][pk] = r;
    }
  }
  auto b = tx->Commit();
  if (!b.ok()) RC_FAIL("seeding commit: " + b.status().ToString());
  Fold(w, *b, "seed (txn)");
}

// Registers the tables, then seeds rows and registers queries in a random order.
void Build(World& w, const Setup& setup, bool server_seed, bool queries_first) {
  w.schema = setup.schema;
  for (const auto& [name, spec] : setup.schema) {
    auto s = w.db->RegisterTable(name, spec, /*local=*/false);
    if (!s.ok()) RC_FAIL("RegisterTable " + name + ": " + s.ToString());
    w.head[name];
    w.sync[name];
  }
  auto register_all = [&] {
    for (size_t i = 0; i < setup.queries.size(); ++i)
      Register(w, static_cast<int64_t>(i + 1), setup.queries[i]);
  };
  if (queries_first) register_all();
  if (server_seed) SeedByServer(w, setup.rows);
  else SeedByTxn(w, setup.rows);
  if (!queries_first) register_all();
  CheckWorld(w, "after setup");
}

// Runs a txn whose ops must all succeed; commits, folds, advances the head model.
std::vector<QueryBatch> CommitValid(World& w, const Txn& txn, const std::string& when) {
  auto tx = w.db->Write();
  auto [bad, status] = RunOps(*tx, txn);
  if (bad >= 0)
    RC_FAIL(when + ": engine rejected valid op #" + std::to_string(bad) + " (" +
            [&] { std::ostringstream o; o << txn[bad]; return o.str(); }() + "): " +
            status.ToString());
  auto b = tx->Commit();
  if (!b.ok()) RC_FAIL(when + ": commit: " + b.status().ToString());
  for (const auto& op : txn)
    if (!ApplyToModel(w.schema, w.head, op)) RC_FAIL(when + ": generator produced an inapplicable op");
  for (const auto& batch : *b)
    if (batch.events.empty())
      RC_FAIL(when + ": empty batch delivered for query " + std::to_string(batch.query_id));
  Fold(w, *b, when);
  return *b;
}

std::map<int64_t, std::string> Results(const World& w) {
  std::map<int64_t, std::string> out;
  for (const auto& [qid, ast] : w.asts) {
    auto r = w.db->QueryResult(qid);
    out[qid] = r.ok() ? Dump(TreeToJson(*r)) : r.status().ToString();
  }
  return out;
}

}  // namespace

// a. Random writes keep folded view == Db::QueryResult == fresh query after every commit.
void ViewEqualsFreshAfterEveryCommitBody(int depth) {
  const Setup setup = *GenSetup(/*max_rows=*/8, /*max_queries=*/3, depth);
  const bool server_seed = *rc::gen::arbitrary<bool>();
  const bool queries_first = *rc::gen::arbitrary<bool>();
  World w;
  Build(w, setup, server_seed, queries_first);
  const int commits = *rc::gen::inRange(1, 9);
  for (int i = 0; i < commits; ++i) {
    const Txn txn = *GenValidTxn(w.schema, w.head, /*max_ops=*/5);
    const auto batches = CommitValid(w, txn, "commit " + std::to_string(i + 1));
    CheckWorld(w, "after commit " + std::to_string(i + 1));
    if (i == commits - 1) {  // coverage, once per case
      bool pk_edit = false;
      for (const auto& op : txn)
        if (op.kind == TxnOp::Kind::kEdit &&
            CompareRowValues(w.schema.at(op.table).PkOf(op.old_row),
                             w.schema.at(op.table).PkOf(op.row)) != 0)
          pk_edit = true;
      size_t nonempty = 0;
      bool windowed = false;
      for (const auto& [qid, v] : w.views) {
        if (v.root_size() > 0) ++nonempty;
        if (w.asts.at(qid).limit || w.asts.at(qid).start) windowed = true;
      }
      RC_CLASSIFY(pk_edit, "last txn has a pk-changing edit");
      RC_CLASSIFY(!batches.empty(), "last commit delivered events");
      RC_CLASSIFY(nonempty == w.views.size(), "every result non-empty");
      RC_CLASSIFY(nonempty == 0, "every result empty");
      RC_CLASSIFY(windowed, "a query has limit/start");
      if (depth > 0) {
        bool related = false, exists = false, children = false;
        for (const auto& [qid, ast] : w.asts) {
          related = related || !ast.related.empty();
          exists = exists || (ast.where && ConditionHasSubquery(*ast.where));
        }
        for (const auto& [qid, v] : w.views) {
          for (const TreeNode& n : v.Tree())
            for (const auto& [alias, kids] : n.relationships) children = children || !kids.empty();
        }
        RC_CLASSIFY(related, "a query has related");
        RC_CLASSIFY(exists, "a query has EXISTS");
        RC_CLASSIFY(children, "a result shows children");
      }
    }
  }
}

// b. A txn that fails (invalid op), is rolled back explicitly, or is dropped uncommitted leaves
// no trace: rows, results and the next commit's events equal a twin Db that never ran it.
void FailedOrRolledBackTxnLeavesNoTraceBody(int depth) {
  const Setup setup = *GenSetup(8, 3, depth);
  const bool server_seed = *rc::gen::arbitrary<bool>();
  const bool queries_first = *rc::gen::arbitrary<bool>();
  World a, b;
  Build(a, setup, server_seed, queries_first);
  Build(b, setup, server_seed, queries_first);
  // Some committed history first (so head != sync for server-seeded worlds).
  if (*rc::gen::arbitrary<bool>()) {
    const Txn pre = *GenValidTxn(a.schema, a.head, 4);
    CommitValid(a, pre, "pre-commit (a)");
    CommitValid(b, pre, "pre-commit (b)");
  }
  const auto results_before = Results(a);
  const PlainTables sync_before = ReadTables(*a.db, a.schema, /*sync=*/true);

  const int mode = *rc::gen::inRange(0, 3);  // 0 invalid op, 1 Rollback(), 2 dropped
  {
    auto tx = a.db->Write();
    if (mode == 0) {
      const Txn txn = *GenTxn(a.schema, a.head, 5, /*force_invalid=*/true);
      int expected_bad = -1;
      for (size_t i = 0; i < txn.size(); ++i)
        if (!txn[i].valid) { expected_bad = static_cast<int>(i); break; }
      auto [bad, status] = RunOps(*tx, txn);
      RC_ASSERT(expected_bad >= 0);
      if (bad != expected_bad)
        RC_FAIL("first failing op is #" + std::to_string(bad) + " (" + status.ToString() +
                "), expected #" + std::to_string(expected_bad));
      RC_ASSERT(!status.ok());
      RC_ASSERT(!tx->open());
      auto c = tx->Commit();
      RC_ASSERT(!c.ok());
    } else {
      const Txn txn = *GenValidTxn(a.schema, a.head, 5);
      auto [bad, status] = RunOps(*tx, txn);
      if (bad >= 0) RC_FAIL("engine rejected valid op #" + std::to_string(bad) + ": " + status.ToString());
      if (mode == 1) {
        tx->Rollback();
        RC_ASSERT(!tx->open());
      }
    }
  }  // mode 2: the destructor rolls back
  if (!PlainTablesEqual(ReadTables(*a.db, a.schema, false), b.head))
    RC_FAIL("head rows changed: " + Dump(PlainTablesToJson(ReadTables(*a.db, a.schema, false))) +
            " vs " + Dump(PlainTablesToJson(b.head)));
  if (!PlainTablesEqual(ReadTables(*a.db, a.schema, true), sync_before))
    RC_FAIL("sync rows changed");
  RC_ASSERT(Results(a) == results_before);
  CheckWorld(a, "after the failed txn");

  const Txn next = *GenValidTxn(b.schema, b.head, 5);
  const auto ba = CommitValid(a, next, "next commit (a)");
  const auto bb = CommitValid(b, next, "next commit (b)");
  if (BatchesString(ba) != BatchesString(bb))
    RC_FAIL("next commit's events differ\n  after failed txn: " + BatchesString(ba) +
            "\n  without it:       " + BatchesString(bb));
  CheckWorld(a, "after the next commit (a)");
  CheckWorld(b, "after the next commit (b)");
}

// c1. Rebase where the server confirms the optimistic txns (one or two) exactly, as their net
// effect, delivers nothing.
void ExactlyConfirmedPredictionDeliversNothingBody(int depth) {
  const Setup setup = *GenSetup(8, 3, depth);
  World w;
  Build(w, setup, /*server_seed=*/true, *rc::gen::arbitrary<bool>());
  const int pending = *rc::gen::inRange(1, 3);  // one or two optimistic txns, all confirmed
  for (int i = 0; i < pending; ++i) {
    const Txn txn = *GenValidTxn(w.schema, w.head, 5);
    CommitValid(w, txn, "optimistic commit " + std::to_string(i + 1));
    CheckWorld(w, "after optimistic commit " + std::to_string(i + 1));
  }
  const std::vector<ServerDeltaOp> deltas = NetDelta(w.sync, w.head);
  auto s = w.db->ServerBatchBegin("daemon", deltas);
  if (!s.ok()) RC_FAIL("ServerBatchBegin: " + s.ToString() + "\n  deltas:" + DeltaString(deltas));
  auto b = w.db->ServerBatchEnd();
  if (!b.ok()) RC_FAIL("ServerBatchEnd: " + b.status().ToString());
  if (!b->empty())
    RC_FAIL("an exactly confirmed prediction delivered " + BatchesString(*b) +
            "\n  deltas:" + DeltaString(deltas));
  for (const auto& d : deltas) ApplyDeltaToModel(w.schema, w.sync, d);
  const PlainTables sync = ReadTables(*w.db, w.schema, true);
  if (!PlainTablesEqual(sync, w.head))
    RC_FAIL("SyncRows != TableRows: " + Dump(PlainTablesToJson(sync)) + " vs " +
            Dump(PlainTablesToJson(w.head)));
  CheckWorld(w, "after the rebase");
  // And the Db keeps working: one more commit folds to fresh.
  const Txn next = *GenValidTxn(w.schema, w.head, 3);
  CommitValid(w, next, "commit after the rebase");
  CheckWorld(w, "after the commit after the rebase");
}

// c2. Rebase over a different server delta (rows the prediction does not touch), the prediction
// (one or two pending txns) re-applied inside the cycle, each as its own txn: one coalesced batch per query, folding to fresh.
void RebaseWithReappliedPredictionFoldsToFreshBody(int depth) {
  const Setup setup = *GenSetup(8, 3, depth);
  World w;
  Build(w, setup, /*server_seed=*/true, *rc::gen::arbitrary<bool>());
  const Txn prediction = *GenValidTxn(w.schema, w.head, 4);
  CommitValid(w, prediction, "optimistic commit");
  // Sometimes a second pending txn on top of the first.
  const bool second = *rc::gen::arbitrary<bool>();
  const Txn prediction2 = second ? *GenValidTxn(w.schema, w.head, 3) : Txn{};
  if (second) CommitValid(w, prediction2, "second optimistic commit");
  Txn all_predicted = prediction;
  all_predicted.insert(all_predicted.end(), prediction2.begin(), prediction2.end());
  // The server's own change, restricted to pks the prediction does not mention.
  const Txn server = *GenValidTxn(w.schema, w.sync, 5);
  PlainTables server_after = w.sync;
  for (const auto& op : server) ApplyToModel(w.schema, server_after, op);
  const auto touched = TouchedPks(w.schema, all_predicted);
  std::vector<ServerDeltaOp> deltas;
  for (const auto& d : NetDelta(w.sync, server_after)) {
    const TableSpec& spec = w.schema.at(d.table);
    auto it = touched.find(d.table);
    if (it != touched.end() && it->second.count(spec.PkOf(d.row))) continue;
    deltas.push_back(d);
  }
  auto s = w.db->ServerBatchBegin("daemon", deltas);
  if (!s.ok()) RC_FAIL("ServerBatchBegin: " + s.ToString() + "\n  deltas:" + DeltaString(deltas));
  for (const auto& d : deltas) ApplyDeltaToModel(w.schema, w.sync, d);
  PlainTables expected_head = w.sync;
  for (const Txn* pending : {&prediction, &prediction2}) {
    if (pending->empty()) continue;
    auto tx = w.db->Write();
    auto [bad, status] = RunOps(*tx, *pending);
    if (bad >= 0)
      RC_FAIL("re-applying the prediction inside the cycle failed at op #" + std::to_string(bad) +
              ": " + status.ToString());
    auto c = tx->Commit();
    if (!c.ok()) RC_FAIL("commit inside the cycle: " + c.status().ToString());
    if (!c->empty()) RC_FAIL("a commit inside the cycle returned batches: " + BatchesString(*c));
  }
  for (const auto& op : all_predicted) ApplyToModel(w.schema, expected_head, op);
  auto b = w.db->ServerBatchEnd();
  if (!b.ok()) RC_FAIL("ServerBatchEnd: " + b.status().ToString());
  for (const auto& batch : *b)
    if (batch.events.empty())
      RC_FAIL("empty batch delivered for query " + std::to_string(batch.query_id));
  w.head = expected_head;
  Fold(w, *b, "rebase batch");
  const PlainTables sync = ReadTables(*w.db, w.schema, true);
  if (!PlainTablesEqual(sync, w.sync))
    RC_FAIL("SyncRows != sync ⊕ deltas: " + Dump(PlainTablesToJson(sync)) + " vs " +
            Dump(PlainTablesToJson(w.sync)));
  CheckWorld(w, "after the rebase (deltas:" + DeltaString(deltas) + ")");
  if (deltas.empty() && !b->empty())
    RC_FAIL("an empty server delta with the prediction re-applied delivered " + BatchesString(*b));
}


// Each property runs over single-table queries and over queries nested two levels deep
// (related subqueries and EXISTS / NOT EXISTS, properties/suites/generators.h GenDeepAst).
RINDLE_RC_PROP(EngineProps, ViewEqualsFreshAfterEveryCommit, kCases) { ViewEqualsFreshAfterEveryCommitBody(0); }
RINDLE_RC_PROP(EngineProps, ViewEqualsFreshAfterEveryCommitNested, kCases) { ViewEqualsFreshAfterEveryCommitBody(2); }
RINDLE_RC_PROP(EngineProps, FailedOrRolledBackTxnLeavesNoTrace, kCases) { FailedOrRolledBackTxnLeavesNoTraceBody(0); }
RINDLE_RC_PROP(EngineProps, FailedOrRolledBackTxnLeavesNoTraceNested, kCases) { FailedOrRolledBackTxnLeavesNoTraceBody(2); }
RINDLE_RC_PROP(EngineProps, ExactlyConfirmedPredictionDeliversNothing, kCases) { ExactlyConfirmedPredictionDeliversNothingBody(0); }
RINDLE_RC_PROP(EngineProps, ExactlyConfirmedPredictionDeliversNothingNested, kCases) { ExactlyConfirmedPredictionDeliversNothingBody(2); }
RINDLE_RC_PROP(EngineProps, RebaseWithReappliedPredictionFoldsToFresh, kCases) { RebaseWithReappliedPredictionFoldsToFreshBody(0); }
RINDLE_RC_PROP(EngineProps, RebaseWithReappliedPredictionFoldsToFreshNested, kCases) { RebaseWithReappliedPredictionFoldsToFreshBody(2); }

}  // namespace rindle::props
