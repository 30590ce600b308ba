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
// Retain / Release (refcounted remote subs, last release GCs), Resync (re-send every sent,
// unconfirmed mid — dead ones too).
//
// The CHECK after every command: health ok; every view == FreshQuery over (released rows ⊕
// pending replayed in seq order, unflushed folds last in creation order; the local table's rows);
// head/sync rows == the model's; pending (name, args, mid, seq) == the model's, in creation order;
// OpenFolds(); inspect() (confirmedLmid, nextMid, appliedCv, bufferedFrames, pendingTables, no
// pending mid ≤ confirmedLmid, seq order == mid order); IsPending / GetResultType against their
// definitions and their observers (transitions only); the source's registrations and every
// pushed envelope (first sends gapless from 1, re-sends); overflows() / schema_rejections().
//
// Layout: optimistic/testing/state_fixture.h (constants, schema, mutators, views, ModelTx),
// state_model.h (the model and the wire), state_sut.h (the source, the backend and CheckAll);
// this file holds the commands and the test.
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

#include "optimistic/testing/state_sut.h"

namespace rindle::backend_state {
namespace {

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
    m.gate.Forget(sq);
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
  // §7.5 rule 3: every sent mid not yet confirmed, in mid order, as first pushed — a dead entry
  // (dropped by a failed re-invocation) included: the authority still waits for its mid.
  void apply(Model& m) const override {
    Begin(m);
    // A reconnect: the dead connection's buffered frames are dropped (gate.h DropConnection) and
    // every query is re-registered (source.h OnResync), so each link awaits its new hello.
    m.gate.DropAll();
    for (auto& [q, l] : m.links) l.phase = Phase::kAwaitHello;
    m.resync_since_fence = true;
    for (auto it = m.sent.upper_bound(m.watermark); it != m.sent.end(); ++it) {
      m.pushed.push_back(it->second);
    }
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
}  // namespace rindle::backend_state
