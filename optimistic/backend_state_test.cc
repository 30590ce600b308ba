// backend_state_test.cc — a RapidCheck state-machine test (rc::state) of OptimisticBackend over a
// hand-driven source, a ManualFoldClock and a model-driven honest authority.
//
// The MODEL (struct Model) holds three parts:
//   * the authority: its rows (PlainTables over the synced tables), its lmid for our client, the
//     cv timeline (rows + lmid at every cv since the last release, for computing what a release
//     at cvMin shows), the envelopes it received (by mid), and what each registered wire qid has
//     been sent (awaiting hello / awaiting snapshot / streaming since cv S);
//   * the gate as the wire sees it: the frames buffered (qid, cv), appliedCv — so overflow at
//     buffer_cap is PREDICTED, never read back;
//   * the client: the released (synced) rows, the confirmed watermark, the pending list (entries
//     with name/args/mid/seq/touched tables, unflushed folds with no mid), the open fold windows
//     (debounce / maxWait on the virtual clock), the local-only table's rows, the remote subs with
//     their retains and hydration.
// The authority runs the SAME Mutator functions over a PlainStore (PlainMutationTx); a rejected
// envelope burns its mid (lmid advances, nothing applies). Views use whole-table footprints, so
// the released state of a table is the authority's rows at the released cvMin once its sub's
// current snapshot is released.
//
// Commands: Invoke, InvokeFolded (incl. read-trap refusals), ClockTick, FlushFold, FlushFolds,
// WriteLocal (valid and invalid batches), DeliverHello, DeliverSnapshot, SkewedHello (CRIT#4),
// DeliverBatch (the authority applies the next sent mid), ServerReject (it burns the next mid),
// OtherWrite (another client writes at the authority), Progress (cvMin ∈ [appliedCv, latest]),
// Confirm (apply next + progress to latest), Restart (OnRestart, then a new cv timeline with
// fresh hellos + snapshots), Overflow (commits without progress until the buffer overflows),
// Retain / Release (refcounted remote subs, last release GCs), Resync (re-send pending).
//
// The CHECK after every command: health ok; every view == FreshQuery over (released rows ⊕
// pending replayed in seq order, unflushed folds last in creation order; the local table's rows);
// head/sync rows == the model's; pending (name, args, mid, seq) == the model's, in creation order;
// OpenFolds(); inspect() (confirmedLmid, nextMid, appliedCv, bufferedFrames, pendingTables, no
// pending mid ≤ confirmedLmid, seq order == mid order); IsPending / GetResultType against their
// definitions and their observers (transitions only); the source's registrations and every
// pushed envelope (first sends gapless from 1, re-sends); overflows() / schema_rejections().
//
// Case count: kCases (≥ 500) unless RC_PARAMS names max_success explicitly.
// RINDLE_STATE_STATS=1 prints how often the interesting transitions fired (model-side counts,
// generation included).
//
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
#include "properties/suites/rc_check.h"

namespace rindle {
namespace {

using json = nlohmann::json;

constexpr char kClient[] = "c1";
constexpr size_t kCap = 6;
constexpr int kCases = 500;
constexpr int64_t kIssueQid = 1;    // view + its own retain (never released)
constexpr int64_t kCounterQid = 2;  // split-path view: attached by every "counters" retain
constexpr int64_t kDraftQid = 3;    // local-only view
constexpr int64_t kFirstCounterRetain = 20;

// ---------------------------------------------------------------------------------------------
// Schema, mutators, views

Schema StateSchema() { return backend_test::TestSchema(); }  // issue, counter, draft (local)
const Schema& TheSchema() {
  static const Schema s = StateSchema();
  return s;
}
const std::set<std::string>& LocalTables() {
  static const std::set<std::string> s = {"draft"};
  return s;
}
const std::vector<std::string>& SyncedTables() {
  static const std::vector<std::string> t = {"counter", "issue"};
  return t;
}

std::map<std::string, Mutator> StateMutators() {
  std::map<std::string, Mutator> m;
  // Fails when the pk exists (e.g. the row arrived from the server meanwhile).
  m["create"] = [](MutationTx& tx, const json& a) {
    return tx.Insert("issue", {{"id", a["id"]}, {"title", a["title"]}});
  };
  // Absorbing (fold-legal): a full-row upsert.
  m["upsertIssue"] = [](MutationTx& tx, const json& a) {
    return tx.Upsert("issue", {{"id", a["id"]}, {"title", a["title"]}});
  };
  // Reads through the public surface (refused when folded); fails when the row is absent.
  m["retitle"] = [](MutationTx& tx, const json& a) -> absl::Status {
    auto row = tx.GetRow("issue", {{"id", a["id"]}});
    if (!row.ok()) return row.status();
    if (!row->has_value()) return absl::NotFoundError("no such issue");
    return tx.Update("issue",
                     {{"id", a["id"]}, {"title", (**row)["title"].get<std::string>() + "+"}});
  };
  m["delIssue"] = [](MutationTx& tx, const json& a) {
    return tx.Delete("issue", {{"id", a["id"]}});
  };
  // Read-dependent (refused when folded).
  m["inc"] = [](MutationTx& tx, const json& a) -> absl::Status {
    auto row = tx.GetRow("counter", {{"id", a["id"]}});
    if (!row.ok()) return row.status();
    if (!row->has_value()) return tx.Insert("counter", {{"id", a["id"]}, {"n", 1}});
    return tx.Update("counter",
                     {{"id", a["id"]}, {"n", (**row)["n"].get<int64_t>() + 1}});
  };
  // Absorbing (fold-legal).
  m["setN"] = [](MutationTx& tx, const json& a) {
    return tx.Upsert("counter", {{"id", a["id"]}, {"n", a["n"]}});
  };
  // Always throws after a staged write (nothing applies, no mid).
  m["fail"] = [](MutationTx& tx, const json& a) -> absl::Status {
    absl::Status s = tx.Insert("issue", {{"id", "zz"}, {"title", a.value("title", "x")}});
    if (!s.ok()) return s;
    return absl::InvalidArgumentError("fail: client-side validation");
  };
  // M1: a mutator may not write a local-only table.
  m["writeDraft"] = [](MutationTx& tx, const json&) {
    return tx.Insert("draft", {{"id", "d"}, {"text", "x"}});
  };
  return m;
}
const std::map<std::string, Mutator>& Muts() {
  static const std::map<std::string, Mutator> m = StateMutators();
  return m;
}

Ast IssueAst() {
  Ast a;
  a.table = "issue";
  a.order_by = {OrderPart{"title", true}};
  return a;
}
Ast CounterAst() {
  Ast a;
  a.table = "counter";
  a.order_by = {OrderPart{"id", false}};
  return a;
}
Ast DraftAst() {
  Ast a;
  a.table = "draft";
  return a;
}
const std::map<int64_t, std::pair<Ast, std::string>>& Views() {
  static const std::map<int64_t, std::pair<Ast, std::string>> v = {
      {kIssueQid, {IssueAst(), "issue"}},
      {kCounterQid, {CounterAst(), "counter"}},
      {kDraftQid, {DraftAst(), "draft"}}};
  return v;
}
std::string RemoteNameFor(const std::string& table) {
  return table == "issue" ? "issues" : "counters";
}

// Fold policy per mutator name (one policy per name, so a window's options never change).
FoldOptions FoldOptsFor(const std::string& name, const json& args) {
  FoldOptions o;
  o.key = json{{"id", args.value("id", "")}};
  if (name == "upsertIssue") {
    o.debounce_ms = 150;
    o.max_wait_ms = 100;
  } else {
    o.debounce_ms = 60;
  }
  return o;
}
std::string ModelFoldKey(const std::string& name, const json& key) {
  return name + std::string(1, '\0') + key.dump();
}

// ---------------------------------------------------------------------------------------------
// The model's MutationTx: a PlainMutationTx that records the tables of the raw writes that
// actually staged (the backend's write-set rule: no-op update/delete record nothing), enforces
// M1, and arms the fold read trap.

class ModelTx : public MutationTx {
 public:
  ModelTx(PlainMutationTx* inner, std::set<std::string>* touched, bool trap)
      : inner_(inner), touched_(touched), trap_(trap) {}

  absl::StatusOr<std::optional<RowValues>> Get(std::string_view table,
                                               const RowValues& pk) override {
    if (absl::Status s = Read(table); !s.ok()) return s;
    return inner_->Get(table, pk);
  }
  absl::StatusOr<std::optional<KeyedRow>> GetRow(std::string_view table,
                                                 const KeyedRow& pk) override {
    if (absl::Status s = Read(table); !s.ok()) return s;
    return inner_->GetRow(table, pk);
  }
  absl::StatusOr<std::vector<TreeNode>> Query(const Ast& ast) override {
    if (absl::Status s = Read(ast.table); !s.ok()) return s;
    return inner_->Query(ast);
  }
  absl::Status Add(std::string_view table, const RowValues& row) override {
    return Wrote(table, Write(table), [&] { return inner_->Add(table, row); });
  }
  absl::Status Remove(std::string_view table, const RowValues& row) override {
    return Wrote(table, Write(table), [&] { return inner_->Remove(table, row); });
  }
  absl::Status Edit(std::string_view table, const RowValues& o, const RowValues& n) override {
    return Wrote(table, Write(table), [&] { return inner_->Edit(table, o, n); });
  }
  absl::Status Insert(std::string_view table, const KeyedRow& row) override {
    return Wrote(table, Write(table), [&] { return inner_->Insert(table, row); });
  }
  absl::Status Update(std::string_view table, const KeyedRow& row) override {
    const bool present = Present(table, row);
    absl::Status s = Write(table);
    if (!s.ok()) return s;
    s = inner_->Update(table, row);
    if (s.ok() && present) touched_->insert(std::string(table));
    return s;
  }
  absl::Status Upsert(std::string_view table, const KeyedRow& row) override {
    return Wrote(table, Write(table), [&] { return inner_->Upsert(table, row); });
  }
  absl::Status InsertIgnore(std::string_view table, const KeyedRow& row) override {
    const bool present = Present(table, row);
    absl::Status s = Write(table);
    if (!s.ok()) return s;
    s = inner_->InsertIgnore(table, row);
    if (s.ok() && !present) touched_->insert(std::string(table));
    return s;
  }
  absl::Status Delete(std::string_view table, const KeyedRow& pk) override {
    const bool present = Present(table, pk);
    absl::Status s = Write(table);
    if (!s.ok()) return s;
    s = inner_->Delete(table, pk);
    if (s.ok() && present) touched_->insert(std::string(table));
    return s;
  }

 private:
  absl::Status Read(std::string_view table) const {
    if (LocalTables().count(std::string(table)) > 0) {
      return absl::FailedPreconditionError(absl::StrCat("read local-only table \"", std::string(table), "\""));
    }
    if (trap_) return absl::FailedPreconditionError("fold-read: model trap");
    return absl::OkStatus();
  }
  absl::Status Write(std::string_view table) const {
    if (LocalTables().count(std::string(table)) > 0) {
      return absl::FailedPreconditionError(absl::StrCat("write local-only table \"", std::string(table), "\""));
    }
    return absl::OkStatus();
  }
  template <typename F>
  absl::Status Wrote(std::string_view table, absl::Status pre, F f) {
    if (!pre.ok()) return pre;
    absl::Status s = f();
    if (s.ok()) touched_->insert(std::string(table));
    return s;
  }
  bool Present(std::string_view table, const KeyedRow& keyed) const {
    auto pk = inner_->staged().PkFromKeyed(table, keyed);
    if (!pk.ok()) return false;
    auto row = inner_->staged().Get(table, *pk);
    return row.ok() && row->has_value();
  }

  PlainMutationTx* inner_;
  std::set<std::string>* touched_;
  bool trap_;
};

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

PlainTables Empty() {
  PlainTables t;
  for (const auto& n : SyncedTables()) t[n];
  return t;
}

RowValues IssueRow(const std::string& id, const std::string& title) {
  return {Value::String(id), Value::String(title), Value::Null()};
}

Model InitialModel() {
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

PlainStore StoreOf(const PlainTables& tables) {
  PlainStore st(TheSchema());
  for (const auto& [t, rows] : tables) {
    for (const auto& [pk, row] : rows) (void)st.Add(t, row);
  }
  return st;
}

std::map<std::string, int64_t>& Stats() {
  static std::map<std::string, int64_t> s;
  return s;
}
void Count(const std::string& k, int64_t n = 1) { Stats()[k] += n; }

// Replay order: dealt entries by seq, then unflushed folds by creation.
std::vector<size_t> ReplayOrder(const Model& m) {
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
absl::Status RunOn(PlainStore& st, const std::string& name, const json& args, bool trap,
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
PlainStore Replay(Model& m, bool reconcile) {
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
PlainStore Head(const Model& m) {
  PlainStore st = StoreOf(m.synced);
  for (size_t i : ReplayOrder(m)) {
    (void)RunOn(st, m.pending[i].name, m.pending[i].args, false, nullptr);
  }
  return st;
}

void Push(Model& m, const Entry& e) {
  MutationEnvelope env{kClient, *e.mid, e.name, e.args};
  m.sent[*e.mid] = env;
  m.pushed.push_back(env);
}

void Deal(Model& m, Entry& e) {
  e.mid = m.next_mid++;
  e.seq = m.next_seq++;
  Push(m, e);
}

Entry* FindEntry(Model& m, uint64_t id) {
  for (auto& e : m.pending) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

void FlushWindow(Model& m, size_t idx) {
  const FoldWin w = m.folds[idx];
  m.folds.erase(m.folds.begin() + static_cast<std::ptrdiff_t>(idx));
  Entry* e = FindEntry(m, w.entry_id);
  if (e != nullptr) Deal(m, *e);
}

void FlushKey(Model& m, const std::string& key) {
  for (size_t i = 0; i < m.folds.size(); ++i) {
    if (m.folds[i].key == key) {
      FlushWindow(m, i);
      return;
    }
  }
}

// --- the wire ---

void Overflow(Model& m) {  // the gate model has already cleared its buffer
  Count("overflow");
  ++m.overflows;
  for (const auto& [table, sub] : m.subs.subs()) {
    m.links[sub.source_qid].phase = Phase::kAwaitHello;
    ++m.registrations[sub.source_qid];
  }
  m.links[kLmidQid].phase = Phase::kAwaitHello;
  ++m.registrations[kLmidQid];
}

void Send(Model& m, int64_t qid, NormalizedEvent ev) {
  const GateModel::Frame frame{qid, ev.cv, ev.type == NormalizedEvent::Type::kSnapshot, 0};
  m.outbox.push_back(Action{false, qid, std::move(ev)});
  if (m.gate.Push(frame) == GateModel::Arrival::kOverflow) Overflow(m);
}

std::vector<std::string> ColumnsOf(const std::string& table) {
  std::vector<std::string> out;
  for (const auto& c : TheSchema().at(table).columns) out.push_back(c.name);
  return out;
}

// The wire column list of a hello of `shape`, in our column order: expanded with a column we do
// not have, or projected onto fewer columns (the issue table's nullable `status` is always null
// here, so dropping it loses nothing). A REORDERED list (shape 1) is refused by the backend's
// CRIT#4 check as drift (it accepts only order-preserving projections/expansions), so it is not
// generated as a valid hello.
std::vector<std::string> WireCols(const std::string& table, int shape) {
  std::vector<std::string> cols = ColumnsOf(table);
  if (shape == 1) std::reverse(cols.begin(), cols.end());
  if (shape == 2) cols.insert(cols.begin() + 1, "extra");
  if (shape == 3 && table == "issue") cols.pop_back();
  return cols;
}
RowValues ToWire(const std::string& table, int shape, const RowValues& row) {
  const TableSpec& spec = TheSchema().at(table);
  RowValues out;
  for (const auto& c : WireCols(table, shape)) {
    const int i = spec.ColumnIndex(c);
    out.push_back(i < 0 ? Value::String("server-only") : row[static_cast<size_t>(i)]);
  }
  return out;
}
RowOp OpToWire(int shape, RowOp op) {
  op.row = ToWire(op.table, shape, op.row);
  if (op.op == RowOp::Kind::kEdit) op.old_row = ToWire(op.table, shape, op.old_row);
  return op;
}

void SendHello(Model& m, int64_t qid, int shape = 0) {
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
  m.gate.Drop(qid);
}

std::vector<RowValues> LmidRows(int64_t lmid) {
  std::vector<RowValues> rows = {{Value::String("other"), Value::Int(3)}};
  if (lmid > 0) rows.push_back({Value::String(kClient), Value::Int(lmid)});
  return rows;
}

void SendSnapshot(Model& m, int64_t qid) {
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

std::vector<RowOp> DiffOps(const std::string& table, const PlainTable& before,
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
void Commit(Model& m) {
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
void ProcessNext(Model& m, bool reject) {
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

void Reconcile(Model& m) { (void)Replay(m, true); }

void Release(Model& m, int64_t cv_min) {
  (void)m.gate.Release(cv_min);
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

void Begin(Model& m) {
  m.outbox.clear();
  m.expect_ok = true;
  m.expect_mid.reset();
}

// ---------------------------------------------------------------------------------------------
// The system under test

class StateSource : public OptimisticSource {
 public:
  void RegisterQuery(int64_t qid, const RemoteQuery& q) override {
    registered[qid] = q;
    ++registrations[qid];
  }
  void UnregisterQuery(int64_t qid) override { registered.erase(qid); }
  void PushMutation(const MutationEnvelope& e) override { pushed.push_back(e); }
  void OnNormalized(std::function<void(int64_t, const NormalizedEvent&)> h) override {
    on_normalized_ = std::move(h);
  }
  void OnProgress(std::function<void(const ProgressFrame&)> h) override {
    on_progress_ = std::move(h);
  }
  void OnRestart(std::function<void()> h) override { on_restart_ = std::move(h); }
  void OnResync(std::function<void()> h) override { on_resync_ = std::move(h); }

  void Deliver(const Action& a) {
    if (a.restart) {
      on_restart_();
    } else {
      on_normalized_(a.qid, a.ev);
    }
  }
  void Progress(int64_t cv_min) { on_progress_(ProgressFrame{cv_min}); }
  void Resync() { on_resync_(); }

  std::map<int64_t, RemoteQuery> registered;
  std::map<int64_t, int> registrations;
  std::vector<MutationEnvelope> pushed;

 private:
  std::function<void(int64_t, const NormalizedEvent&)> on_normalized_;
  std::function<void(const ProgressFrame&)> on_progress_;
  std::function<void()> on_restart_;
  std::function<void()> on_resync_;
};

struct Sut {
  ManualFoldClock clock;
  StateSource source;
  std::unique_ptr<OptimisticBackend> backend;
  std::map<int64_t, ResultType> rt_seen;
  std::map<int64_t, bool> pending_seen;
  std::vector<std::string> observer_errors;
  std::set<int64_t> catch_ups;  // views that got a catch_up batch (cleared per release command)

  Sut() {
    OptimisticOptions o;
    o.client_id = kClient;
    o.schema = StateSchema();
    o.local_tables = LocalTables();
    o.mutators = StateMutators();
    o.buffer_cap = kCap;
    o.clock = &clock;
    backend = std::make_unique<OptimisticBackend>(std::move(o), &source);
    Setup(backend->RegisterQuery(kIssueQid, IssueAst(), RemoteQuery{"issues", json::object()}));
    Setup(backend->RegisterQuery(kCounterQid, CounterAst()));
    Setup(backend->RetainRemoteQuery(kFirstCounterRetain, RemoteQuery{"counters", json::object()},
                                     kCounterQid));
    Setup(backend->RegisterQuery(kDraftQid, DraftAst()));
    for (const auto& [qid, v] : Views()) {
      rt_seen[qid] = backend->GetResultType(qid);
      pending_seen[qid] = backend->IsPending(qid);
    }
    backend->SetResultTypeObserver([this](int64_t qid, ResultType t) {
      if (rt_seen.count(qid) > 0 && rt_seen[qid] == t && t != ResultType::kComplete) {
        observer_errors.push_back(absl::StrCat("result-type observer repeated ",
                                               std::string(ResultTypeName(t)), " for qid ", qid));
      }
      rt_seen[qid] = t;
    });
    backend->SetBatchObserver([this](const QueryBatch& batch, bool catch_up) {
      if (catch_up) catch_ups.insert(batch.query_id);
    });
    backend->SetPendingObserver([this](int64_t qid, bool p) {
      if (pending_seen.count(qid) > 0 && pending_seen[qid] == p) {
        observer_errors.push_back(
            absl::StrCat("pending observer repeated ", p ? "true" : "false", " for qid ", qid));
      }
      pending_seen[qid] = p;
    });
  }
  ~Sut() { backend.reset(); }
  void Setup(const absl::Status& s) {
    if (!s.ok()) observer_errors.push_back(absl::StrCat("setup: ", s.ToString()));
  }
};

// ---------------------------------------------------------------------------------------------
// The check

std::string RowsDump(const std::vector<RowValues>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(RowToJson(r).dump());
  std::sort(out.begin(), out.end());
  return json(out).dump();
}
std::string RowsDump(const PlainTable& t) {
  std::vector<RowValues> rows;
  for (const auto& [pk, r] : t) rows.push_back(r);
  return RowsDump(rows);
}
std::string TreeDump(const std::vector<TreeNode>& nodes) {
  json out = json::array();
  for (const auto& n : nodes) out.push_back(TreeNodeToJson(n));
  return out.dump();
}
std::string OptDump(const std::optional<int64_t>& v) {
  return v ? std::to_string(*v) : std::string("null");
}
std::string ModelPendingDump(const Model& m) {
  json out = json::array();
  for (const auto& e : m.pending) {
    out.push_back({e.name, e.args, OptDump(e.mid), OptDump(e.seq)});
  }
  return out.dump();
}
std::string SutPendingDump(const OptimisticBackend& b) {
  json out = json::array();
  for (const auto& e : b.pending()) {
    out.push_back({e.name, e.args, OptDump(e.mid), OptDump(e.seq)});
  }
  return out.dump();
}
std::string EnvDump(const std::vector<MutationEnvelope>& v) {
  json out = json::array();
  for (const auto& e : v) out.push_back(e.ToJson());
  return out.dump();
}

#define STATE_EXPECT_EQ(a, b, what)                                                        \
  do {                                                                                     \
    const auto& va_ = (a);                                                                 \
    const auto& vb_ = (b);                                                                 \
    if (!(va_ == vb_)) {                                                                   \
      std::ostringstream os_;                                                              \
      os_ << what << ":\n  backend: " << ::testing::PrintToString(va_)                     \
          << "\n  model:   " << ::testing::PrintToString(vb_);                             \
      RC_FAIL(os_.str());                                                                  \
    }                                                                                      \
  } while (0)

bool ExpectedPending(const Model& m, const std::string& table) {
  for (const auto& e : m.pending) {
    if (e.touched.count(table) > 0) return true;
  }
  return false;
}

ResultType ExpectedResultType(const Model& m, int64_t qid) {
  if (qid == kDraftQid) return ResultType::kComplete;
  const SubscriptionModel::Sub* sub = m.subs.Find(qid == kIssueQid ? "issue" : "counter");
  if (sub == nullptr) return ResultType::kComplete;  // detached split view: local data
  return sub->hydrated ? ResultType::kComplete : ResultType::kUnknown;
}

void CheckAll(const Model& m, Sut& sut) {
  const OptimisticBackend& b = *sut.backend;
  if (!b.health().ok()) RC_FAIL("backend unhealthy: " + b.health().ToString());
  if (!sut.observer_errors.empty()) RC_FAIL(sut.observer_errors.front());

  // Pending list, in creation order.
  STATE_EXPECT_EQ(SutPendingDump(b), ModelPendingDump(m), "pending (name, args, mid, seq)");

  // Views == fresh over (released ⊕ pending, local rows).
  PlainStore head = Head(m);
  PlainTables tables = head.tables();
  tables["draft"] = m.draft;
  for (const auto& [qid, v] : Views()) {
    const ResultView* view = b.View(qid);
    if (view == nullptr) RC_FAIL(absl::StrCat("view ", qid, " missing"));
    auto fresh = FreshQuery(v.first, tables, TheSchema());
    if (!fresh.ok()) RC_FAIL("fresh: " + fresh.status().ToString());
    STATE_EXPECT_EQ(TreeDump(view->Tree()), TreeDump(*fresh), absl::StrCat("view ", qid));
  }
  for (const auto& t : SyncedTables()) {
    auto rows = b.engine().TableRows(t);
    auto sync = b.engine().SyncRows(t);
    if (!rows.ok() || !sync.ok()) RC_FAIL("engine rows unavailable for " + t);
    STATE_EXPECT_EQ(RowsDump(*rows), RowsDump(tables.at(t)), "head rows of " + t);
    STATE_EXPECT_EQ(RowsDump(*sync), RowsDump(m.synced.at(t)), "sync rows of " + t);
  }

  // Folds.
  std::vector<std::string> open;
  for (const auto& w : m.folds) open.push_back(w.key);
  STATE_EXPECT_EQ(b.OpenFolds(), open, "open folds");

  // inspect().
  const Inspect in = b.inspect();
  STATE_EXPECT_EQ(in.confirmed_lmid, m.watermark, "confirmedLmid");
  STATE_EXPECT_EQ(in.next_mid, m.next_mid, "nextMid");
  STATE_EXPECT_EQ(in.applied_cv, m.gate.applied_cv(), "appliedCv");
  STATE_EXPECT_EQ(in.buffered_frames, m.gate.buffered(), "bufferedFrames");
  STATE_EXPECT_EQ(in.pending.size(), m.pending.size(), "inspect pending size");
  std::set<std::string> tables_touched;
  for (const auto& e : m.pending) tables_touched.insert(e.touched.begin(), e.touched.end());
  STATE_EXPECT_EQ(in.pending_tables,
                  std::vector<std::string>(tables_touched.begin(), tables_touched.end()),
                  "pendingTables");
  for (size_t i = 0; i < in.pending.size() && i < m.pending.size(); ++i) {
    const Entry& e = m.pending[i];
    const PendingInspect& p = in.pending[i];
    std::string key = e.mid ? absl::StrCat("m:", *e.mid) : std::string("?");
    for (const auto& w : m.folds) {
      if (w.entry_id == e.id) {
        key = "f:" + w.key;
        if (!p.fold || p.fold->fold_key != w.key || p.fold->flushed ||
            p.fold->debounce_ms != w.debounce || p.fold->max_wait_ms != w.max_wait) {
          RC_FAIL(absl::StrCat("inspect pending[", i, "] lacks its open fold: ", p.ToJson().dump()));
        }
      }
    }
    STATE_EXPECT_EQ(p.key, key, absl::StrCat("inspect pending[", i, "].key"));
    STATE_EXPECT_EQ(p.mid, e.mid, absl::StrCat("inspect pending[", i, "].mid"));
    std::vector<std::string> touched(e.touched.begin(), e.touched.end());
    std::vector<std::string> got = p.tables;
    std::sort(got.begin(), got.end());
    STATE_EXPECT_EQ(got, touched, absl::StrCat("inspect pending[", i, "].tables"));
  }
  std::vector<std::pair<int64_t, int64_t>> by_seq;
  for (const auto& p : b.pending()) {
    if (p.mid.has_value() != p.seq.has_value()) RC_FAIL("mid/seq set apart");
    if (p.mid && *p.mid <= in.confirmed_lmid) RC_FAIL("a pending mid ≤ confirmedLmid");
    if (p.mid) by_seq.emplace_back(*p.seq, *p.mid);
  }
  std::sort(by_seq.begin(), by_seq.end());
  for (size_t i = 1; i < by_seq.size(); ++i) {
    if (by_seq[i].first == by_seq[i - 1].first || by_seq[i].second <= by_seq[i - 1].second) {
      RC_FAIL("seq order ≠ mid order among pending entries");
    }
  }

  // The two axes and their observers.
  for (const auto& [qid, v] : Views()) {
    STATE_EXPECT_EQ(b.IsPending(qid), ExpectedPending(m, v.second),
                    absl::StrCat("IsPending(", qid, ")"));
    STATE_EXPECT_EQ(ResultTypeName(b.GetResultType(qid)),
                    ResultTypeName(ExpectedResultType(m, qid)),
                    absl::StrCat("GetResultType(", qid, ")"));
    STATE_EXPECT_EQ(sut.pending_seen.at(qid), b.IsPending(qid),
                    absl::StrCat("last pending notification for ", qid));
    STATE_EXPECT_EQ(ResultTypeName(sut.rt_seen.at(qid)), ResultTypeName(b.GetResultType(qid)),
                    absl::StrCat("last result-type notification for ", qid));
  }

  // The wire: registrations, pushes (first sends gapless from 1), counters.
  std::vector<int64_t> reg, want_reg;
  for (const auto& [qid, q] : sut.source.registered) reg.push_back(qid);
  for (const auto& [qid, l] : m.links) want_reg.push_back(qid);
  STATE_EXPECT_EQ(reg, want_reg, "registered qids");
  STATE_EXPECT_EQ(sut.source.registrations, m.registrations, "RegisterQuery calls per qid");
  STATE_EXPECT_EQ(EnvDump(sut.source.pushed), EnvDump(m.pushed), "pushed envelopes");
  int64_t max_first = 0;
  for (const auto& e : sut.source.pushed) {
    if (e.mid > max_first + 1) RC_FAIL(absl::StrCat("mid ", e.mid, " pushed before ", max_first + 1));
    max_first = std::max(max_first, e.mid);
  }
  Count("checks");
  Count("pending-entries-seen", static_cast<int64_t>(m.pending.size()));
  Count("open-folds-seen", static_cast<int64_t>(m.folds.size()));
  STATE_EXPECT_EQ(b.overflows(), m.overflows, "overflows()");
  STATE_EXPECT_EQ(b.schema_rejections(), m.schema_rejections, "schema_rejections()");
}

// The views whose sub hydrated between s0 and s1 get their catch-up delivery in that release.
void CheckCatchUps(const Model& s0, const Model& s1, const Sut& sut) {
  std::set<int64_t> want;
  for (const auto& [table, sub] : s1.subs.subs()) {
    const SubscriptionModel::Sub* before = s0.subs.Find(table);
    if (sub.hydrated && (before == nullptr || !before->hydrated)) {
      want.insert(table == "issue" ? kIssueQid : kCounterQid);
    }
  }
  STATE_EXPECT_EQ(sut.catch_ups, want, "views with a catch-up batch in this release");
}

void Deliver(const Model& m, Sut& sut) {
  for (const auto& a : m.outbox) sut.source.Deliver(a);
}

// ---------------------------------------------------------------------------------------------
// Commands

using Cmd = rc::state::Command<Model, Sut>;

rc::Gen<json> GenArgs(const std::string& name) {
  if (name == "inc" || name == "setN") {
    return rc::gen::map(
        rc::gen::pair(rc::gen::element<std::string>("c", "d"), rc::gen::inRange(0, 4)),
        [](const std::pair<std::string, int>& p) { return json{{"id", p.first}, {"n", p.second}}; });
  }
  return rc::gen::map(
      rc::gen::pair(rc::gen::element<std::string>("a", "b"),
                    rc::gen::element<std::string>("t1", "t2", "t3")),
      [](const std::pair<std::string, std::string>& p) {
        return json{{"id", p.first}, {"title", p.second}};
      });
}

struct Invoke : Cmd {
  std::string name;
  json args;
  Invoke() {
    name = *rc::gen::weightedElement<std::string>({{3, "create"},
                                                   {3, "upsertIssue"},
                                                   {3, "retitle"},
                                                   {2, "delIssue"},
                                                   {3, "inc"},
                                                   {2, "setN"},
                                                   {1, "fail"},
                                                   {1, "writeDraft"}});
    args = *GenArgs(name);
  }
  void apply(Model& m) const override {
    Begin(m);
    PlainStore head = Head(m);
    std::set<std::string> touched;
    if (!RunOn(head, name, args, false, &touched).ok()) {
      m.expect_ok = false;
      return;
    }
    // Flush-on-enqueue: open folds whose tables overlap this write take their mids first.
    for (size_t i = 0; i < m.folds.size();) {
      Entry* f = FindEntry(m, m.folds[i].entry_id);
      bool overlap = false;
      if (f != nullptr) {
        for (const auto& t : f->touched) overlap = overlap || touched.count(t) > 0;
      }
      if (overlap) {
        Count("flush-on-enqueue");
        FlushWindow(m, i);
      } else {
        ++i;
      }
    }
    Entry e;
    e.id = m.next_entry++;
    e.name = name;
    e.args = args;
    e.touched = touched;
    Deal(m, e);
    m.expect_mid = e.mid;
    m.pending.push_back(std::move(e));
  }
  void run(const Model& s0, Sut& sut) const override {
    Model s1 = nextState(s0);
    auto r = sut.backend->Invoke(name, args);
    STATE_EXPECT_EQ(r.ok(), s1.expect_ok, "Invoke ok (" + r.status().ToString() + ")");
    if (r.ok()) STATE_EXPECT_EQ(*r, *s1.expect_mid, "Invoke mid");
    CheckAll(s1, sut);
  }
  void show(std::ostream& os) const override { os << "Invoke(" << name << ", " << args << ")"; }
};

struct InvokeFolded : Cmd {
  std::string name;
  json args;
  InvokeFolded() {
    name = *rc::gen::weightedElement<std::string>(
        {{4, "upsertIssue"}, {4, "setN"}, {1, "retitle"}, {1, "inc"}});
    args = *GenArgs(name);
  }
  void apply(Model& m) const override {
    Begin(m);
    PlainStore head = Head(m);
    std::set<std::string> touched;
    if (!RunOn(head, name, args, /*trap=*/true, &touched).ok()) {
      Count("fold-refused");
      m.expect_ok = false;
      return;
    }
    const FoldOptions opts = FoldOptsFor(name, args);
    const std::string key = ModelFoldKey(name, opts.key);
    for (size_t i = 0; i < m.folds.size(); ++i) {
      FoldWin& w = m.folds[i];
      if (w.key != key) continue;
      Entry* e = FindEntry(m, w.entry_id);
      e->args = args;
      e->touched = touched;
      w.due = m.now + w.debounce;
      w.arm = m.next_arm++;
      Count("fold-overwrite");
      if (w.max_wait && m.now - w.opened >= *w.max_wait) {
        Count("flush-maxwait");
        FlushWindow(m, i);
      }
      return;
    }
    Entry e;
    e.id = m.next_entry++;
    e.name = name;
    e.args = args;
    e.touched = touched;
    FoldWin w;
    w.key = key;
    w.entry_id = e.id;
    w.debounce = opts.debounce_ms;
    w.max_wait = opts.max_wait_ms;
    w.opened = m.now;
    w.due = m.now + opts.debounce_ms;
    w.arm = m.next_arm++;
    m.pending.push_back(std::move(e));
    m.folds.push_back(w);
  }
  void run(const Model& s0, Sut& sut) const override {
    Model s1 = nextState(s0);
    const FoldOptions opts = FoldOptsFor(name, args);
    auto r = sut.backend->InvokeFolded(name, args, opts);
    STATE_EXPECT_EQ(r.ok(), s1.expect_ok, "InvokeFolded ok (" + r.status().ToString() + ")");
    if (r.ok()) {
      STATE_EXPECT_EQ(*r, ModelFoldKey(name, opts.key), "fold key");
      STATE_EXPECT_EQ(OptimisticBackend::FoldKey(name, opts.key), ModelFoldKey(name, opts.key),
                      "FoldKey()");
    } else if (name == "retitle" || name == "inc") {
      STATE_EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition,
                      "read-trap refusal code");
    }
    CheckAll(s1, sut);
  }
  void show(std::ostream& os) const override {
    os << "InvokeFolded(" << name << ", " << args << ")";
  }
};

struct ClockTick : Cmd {
  int64_t ms;
  ClockTick() : ms(*rc::gen::element<int64_t>(10, 40, 60, 100, 150, 300)) {}
  void apply(Model& m) const override {
    Begin(m);
    const int64_t target = m.now + ms;
    while (true) {
      size_t best = m.folds.size();
      for (size_t i = 0; i < m.folds.size(); ++i) {
        const FoldWin& w = m.folds[i];
        if (w.due > target) continue;
        if (best == m.folds.size() || std::make_pair(w.due, w.arm) <
                                          std::make_pair(m.folds[best].due, m.folds[best].arm)) {
          best = i;
        }
      }
      if (best == m.folds.size()) break;
      m.now = m.folds[best].due;
      Count("flush-timer");
      FlushWindow(m, best);
    }
    m.now = target;
  }
  void run(const Model& s0, Sut& sut) const override {
    Model s1 = nextState(s0);
    sut.clock.Advance(ms);
    CheckAll(s1, sut);
  }
  void show(std::ostream& os) const override { os << "ClockTick(" << ms << ")"; }
};

struct FlushOne : Cmd {
  std::string key;
  explicit FlushOne(const Model& m) {
    std::vector<std::string> keys = {ModelFoldKey("setN", json{{"id", "c"}})};
    for (const auto& w : m.folds) keys.push_back(w.key);
    key = *rc::gen::elementOf(keys);
  }
  void apply(Model& m) const override {
    Begin(m);
    FlushKey(m, key);
  }
  void run(const Model& s0, Sut& sut) const override {
    Model s1 = nextState(s0);
    sut.backend->FlushFold(key);
    CheckAll(s1, sut);
  }
  void show(std::ostream& os) const override {
    std::string k = key;
    std::replace(k.begin(), k.end(), '\0', '|');
    os << "FlushFold(" << k << ")";
  }
};

struct FlushAll : Cmd {
  void apply(Model& m) const override {
    Begin(m);
    while (!m.folds.empty()) FlushWindow(m, 0);
  }
  void run(const Model& s0, Sut& sut) const override {
    Model s1 = nextState(s0);
    sut.backend->FlushFolds();
    CheckAll(s1, sut);
  }
  void show(std::ostream& os) const override { os << "FlushFolds"; }
};

struct WriteLocal : Cmd {
  std::vector<RowOp> ops;
  explicit WriteLocal(const Model& m) {
    const int n = *rc::gen::inRange(1, 3);
    for (int i = 0; i < n; ++i) {
      const std::string id = *rc::gen::element<std::string>("d1", "d2");
      const std::string text = *rc::gen::element<std::string>("x", "y");
      RowValues row = {Value::String(id), Value::String(text)};
      auto cur = m.draft.find({Value::String(id)});
      const bool exact = *rc::gen::weightedElement<bool>({{4, true}, {1, false}});
      RowValues old = cur != m.draft.end() && exact ? cur->second
                                                    : RowValues{Value::String(id), Value::Null()};
      const int kind = *rc::gen::weightedElement<int>({{4, 0}, {2, 1}, {3, 2}, {1, 3}});
      switch (kind) {
        case 0: ops.push_back(RowOp{RowOp::Kind::kAdd, "draft", row, {}}); break;
        case 1: ops.push_back(RowOp{RowOp::Kind::kRemove, "draft", old, {}}); break;
        case 2: ops.push_back(RowOp{RowOp::Kind::kEdit, "draft", row, old}); break;
        default:  // a synced table rejects the whole batch
          ops.push_back(RowOp{RowOp::Kind::kAdd, "issue", IssueRow("L", "l"), {}});
      }
    }
  }
  void apply(Model& m) const override {
    Begin(m);
    PlainStore st(TheSchema());
    for (const auto& [pk, r] : m.draft) (void)st.Add("draft", r);
    for (const auto& op : ops) {
      absl::Status s;
      if (op.table != "draft") {
        s = absl::FailedPreconditionError("synced");
      } else if (op.op == RowOp::Kind::kAdd) {
        s = st.Add("draft", op.row);
      } else if (op.op == RowOp::Kind::kRemove) {
        s = st.Remove("draft", op.row);
      } else {
        s = st.Edit("draft", op.old_row, op.row);
      }
      if (!s.ok()) {
        m.expect_ok = false;
        return;
      }
    }
    m.draft = st.tables().at("draft");
  }
  void run(const Model& s0, Sut& sut) const override {
    Model s1 = nextState(s0);
    absl::Status s = sut.backend->WriteLocal(ops);
    STATE_EXPECT_EQ(s.ok(), s1.expect_ok, "WriteLocal ok (" + s.ToString() + ")");
    CheckAll(s1, sut);
  }
  void show(std::ostream& os) const override {
    os << "WriteLocal(";
    for (const auto& op : ops) {
      os << (op.op == RowOp::Kind::kAdd ? "add " : op.op == RowOp::Kind::kRemove ? "remove " : "edit ")
         << op.table << " " << RowToJson(op.row).dump();
      if (op.op == RowOp::Kind::kEdit) os << " from " << RowToJson(op.old_row).dump();
      os << "; ";
    }
    os << ")";
  }
};

int64_t PickLink(const Model& m, bool want_data) {
  std::vector<int64_t> qids;
  for (const auto& [qid, l] : m.links) {
    if (!want_data || qid != kLmidQid) qids.push_back(qid);
  }
  if (qids.empty()) return -1;
  return *rc::gen::elementOf(qids);
}

struct DeliverHello : Cmd {
  int64_t qid;
  int shape;
  explicit DeliverHello(const Model& m)
      : qid(PickLink(m, false)),
        shape(*rc::gen::weightedElement<int>({{4, 0}, {1, 2}, {1, 3}})) {}
  void checkPreconditions(const Model& m) const override { RC_PRE(m.links.count(qid) > 0); }
  void apply(Model& m) const override {
    Begin(m);
    SendHello(m, qid, m.links.at(qid).table.empty() ? 0 : shape);
  }
  void run(const Model& s0, Sut& sut) const override {
    Model s1 = nextState(s0);
    Deliver(s1, sut);
    CheckAll(s1, sut);
  }
  void show(std::ostream& os) const override {
    os << "DeliverHello(" << qid << ", shape " << shape << ")";
  }
};

struct DeliverSnapshot : Cmd {
  int64_t qid = -1;
  explicit DeliverSnapshot(const Model& m) {
    std::vector<int64_t> qids;
    for (const auto& [q, l] : m.links) {
      if (l.phase == Phase::kAwaitSnapshot) qids.push_back(q);
    }
    if (!qids.empty()) qid = *rc::gen::elementOf(qids);
  }
  void checkPreconditions(const Model& m) const override {
    auto it = m.links.find(qid);
    RC_PRE(it != m.links.end() && it->second.phase == Phase::kAwaitSnapshot);
  }
  void apply(Model& m) const override {
    Begin(m);
    SendSnapshot(m, qid);
  }
  void run(const Model& s0, Sut& sut) const override {
    Model s1 = nextState(s0);
    Deliver(s1, sut);
    CheckAll(s1, sut);
  }
  void show(std::ostream& os) const override { os << "DeliverSnapshot(" << qid << ")"; }
};

// CRIT#4: a hello naming a table that is not ours, a local-only table, or omitting the pk.
struct SkewedHello : Cmd {
  int64_t qid;
  int kind;
  explicit SkewedHello(const Model& m)
      : qid(PickLink(m, true)), kind(*rc::gen::inRange(0, 3)) {}
  void checkPreconditions(const Model& m) const override {
    RC_PRE(qid != kLmidQid && m.links.count(qid) > 0);
    for (const auto& f : m.gate.buffer()) RC_PRE(f.qid != qid);
  }
  void apply(Model& m) const override {
    Begin(m);
    NormalizedEvent ev;
    ev.type = NormalizedEvent::Type::kHello;
    if (kind == 0) ev.tables = {WireTable{"nope", {"id"}}};
    if (kind == 1) ev.tables = {WireTable{"draft", {"id", "text"}}};
    if (kind == 2) ev.tables = {WireTable{m.links.at(qid).table, {"title"}}};
    if (kind == 2 && m.links.at(qid).table == "counter") ev.tables[0].columns = {"n"};
    m.outbox.push_back(Action{false, qid, std::move(ev)});
    ++m.schema_rejections;
    m.links[qid].phase = Phase::kAwaitHello;  // refused epoch; re-subscribed
    ++m.registrations[qid];
  }
  void run(const Model& s0, Sut& sut) const override {
    Model s1 = nextState(s0);
    Deliver(s1, sut);
    CheckAll(s1, sut);
  }
  void show(std::ostream& os) const override {
    os << "SkewedHello(" << qid << ", kind " << kind << ")";
  }
};

struct DeliverBatch : Cmd {
  bool reject;
  explicit DeliverBatch(bool r = false) : reject(r) {}
  void checkPreconditions(const Model& m) const override {
    RC_PRE(m.sent.count(m.auth_lmid + 1) > 0);
  }
  void apply(Model& m) const override {
    Begin(m);
    ProcessNext(m, reject);
  }
  void run(const Model& s0, Sut& sut) const override {
    Model s1 = nextState(s0);
    Deliver(s1, sut);
    CheckAll(s1, sut);
  }
  void show(std::ostream& os) const override {
    os << (reject ? "ServerReject" : "DeliverBatch");
  }
};
struct ServerReject : DeliverBatch {
  ServerReject() : DeliverBatch(true) {}
};

struct OtherWrite : Cmd {
  std::string name;
  json args;
  OtherWrite() {
    name = *rc::gen::element<std::string>("upsertIssue", "delIssue", "setN");
    args = *GenArgs(name);
    args["title"] = "o-" + args.value("title", std::string("x"));
  }
  void apply(Model& m) const override {
    Begin(m);
    PlainStore st = StoreOf(m.auth);
    if (RunOn(st, name, args, false, nullptr).ok()) m.auth = st.tables();
    Commit(m);
  }
  void run(const Model& s0, Sut& sut) const override {
    Model s1 = nextState(s0);
    Deliver(s1, sut);
    CheckAll(s1, sut);
  }
  void show(std::ostream& os) const override {
    os << "OtherWrite(" << name << ", " << args << ")";
  }
};

struct Progress : Cmd {
  int64_t cv_min;
  explicit Progress(const Model& m) {
    cv_min = *rc::gen::weightedOneOf<int64_t>(
        {{3, rc::gen::just(m.cv)},
         {1, rc::gen::inRange<int64_t>(m.gate.applied_cv(), m.cv + 1)}});
  }
  void checkPreconditions(const Model& m) const override {
    RC_PRE(cv_min >= m.gate.applied_cv() && cv_min <= m.cv);
  }
  void apply(Model& m) const override {
    Begin(m);
    Release(m, cv_min);
  }
  void run(const Model& s0, Sut& sut) const override {
    Model s1 = nextState(s0);
    sut.catch_ups.clear();
    sut.source.Progress(cv_min);
    CheckAll(s1, sut);
    CheckCatchUps(s0, s1, sut);
  }
  void show(std::ostream& os) const override { os << "Progress(" << cv_min << ")"; }
};

struct Confirm : Cmd {
  void checkPreconditions(const Model& m) const override {
    RC_PRE(m.sent.count(m.auth_lmid + 1) > 0);
  }
  void apply(Model& m) const override {
    Begin(m);
    ProcessNext(m, false);
    Release(m, m.cv);
  }
  void run(const Model& s0, Sut& sut) const override {
    Model s1 = nextState(s0);
    Deliver(s1, sut);
    sut.catch_ups.clear();
    sut.source.Progress(s1.cv);
    CheckAll(s1, sut);
    CheckCatchUps(s0, s1, sut);
  }
  void show(std::ostream& os) const override { os << "Confirm"; }
};

struct Restart : Cmd {
  void apply(Model& m) const override {
    Begin(m);
    m.outbox.push_back(Action{true, 0, {}});
    m.gate.Reset();
    m.cv = 1;
    m.states = {{1, m.auth}};
    m.lmid_at = {{1, m.auth_lmid}};
    std::vector<int64_t> qids;
    for (const auto& [qid, l] : m.links) qids.push_back(qid);
    for (int64_t qid : qids) {
      if (m.links.count(qid) == 0) continue;
      SendHello(m, qid);
      SendSnapshot(m, qid);
    }
  }
  void run(const Model& s0, Sut& sut) const override {
    Model s1 = nextState(s0);
    Deliver(s1, sut);
    CheckAll(s1, sut);
  }
  void show(std::ostream& os) const override { os << "Restart"; }
};

struct OverflowCmd : Cmd {
  void checkPreconditions(const Model& m) const override {
    bool streaming = false;
    for (const auto& [qid, l] : m.links) {
      streaming = streaming || (qid != kLmidQid && l.phase == Phase::kStreaming);
    }
    RC_PRE(streaming);
  }
  void apply(Model& m) const override {
    Begin(m);
    const int64_t before = m.overflows;
    for (int i = 0; i < static_cast<int>(kCap) + 2 && m.overflows == before; ++i) {
      PlainStore st = StoreOf(m.auth);
      (void)RunOn(st, "upsertIssue", json{{"id", "o"}, {"title", "o" + std::to_string(m.cv)}},
                  false, nullptr);
      (void)RunOn(st, "setN", json{{"id", "o"}, {"n", m.cv}}, false, nullptr);
      m.auth = st.tables();
      Commit(m);
    }
  }
  void run(const Model& s0, Sut& sut) const override {
    Model s1 = nextState(s0);
    Deliver(s1, sut);
    CheckAll(s1, sut);
  }
  void show(std::ostream& os) const override { os << "Overflow"; }
};

struct Retain : Cmd {
  int64_t qid;
  std::string table;
  explicit Retain(const Model& m)
      : qid(m.next_qid), table(*rc::gen::element<std::string>("issue", "counter")) {}
  void checkPreconditions(const Model& m) const override {
    RC_PRE(qid >= m.next_qid);  // fresh, never a live retain or wire qid
  }
  void apply(Model& m) const override {
    Begin(m);
    m.next_qid = qid + 1;
    m.retains[qid] = table;
    if (!m.subs.Retain(table, qid)) return;  // joined the table's live sub
    m.links[qid] = Link{table};
    ++m.registrations[qid];
  }
  void run(const Model& s0, Sut& sut) const override {
    Model s1 = nextState(s0);
    std::optional<int64_t> local;
    if (table == "counter") local = kCounterQid;
    absl::Status s = sut.backend->RetainRemoteQuery(
        qid, RemoteQuery{RemoteNameFor(table), json::object()}, local);
    if (!s.ok()) RC_FAIL("RetainRemoteQuery: " + s.ToString());
    CheckAll(s1, sut);
  }
  void show(std::ostream& os) const override { os << "Retain(" << qid << ", " << table << ")"; }
};

struct ReleaseCmd : Cmd {
  int64_t qid = -1;
  explicit ReleaseCmd(const Model& m) {
    std::vector<int64_t> qids;
    for (const auto& [q, t] : m.retains) qids.push_back(q);
    if (!qids.empty()) qid = *rc::gen::elementOf(qids);
  }
  void checkPreconditions(const Model& m) const override { RC_PRE(m.retains.count(qid) > 0); }
  void apply(Model& m) const override {
    Begin(m);
    const std::string table = m.retains.at(qid);
    m.retains.erase(qid);
    const std::optional<int64_t> gone = m.subs.Release(qid);
    if (!gone) return;  // other retains keep the sub
    const int64_t sq = *gone;
    m.links.erase(sq);
    m.gate.Drop(sq);
    if (!m.synced.at(table).empty()) {
      Count("gc");
      m.synced[table].clear();  // GC'd as a server delta through the reconcile cycle
      Reconcile(m);
    }
  }
  void run(const Model& s0, Sut& sut) const override {
    Model s1 = nextState(s0);
    sut.backend->ReleaseRemoteQuery(qid);
    CheckAll(s1, sut);
  }
  void show(std::ostream& os) const override { os << "Release(" << qid << ")"; }
};

struct Resync : Cmd {
  void apply(Model& m) const override {
    Begin(m);
    std::vector<const Entry*> sent;
    for (const auto& e : m.pending) {
      if (e.mid) sent.push_back(&e);
    }
    std::sort(sent.begin(), sent.end(), [](const Entry* a, const Entry* b) { return *a->mid < *b->mid; });
    std::vector<MutationEnvelope> re;
    for (const Entry* e : sent) re.push_back(MutationEnvelope{kClient, *e->mid, e->name, e->args});
    m.pushed.insert(m.pushed.end(), re.begin(), re.end());
  }
  void run(const Model& s0, Sut& sut) const override {
    Model s1 = nextState(s0);
    sut.source.Resync();
    CheckAll(s1, sut);
  }
  void show(std::ostream& os) const override { os << "Resync"; }
};

// ---------------------------------------------------------------------------------------------

TEST(BackendStateMachine, MatchesTheAuthorityModel) {
  props::CheckGTestWithCount(
      [] {
        Sut sut;
        if (!sut.observer_errors.empty()) RC_FAIL(sut.observer_errors.front());
        const Model initial = InitialModel();
        CheckAll(initial, sut);
        rc::state::check(
            initial, sut,
            rc::state::gen::execOneOfWithArgs<
                Invoke, Invoke, Invoke, InvokeFolded, InvokeFolded, ClockTick, FlushOne,
                FlushAll, WriteLocal, DeliverHello, DeliverSnapshot, DeliverSnapshot, SkewedHello,
                DeliverBatch, DeliverBatch, ServerReject, OtherWrite, Progress, Progress, Confirm,
                Confirm, Restart, OverflowCmd, Retain, ReleaseCmd, Resync>());
      },
      kCases);
  if (std::getenv("RINDLE_STATE_STATS") != nullptr) {
    for (const auto& [k, v] : Stats()) std::cout << "  " << k << ": " << v << "\n";
  }
}

}  // namespace
}  // namespace rindle
