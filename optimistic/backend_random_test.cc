// Randomized end-to-end check of the single-domain core against an honest in-test authority (a
// second engine Db running the same mutators in mid order, burning rejected mids, streaming
// footprint batches + the lmid row at one cv per commit). After every step:
//   head == sync ⊕ replay(pending in seq order)      (the rebase invariant)
//   every view == its table's head rows
// and at quiescence: nothing pending, sync == head == the authority's tables, mids gapless.
#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "optimistic/backend.h"
#include "optimistic/testing/fake_source.h"
#include "optimistic/tracking_tx.h"

namespace rindle {
namespace {

using json = nlohmann::json;
constexpr char kClient[] = "c1";

uint64_t SplitMix(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

Schema RandSchema() {
  Schema s;
  s["issue"] = TableSpec{{{"id", ColumnType::kString, false},
                          {"title", ColumnType::kString, false}},
                         {0}};
  s["counter"] = TableSpec{{{"id", ColumnType::kString, false},
                            {"n", ColumnType::kNumber, false}},
                           {0}};
  return s;
}

std::map<std::string, Mutator> RandMutators() {
  std::map<std::string, Mutator> m;
  m["create"] = [](MutationTx& tx, const json& a) {
    return tx.Insert("issue", {{"id", a["id"]}, {"title", a["title"]}});
  };
  m["upsert"] = [](MutationTx& tx, const json& a) {
    return tx.Upsert("issue", {{"id", a["id"]}, {"title", a["title"]}});
  };
  m["retitle"] = [](MutationTx& tx, const json& a) -> absl::Status {
    auto row = tx.GetRow("issue", {{"id", a["id"]}});
    if (!row.ok()) return row.status();
    if (!row->has_value()) return absl::NotFoundError("no such issue");
    return tx.Update("issue", {{"id", a["id"]}, {"title", (**row)["title"].get<std::string>() + "+"}});
  };
  m["delete"] = [](MutationTx& tx, const json& a) { return tx.Delete("issue", {{"id", a["id"]}}); };
  m["inc"] = [](MutationTx& tx, const json& a) -> absl::Status {
    auto row = tx.GetRow("counter", {{"id", a["id"]}});
    if (!row.ok()) return row.status();
    if (!row->has_value()) return tx.Insert("counter", {{"id", a["id"]}, {"n", 1}});
    return tx.Update("counter", {{"id", a["id"]}, {"n", (**row)["n"].get<int64_t>() + 1}});
  };
  m["double"] = [](MutationTx& tx, const json& a) -> absl::Status {
    auto row = tx.GetRow("counter", {{"id", a["id"]}});
    if (!row.ok()) return row.status();
    if (!row->has_value()) return absl::NotFoundError("no counter");
    return tx.Update("counter", {{"id", a["id"]}, {"n", (**row)["n"].get<int64_t>() * 2}});
  };
  return m;
}

// Runs `name(args)` on `db` in one write txn; true when it applied.
bool RunOn(Db& db, const Schema& schema, const std::map<std::string, Mutator>& muts,
           const std::string& name, const json& args) {
  static const std::set<std::string> kNoLocal;
  WriteSet ws;
  auto txn = db.Write();
  TrackingTx tx(txn.get(), &schema, &kNoLocal, &ws, nullptr);
  absl::Status s = muts.at(name)(tx, args);
  if (s.ok()) s = tx.failure();
  if (!s.ok()) {
    if (txn->open()) txn->Rollback();
    return false;
  }
  return txn->Commit().ok();
}

json RowsJson(const std::vector<RowValues>& rows) {
  json out = json::array();
  for (const auto& r : rows) out.push_back(RowToJson(r));
  return out;
}

using Rows = std::map<std::string, std::vector<RowValues>>;

Rows Snapshot(const Db& db) {
  Rows out;
  for (const auto& t : db.TableNames()) out[t] = *db.TableRows(t);
  return out;
}

struct Authority {
  Schema schema = RandSchema();
  std::map<std::string, Mutator> muts = RandMutators();
  Db db;
  int64_t cv = 1;
  int64_t lmid = 0;
  std::set<int64_t> applied, burnt;
  Authority() {
    for (const auto& [n, s] : schema) EXPECT_TRUE(db.RegisterTable(n, s, false).ok());
    auto txn = db.Write();
    EXPECT_TRUE(txn->Add("counter", {Value::String("c"), Value::Int(1)}).ok());
    EXPECT_TRUE(txn->Commit().ok());
  }
  // Diff of one table as batch ops.
  static std::vector<RowOp> Diff(const std::string& table, const TableSpec& spec,
                                 const std::vector<RowValues>& before,
                                 const std::vector<RowValues>& after) {
    std::map<std::string, RowValues> b, a;
    for (const auto& r : before) b[RowToJson(spec.PkOf(r)).dump()] = r;
    for (const auto& r : after) a[RowToJson(spec.PkOf(r)).dump()] = r;
    std::vector<RowOp> ops;
    for (const auto& [k, r] : b) {
      auto it = a.find(k);
      if (it == a.end()) ops.push_back({RowOp::Kind::kRemove, table, r, {}});
      else if (CompareRowValues(it->second, r) != 0) ops.push_back({RowOp::Kind::kEdit, table, it->second, r});
    }
    for (const auto& [k, r] : a) {
      if (b.count(k) == 0) ops.push_back({RowOp::Kind::kAdd, table, r, {}});
    }
    return ops;
  }
  // One commit: `change` mutates db; frames for qid 1 (issue) / 2 (counter) + lmid at the new cv.
  template <typename F>
  void Commit(FakeSource& src, F change) {
    Rows before = Snapshot(db);
    change();
    Rows after = Snapshot(db);
    ++cv;
    auto ci = Diff("issue", schema.at("issue"), before["issue"], after["issue"]);
    auto cc = Diff("counter", schema.at("counter"), before["counter"], after["counter"]);
    if (!ci.empty()) src.Batch(1, cv, ci);
    if (!cc.empty()) src.Batch(2, cv, cc);
    src.Lmid(cv, kClient, lmid);
  }
  // Processes one envelope (in mid order; duplicates ignored, gaps held by the caller).
  bool Process(FakeSource& src, const MutationEnvelope& e) {
    if (e.mid <= lmid) return true;     // duplicate
    if (e.mid != lmid + 1) return false;  // a gap: hold
    Commit(src, [&] {
      lmid = e.mid;
      bool ok = !e.args.value("reject", false) && RunOn(db, schema, muts, e.name, e.args);
      (ok ? applied : burnt).insert(e.mid);
    });
    return true;
  }
};

class RandomBackendTest : public ::testing::TestWithParam<uint64_t> {};

void ExpectRebaseInvariant(const OptimisticBackend& b, const Schema& schema,
                           const std::map<std::string, Mutator>& muts, const std::string& where) {
  Db model;
  for (const auto& [n, s] : schema) ASSERT_TRUE(model.RegisterTable(n, s, false).ok());
  {
    auto txn = model.Write();
    for (const auto& [n, s] : schema) {
      const std::vector<RowValues> rows = *b.engine().SyncRows(n);
      for (const auto& r : rows) ASSERT_TRUE(txn->Add(n, r).ok());
    }
    ASSERT_TRUE(txn->Commit().ok());
  }
  std::vector<const PendingMutation*> order;
  for (const auto& p : b.pending()) order.push_back(&p);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto* x, const auto* y) { return *x->seq < *y->seq; });
  for (const auto* p : order) RunOn(model, schema, muts, p->name, p->args);
  for (const auto& [n, s] : schema) {
    ASSERT_EQ(RowsJson(*model.TableRows(n)), RowsJson(*b.engine().TableRows(n)))
        << where << " table " << n;
  }
}

TEST_P(RandomBackendTest, RebaseInvariantHoldsAndEverythingConverges) {
  uint64_t rng = GetParam();
  auto pick = [&](uint64_t n) { return SplitMix(rng) % n; };
  FakeSource src;
  Authority auth;
  OptimisticOptions o;
  o.client_id = kClient;
  o.schema = RandSchema();
  o.mutators = RandMutators();
  o.buffer_cap = 64;
  OptimisticBackend b(std::move(o), &src);
  const Schema schema = RandSchema();
  const auto muts = RandMutators();
  Ast issues;
  issues.table = "issue";
  Ast counters;
  counters.table = "counter";
  ASSERT_TRUE(b.RegisterQuery(1, issues, RemoteQuery{"issues", json::object()}).ok());
  ASSERT_TRUE(b.RegisterQuery(2, counters, RemoteQuery{"counters", json::object()}).ok());
  auto hydrate = [&](int64_t qid) {
    const std::string table = qid == 1 ? "issue" : "counter";
    src.Hello(qid, {});
    src.Snapshot(qid, auth.cv, table, *auth.db.TableRows(table));
  };
  hydrate(1);
  hydrate(2);
  src.Snapshot(kLmidQid, auth.cv, kClientMutationsTable,
               {{Value::String(kClient), Value::Int(auth.lmid)}});
  // A reconnect re-registers every query (source.h OnResync) and drops the dead connection's
  // buffered frames (gate.h DropConnection): the fresh snapshots bring them back.
  auto reconnect = [&] {
    src.Resync();
    src.Hello(kLmidQid, {});
    src.Snapshot(kLmidQid, auth.cv, kClientMutationsTable,
                 {{Value::String(kClient), Value::Int(auth.lmid)}});
    hydrate(1);
    hydrate(2);
  };

  size_t delivered = 0;  // pushes the authority has looked at
  size_t log_seen = src.log.size();
  // An honest authority answers every (re-)registration (e.g. after an overflow) with a fresh
  // hello + snapshot at its current cv.
  auto answer_registrations = [&] {
    for (; log_seen < src.log.size(); ++log_seen) {
      const std::string& line = src.log[log_seen];
      if (line.rfind("register ", 0) != 0) continue;
      const int64_t qid = std::stoll(line.substr(9));
      if (qid == kLmidQid) {
        src.Hello(kLmidQid, {});  // every registration's answer opens with a hello
        src.Snapshot(kLmidQid, auth.cv, kClientMutationsTable,
                     {{Value::String(kClient), Value::Int(auth.lmid)}});
      } else {
        hydrate(qid);
      }
    }
  };
  int64_t max_mid = 0;
  const char* ids[] = {"a", "b", "c", "d"};
  for (int step = 0; step < 250; ++step) {
    const std::string where = "seed=" + std::to_string(GetParam()) + " step=" + std::to_string(step);
    uint64_t r = pick(100);
    if (r < 35) {
      static const char* names[] = {"create", "upsert", "retitle", "delete", "inc", "double"};
      std::string name = names[pick(6)];
      json args = {{"id", name == "inc" || name == "double" ? std::string(pick(3) == 0 ? "d" : "c")
                                                            : std::string(ids[pick(4)])},
                   {"title", "t" + std::to_string(step)}};
      if (pick(8) == 0) args["reject"] = true;  // the authority will burn this mid
      auto mid = b.Invoke(name, args);
      if (mid.ok()) {
        EXPECT_EQ(*mid, max_mid + 1) << where;  // gapless
        max_mid = *mid;
      }
    } else if (r < 65) {
      // The authority looks at the next push (may be a resync duplicate, or held on a gap).
      if (delivered < src.pushed.size()) {
        if (auth.Process(src, src.pushed[delivered])) ++delivered;
      }
    } else if (r < 85) {
      src.Progress(auth.cv - static_cast<int64_t>(pick(2)));
    } else if (r < 92) {
      // Another writer edits the shared counter / an issue on the authority.
      auth.Commit(src, [&] {
        RunOn(auth.db, schema, muts, pick(2) ? "inc" : "upsert",
              {{"id", pick(2) ? "c" : "b"}, {"title", "other" + std::to_string(step)}});
      });
    } else if (r < 95) {
      reconnect();
    } else if (r < 97) {
      // Authority restart: the subscriptions re-hydrate at a fresh cv timeline.
      src.Restart();
      auth.cv = 1;
      hydrate(1);
      hydrate(2);
      src.Snapshot(kLmidQid, auth.cv, kClientMutationsTable,
                   {{Value::String(kClient), Value::Int(auth.lmid)}});
    } else {
      // Re-subscribe one query (a new epoch).
      hydrate(1 + static_cast<int64_t>(pick(2)));
    }
    answer_registrations();
    ASSERT_TRUE(b.health().ok()) << where << ": " << b.health();
    ExpectRebaseInvariant(b, schema, muts, where);
    for (int64_t qid : {1, 2}) {
      const std::string table = qid == 1 ? "issue" : "counter";
      std::vector<RowValues> view;
      for (const auto& n : b.View(qid)->Tree()) view.push_back(*n.row);
      ASSERT_EQ(RowsJson(view), RowsJson(*b.engine().TableRows(table))) << where;
    }
    if (HasFatalFailure()) return;
  }
  // Quiescence: deliver everything, release everything.
  while (delivered < src.pushed.size()) {
    if (!auth.Process(src, src.pushed[delivered])) {
      reconnect();  // a gap can only be a lost push; re-send fills it
      continue;
    }
    ++delivered;
    answer_registrations();
  }
  src.Progress(auth.cv);
  RecordProperty("overflows", static_cast<int>(std::count(src.log.begin(), src.log.end(),
                                                          std::string("unregister 0"))));
  ASSERT_TRUE(b.health().ok()) << b.health();
  EXPECT_TRUE(b.pending().empty());
  EXPECT_EQ(auth.lmid, max_mid);
  EXPECT_EQ(b.inspect().confirmed_lmid, max_mid);
  for (const auto& [n, s] : schema) {
    EXPECT_EQ(RowsJson(*b.engine().SyncRows(n)), RowsJson(*auth.db.TableRows(n))) << n;
    EXPECT_EQ(RowsJson(*b.engine().TableRows(n)), RowsJson(*auth.db.TableRows(n))) << n;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomBackendTest, ::testing::Range<uint64_t>(1, 11));

}  // namespace
}  // namespace rindle
