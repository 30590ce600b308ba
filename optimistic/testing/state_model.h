// state_model.h — the MODEL of the state machine: the honest authority, the gate as the wire sees it, the client (pending, folds, subs), and the wire helpers that send frames.
// Test-only (optimistic/backend_state_test.cc, the rc::state machine of OptimisticBackend); split
// out of that test so each part reads on its own. Header-only; one TU includes it.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>
#include "absl/strings/str_cat.h"
#include "engine/change.h"
#include "optimistic/backend.h"
#include "optimistic/testing/backend_test_fixture.h"
#include "optimistic/fold_clock.h"
#include "optimistic/source.h"
#include "oracles/fresh_query.h"
#include "oracles/gate_model.h"
#include "oracles/plain_store.h"
#include "oracles/subscription_model.h"
#include "optimistic/testing/state_fixture.h"

namespace rindle::backend_state {

using json = nlohmann::json;

// ---------------------------------------------------------------------------------------------
// The model

enum class Phase { kAwaitHello, kAwaitSnapshot, kStreaming };

struct Link {
  std::string table;  // "" = the lmid system query
  Phase phase = Phase::kAwaitHello;
  int64_t snap_cv = 0;
  int shape = 0;  // the hello's column list: 0 exact, 2 expanded, 3 projected (WireCols)
};

struct Entry {
  uint64_t id = 0;  // creation order
  std::string name;
  json args;
  std::optional<int64_t> mid;
  std::optional<int64_t> seq;
  std::set<std::string> touched;  // union over every successful (re-)invocation
};

struct FoldWin {
  std::string key;
  uint64_t entry_id = 0;
  int64_t debounce = 0;
  std::optional<int64_t> max_wait;
  int64_t opened = 0;
  int64_t due = 0;
  uint64_t arm = 0;  // timer creation order (ties on equal due time)
};

struct Action {
  bool restart = false;
  int64_t qid = 0;
  NormalizedEvent ev;
};

struct Model {
  // The authority.
  PlainTables auth;
  int64_t auth_lmid = 0;
  int64_t cv = 1;
  std::map<int64_t, PlainTables> states;  // cv → authority rows (cv ≥ appliedCv)
  std::map<int64_t, int64_t> lmid_at;
  std::map<int64_t, MutationEnvelope> sent;  // mid → first push
  // The wire.
  std::map<int64_t, Link> links;         // qids registered on the source
  std::map<int64_t, int> registrations;  // qid → RegisterQuery calls
  GateModel gate{kCap};  // the frames as the gate holds them, appliedCv (oracles/gate_model.h)
  // A Resync since the last fence began (optimistic/gate.h); construction registers the lmid
  // query as a connect would.
  bool resync_since_fence = true;
  std::vector<MutationEnvelope> pushed;  // every PushMutation, in order
  // The client.
  PlainTables synced;
  int64_t watermark = 0;
  std::vector<Entry> pending;  // creation order
  uint64_t next_entry = 1;
  int64_t next_mid = 1;
  int64_t next_seq = 1;
  std::vector<FoldWin> folds;  // creation order
  uint64_t next_arm = 1;
  int64_t now = 0;
  PlainTable draft;
  SubscriptionModel subs;  // by table (one remote key per table; oracles/subscription_model.h)
  std::map<int64_t, std::string> retains;  // releasable retain qid → table
  int64_t next_qid = 100;
  int64_t overflows = 0;
  int64_t schema_rejections = 0;
  // Per-command outputs for run().
  std::vector<Action> outbox;
  bool expect_ok = true;
  std::optional<int64_t> expect_mid;
};

inline PlainTables Empty() {
  PlainTables t;
  for (const auto& n : SyncedTables()) t[n];
  return t;
}

inline RowValues IssueRow(const std::string& id, const std::string& title) {
  return {Value::String(id), Value::String(title), Value::Null()};
}

inline Model InitialModel() {
  Model m;
  m.auth = Empty();
  m.auth["issue"][{Value::String("a")}] = IssueRow("a", "A");
  m.auth["counter"][{Value::String("c")}] = {Value::String("c"), Value::Int(1)};
  m.states[1] = m.auth;
  m.lmid_at[1] = 0;
  m.synced = Empty();
  m.links[kLmidQid] = Link{""};
  m.links[kIssueQid] = Link{"issue"};
  m.links[kFirstCounterRetain] = Link{"counter"};
  m.registrations = {{kLmidQid, 1}, {kIssueQid, 1}, {kFirstCounterRetain, 1}};
  m.subs.Retain("issue", kIssueQid);
  m.subs.Retain("counter", kFirstCounterRetain);
  m.retains[kFirstCounterRetain] = "counter";
  return m;
}

inline PlainStore StoreOf(const PlainTables& tables) {
  PlainStore st(TheSchema());
  for (const auto& [t, rows] : tables) {
    for (const auto& [pk, row] : rows) (void)st.Add(t, row);
  }
  return st;
}

inline std::map<std::string, int64_t>& Stats() {
  static std::map<std::string, int64_t> s;
  return s;
}
inline void Count(const std::string& k, int64_t n = 1) { Stats()[k] += n; }

// Replay order: dealt entries by seq, then unflushed folds by creation.
inline std::vector<size_t> ReplayOrder(const Model& m) {
  std::vector<size_t> dealt, unflushed;
  for (size_t i = 0; i < m.pending.size(); ++i) {
    (m.pending[i].seq ? dealt : unflushed).push_back(i);
  }
  std::stable_sort(dealt.begin(), dealt.end(), [&](size_t a, size_t b) {
    return *m.pending[a].seq < *m.pending[b].seq;
  });
  dealt.insert(dealt.end(), unflushed.begin(), unflushed.end());
  return dealt;
}

// Runs `name(args)` on `st`; commits on success. Returns the status and the touched tables.
inline absl::Status RunOn(PlainStore& st, const std::string& name, const json& args, bool trap,
                   std::set<std::string>* touched) {
  auto it = Muts().find(name);
  if (it == Muts().end()) return absl::NotFoundError("unknown mutator");
  PlainMutationTx tx(&st);
  std::set<std::string> t;
  ModelTx mt(&tx, &t, trap);
  absl::Status s = it->second(mt, args);
  if (s.ok()) {
    tx.Commit();
    if (touched != nullptr) *touched = std::move(t);
  }
  return s;
}

// released ⊕ pending. With `reconcile`, failing entries are dropped and touched merged.
inline PlainStore Replay(Model& m, bool reconcile) {
  PlainStore st = StoreOf(m.synced);
  std::set<uint64_t> dropped;
  for (size_t i : ReplayOrder(m)) {
    Entry& e = m.pending[i];
    std::set<std::string> t;
    absl::Status s = RunOn(st, e.name, e.args, false, &t);
    if (!reconcile) continue;
    if (s.ok()) {
      e.touched.insert(t.begin(), t.end());
    } else {
      dropped.insert(e.id);
    }
  }
  if (reconcile) Count("reconcile");
  if (!dropped.empty()) {
    Count("reconcile-drop", static_cast<int64_t>(dropped.size()));
    std::erase_if(m.pending, [&](const Entry& e) { return dropped.count(e.id) > 0; });
  }
  return st;
}
inline PlainStore Head(const Model& m) {
  PlainStore st = StoreOf(m.synced);
  for (size_t i : ReplayOrder(m)) {
    (void)RunOn(st, m.pending[i].name, m.pending[i].args, false, nullptr);
  }
  return st;
}

inline void Push(Model& m, const Entry& e) {
  MutationEnvelope env{kClient, *e.mid, e.name, e.args};
  m.sent[*e.mid] = env;
  m.pushed.push_back(env);
}

inline void Deal(Model& m, Entry& e) {
  e.mid = m.next_mid++;
  e.seq = m.next_seq++;
  Push(m, e);
}

inline Entry* FindEntry(Model& m, uint64_t id) {
  for (auto& e : m.pending) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

inline void FlushWindow(Model& m, size_t idx) {
  const FoldWin w = m.folds[idx];
  m.folds.erase(m.folds.begin() + static_cast<std::ptrdiff_t>(idx));
  Entry* e = FindEntry(m, w.entry_id);
  if (e != nullptr) Deal(m, *e);
}

inline void FlushKey(Model& m, const std::string& key) {
  for (size_t i = 0; i < m.folds.size(); ++i) {
    if (m.folds[i].key == key) {
      FlushWindow(m, i);
      return;
    }
  }
}

// --- the wire ---

// The resync fence (optimistic/gate.h) over the live subs and the lmid query.
inline void FenceAll(Model& m) {
  std::set<int64_t> qids = {kLmidQid};
  for (const auto& [table, sub] : m.subs.subs()) qids.insert(sub.source_qid);
  m.gate.BeginFence(std::move(qids));
  m.resync_since_fence = false;
}

inline void Overflow(Model& m) {  // the gate model has already cleared its buffer
  Count("overflow");
  ++m.overflows;
  for (const auto& [table, sub] : m.subs.subs()) {
    m.links[sub.source_qid].phase = Phase::kAwaitHello;
    ++m.registrations[sub.source_qid];
  }
  m.links[kLmidQid].phase = Phase::kAwaitHello;
  ++m.registrations[kLmidQid];
  // The backend owes a hello per re-registered qid (optimistic/gate.h ExpectHellos). This model's
  // source answers a link once per phase, so two overflows before a hello leave one owed forever:
  // the model and the backend then hold that fence alike.
  std::set<int64_t> qids = {kLmidQid};
  for (const auto& [table, sub] : m.subs.subs()) qids.insert(sub.source_qid);
  m.gate.ExpectHellos(qids);
  FenceAll(m);
}

inline void Send(Model& m, int64_t qid, NormalizedEvent ev) {
  const GateModel::Frame frame{qid, ev.cv, ev.type == NormalizedEvent::Type::kSnapshot, 0};
  m.outbox.push_back(Action{false, qid, std::move(ev)});
  if (m.gate.Push(frame) == GateModel::Arrival::kOverflow) Overflow(m);
}

inline std::vector<std::string> ColumnsOf(const std::string& table) {
  std::vector<std::string> out;
  for (const auto& c : TheSchema().at(table).columns) out.push_back(c.name);
  return out;
}

// The wire column list of a hello of `shape`, in our column order: expanded with a column we do
// not have, or projected onto fewer columns (the issue table's nullable `status` is always null
// here, so dropping it loses nothing). A REORDERED list (shape 1) is refused by the backend's
// CRIT#4 check as drift (it accepts only order-preserving projections/expansions), so it is not
// generated as a valid hello.
inline std::vector<std::string> WireCols(const std::string& table, int shape) {
  std::vector<std::string> cols = ColumnsOf(table);
  if (shape == 1) std::reverse(cols.begin(), cols.end());
  if (shape == 2) cols.insert(cols.begin() + 1, "extra");
  if (shape == 3 && table == "issue") cols.pop_back();
  return cols;
}
inline RowValues ToWire(const std::string& table, int shape, const RowValues& row) {
  const TableSpec& spec = TheSchema().at(table);
  RowValues out;
  for (const auto& c : WireCols(table, shape)) {
    const int i = spec.ColumnIndex(c);
    out.push_back(i < 0 ? Value::String("server-only") : row[static_cast<size_t>(i)]);
  }
  return out;
}
inline RowOp OpToWire(int shape, RowOp op) {
  op.row = ToWire(op.table, shape, op.row);
  if (op.op == RowOp::Kind::kEdit) op.old_row = ToWire(op.table, shape, op.old_row);
  return op;
}

inline void SendHello(Model& m, int64_t qid, int shape = 0) {
  Link& l = m.links[qid];
  NormalizedEvent ev;
  ev.type = NormalizedEvent::Type::kHello;
  l.shape = shape;
  if (l.table.empty()) {
    ev.tables = {WireTable{kClientMutationsTable, {"client_id", "last_mutation_id"}}};
  } else {
    ev.tables = {WireTable{l.table, WireCols(l.table, shape)}};
  }
  m.outbox.push_back(Action{false, qid, std::move(ev)});
  l.phase = Phase::kAwaitSnapshot;
  // The first lmid hello after a Resync (or construction) is a (re)connect's: the client fences
  // afresh (optimistic/backend.cc OnFrame). An overflow's lmid hello is not (seed 1921).
  if (qid == kLmidQid && m.resync_since_fence) FenceAll(m);
  m.gate.Drop(qid);
}

inline std::vector<RowValues> LmidRows(int64_t lmid) {
  std::vector<RowValues> rows = {{Value::String("other"), Value::Int(3)}};
  if (lmid > 0) rows.push_back({Value::String(kClient), Value::Int(lmid)});
  return rows;
}

inline void SendSnapshot(Model& m, int64_t qid) {
  Link& l = m.links[qid];
  NormalizedEvent ev;
  ev.type = NormalizedEvent::Type::kSnapshot;
  ev.cv = m.cv;
  if (l.table.empty()) {
    for (auto& r : LmidRows(m.auth_lmid)) {
      ev.ops.push_back(RowOp{RowOp::Kind::kAdd, kClientMutationsTable, std::move(r), {}});
    }
  } else {
    for (const auto& [pk, row] : m.auth.at(l.table)) {
      ev.ops.push_back(OpToWire(l.shape, RowOp{RowOp::Kind::kAdd, l.table, row, {}}));
    }
  }
  l.phase = Phase::kStreaming;
  l.snap_cv = m.cv;
  Send(m, qid, std::move(ev));
}

inline std::vector<RowOp> DiffOps(const std::string& table, const PlainTable& before,
                           const PlainTable& after) {
  std::vector<RowOp> ops;
  for (const auto& [pk, row] : before) {
    auto it = after.find(pk);
    if (it == after.end()) {
      ops.push_back(RowOp{RowOp::Kind::kRemove, table, row, {}});
    } else if (CompareRowValues(it->second, row) != 0) {
      ops.push_back(RowOp{RowOp::Kind::kEdit, table, it->second, row});
    }
  }
  for (const auto& [pk, row] : after) {
    if (before.count(pk) == 0) ops.push_back(RowOp{RowOp::Kind::kAdd, table, row, {}});
  }
  return ops;
}

// One authority commit at a new cv: batches to streaming data qids, then the lmid row.
inline void Commit(Model& m) {
  const PlainTables before = m.states.rbegin()->second;
  const int64_t lmid_before = m.lmid_at.rbegin()->second;
  ++m.cv;
  m.states[m.cv] = m.auth;
  m.lmid_at[m.cv] = m.auth_lmid;
  std::vector<int64_t> qids;
  for (const auto& [qid, l] : m.links) qids.push_back(qid);
  for (int64_t qid : qids) {
    if (qid == kLmidQid) continue;
    auto it = m.links.find(qid);
    if (it == m.links.end() || it->second.phase != Phase::kStreaming) continue;
    const std::string& t = it->second.table;
    std::vector<RowOp> ops = DiffOps(t, before.at(t), m.auth.at(t));
    if (ops.empty()) continue;
    NormalizedEvent ev;
    ev.type = NormalizedEvent::Type::kBatch;
    ev.cv = m.cv;
    for (auto& op : ops) ev.ops.push_back(OpToWire(it->second.shape, std::move(op)));
    Send(m, qid, std::move(ev));
  }
  auto l0 = m.links.find(kLmidQid);
  if (m.auth_lmid != lmid_before && l0 != m.links.end() && l0->second.phase == Phase::kStreaming) {
    NormalizedEvent ev;
    ev.type = NormalizedEvent::Type::kBatch;
    ev.cv = m.cv;
    ev.ops = {RowOp{RowOp::Kind::kAdd, kClientMutationsTable,
                    {Value::String(kClient), Value::Int(m.auth_lmid)}, {}}};
    Send(m, kLmidQid, std::move(ev));
  }
}

// The authority processes the next mid (burnt when `reject` or when its twin fails).
inline void ProcessNext(Model& m, bool reject) {
  const MutationEnvelope& e = m.sent.at(m.auth_lmid + 1);
  m.auth_lmid = e.mid;
  bool applied = false;
  if (!reject) {
    PlainStore st = StoreOf(m.auth);
    applied = RunOn(st, e.name, e.args, false, nullptr).ok();
    if (applied) m.auth = st.tables();
  }
  Count(applied ? "auth-applied" : "auth-burnt");
  Commit(m);
}

inline void Reconcile(Model& m) { (void)Replay(m, true); }

inline void Release(Model& m, int64_t cv_min) {
  const bool fenced = m.gate.fenced();
  (void)m.gate.Release(cv_min);
  if (fenced && m.gate.fenced()) return;  // the resync fence holds: nothing released
  const PlainTables before = m.synced;
  for (const auto& [table, sub] : m.subs.subs()) {
    const Link& l = m.links.at(sub.source_qid);
    if (l.phase != Phase::kStreaming || l.snap_cv > cv_min) continue;
    m.synced[table] = m.states.at(cv_min).at(table);
    if (m.subs.Hydrate(sub.source_qid)) Count("hydrated-" + table);
  }
  const Link& l0 = m.links.at(kLmidQid);
  if (l0.phase == Phase::kStreaming && l0.snap_cv <= cv_min) {
    m.watermark = std::max(m.watermark, m.lmid_at.at(cv_min));
  }
  const size_t n = m.pending.size();
  std::erase_if(m.pending, [&](const Entry& e) { return e.mid && *e.mid <= m.watermark; });
  Count("confirmed", static_cast<int64_t>(n - m.pending.size()));
  if (!PlainTablesEqual(before, m.synced) || m.pending.size() != n) Reconcile(m);
  // cvs below appliedCv can no longer be released.
  while (m.states.size() > 1 && m.states.begin()->first < m.gate.applied_cv()) {
    m.states.erase(m.states.begin());
  }
  while (m.lmid_at.size() > 1 && m.lmid_at.begin()->first < m.gate.applied_cv()) {
    m.lmid_at.erase(m.lmid_at.begin());
  }
}

inline void Begin(Model& m) {
  m.outbox.clear();
  m.expect_ok = true;
  m.expect_mid.reset();
}


}  // namespace rindle::backend_state
