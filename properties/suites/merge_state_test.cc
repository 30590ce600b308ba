// merge_state_test.cc — a RapidCheck state-machine test (rc::state) of the engine Db's
// multi-source merge (seed 000 §merge) against the naive merge model (oracles/merge_model.h),
// 1000 command sequences (issue 14 "Done when").
//
// One tracked table t [id, status, n] with pks a..d, one live query over it (ordered by id),
// rooms room:doc:1 / room:doc:2 with scopes all / none / colEq(status = "open") /
// predicate(n > 2). Commands: AddRoom, RemoveRoom, Batch (a server batch of 0–3 valid deltas for
// one source, the pending txns re-invoked inside the cycle, sometimes a drop), Write (1–2 ops),
// HoldBack (the visible row, or a tombstone at an invisible pk; only when the model says it is
// inert), Drop, Freeze. After every command: the engine agrees with the model on whether the
// call failed; TableRows == the model's visible rows; ProvenanceOf and HeldBackState (every
// source ever attached) == the model's per pk; the folded view == the fresh query over the
// model; CommitTracked sources == the model's routes.
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include "base/check.h"
#include "engine/db.h"
#include "engine/ivm/view.h"
#include "engine/source_set.h"
#include "oracles/fresh_query.h"
#include "oracles/merge_model.h"
#include "properties/suites/rc_check.h"

namespace rindle::merge_state {
namespace {

constexpr int kCases = 1000;
const std::vector<std::string> kPks = {"a", "b", "c", "d"};
const std::vector<std::string> kRooms = {"room:doc:1", "room:doc:2"};

Schema TestSchema() {
  TableSpec t;
  t.columns = {{"id", ColumnType::kString, false},
               {"status", ColumnType::kString, false},
               {"n", ColumnType::kNumber, true}};
  t.primary_key = {0};
  return {{"t", t}};
}

struct Model {
  MergeModel merge{TestSchema(), {}};
  std::vector<std::vector<ModelOp>> pending;  // optimistic txns since the last rewind
};

struct Sut {
  Db db;
  Ast ast;
  std::unique_ptr<ResultView> view;
  std::set<std::string> sources_ever = {"daemon"};
  Sut() {
    RINDLE_CHECK(db.RegisterTable("t", TestSchema().at("t"), false).ok());
    ast.table = "t";
    ast.order_by = {{"id", false}};
    absl::StatusOr<QuerySnapshot> snap = db.RegisterQuery(1, ast);
    RINDLE_CHECK(snap.ok());
    view = std::make_unique<ResultView>(snap->shape);
    RINDLE_CHECK(view->Apply(snap->events).ok());
  }
  void Deliver(const std::vector<QueryBatch>& batches) {
    for (const QueryBatch& b : batches) {
      RC_ASSERT(b.query_id == 1);
      absl::Status s = view->Apply(b.events);
      if (!s.ok()) RC_FAIL("a delivered batch does not fold: " + std::string(s.message()));
    }
  }
};

RowValues Row(const std::string& id, const std::string& status, int n) {
  return {Value::String(id), Value::String(status), Value::Int(n)};
}
rc::Gen<RowValues> GenRow(const std::string& id) {
  return rc::gen::map(rc::gen::pair(rc::gen::element<std::string>("open", "done"),
                                    rc::gen::inRange(0, 5)),
                      [id](const std::pair<std::string, int>& p) { return Row(id, p.first, p.second); });
}
std::vector<std::string> Sources(const Model& m) {
  std::vector<std::string> out;
  for (const auto& [k, s] : m.merge.tables().at("t").sources) out.push_back(k);
  return out;
}
std::optional<RowValues> VisibleAt(const Model& m, const std::string& id) {
  PlainTable t = m.merge.VisibleTable("t");
  auto it = t.find({Value::String(id)});
  if (it == t.end()) return std::nullopt;
  return it->second;
}

void Agree(const absl::Status& engine, const absl::Status& model, const std::string& call) {
  if (engine.ok() != model.ok()) {
    RC_FAIL(call + ": engine " + (engine.ok() ? "accepted" : "refused: " + std::string(engine.message())) +
            ", model " + (model.ok() ? "accepts" : "refuses: " + std::string(model.message())));
  }
}

absl::Status EngineWrite(Sut& sut, const std::vector<ModelOp>& ops, std::vector<std::string>* routes) {
  std::unique_ptr<WriteTxn> txn = sut.db.Write();
  for (const ModelOp& op : ops) {
    absl::Status s = op.kind == ModelOp::Kind::kAdd      ? txn->Add(op.table, op.row)
                     : op.kind == ModelOp::Kind::kRemove ? txn->Remove(op.table, op.row)
                                                         : txn->Edit(op.table, op.old_row, op.row);
    if (!s.ok()) return s;
  }
  absl::StatusOr<CommitTracked> c = txn->CommitTrackedWrites();
  if (!c.ok()) return c.status();
  *routes = c->sources;
  sut.Deliver(c->batches);
  return absl::OkStatus();
}

// Every probe against the model.
void CheckAll(const Model& m, Sut& sut) {
  absl::StatusOr<std::vector<RowValues>> rows = sut.db.TableRows("t");
  RC_ASSERT(rows.ok());
  std::vector<RowValues> want;
  for (const auto& [pk, row] : m.merge.VisibleTable("t")) want.push_back(row);
  RC_ASSERT(*rows == want);
  PlainTables visible = m.merge.Visible();
  absl::StatusOr<std::vector<TreeNode>> fresh = FreshQuery(sut.ast, visible, TestSchema());
  RC_ASSERT(fresh.ok());
  RC_ASSERT(TreesEqual(*fresh, sut.view->Tree()));
  for (const std::string& id : kPks) {
    const RowValues probe = Row(id, "open", 0);
    absl::StatusOr<std::optional<std::string>> p = sut.db.ProvenanceOf("t", probe);
    RC_ASSERT(p.ok());
    RC_ASSERT(*p == *m.merge.ProvenanceOf("t", probe));
    for (const std::string& source : sut.sources_ever) {
      absl::StatusOr<std::optional<HeldBackInfo>> got = sut.db.HeldBackState("t", source, probe);
      absl::StatusOr<std::optional<ModelHeldBackInfo>> exp = m.merge.HeldBackState("t", source, probe);
      RC_ASSERT(got.ok() == exp.ok());
      if (!got.ok()) continue;
      RC_ASSERT(got->has_value() == exp->has_value());
      if (got->has_value()) {
        RC_ASSERT((*got)->absent == (*exp)->absent);
        RC_ASSERT((*got)->baseline == (*exp)->baseline);
      }
    }
  }
}

using Cmd = rc::state::Command<Model, Sut>;

struct AddRoom : Cmd {
  std::string room;
  ModelScope scope;
  explicit AddRoom(const Model&) {
    room = *rc::gen::elementOf(kRooms);
    const int kind = *rc::gen::inRange(0, 4);
    scope.kind = static_cast<ModelScope::Kind>(kind);
    if (scope.kind == ModelScope::Kind::kColEq) {
      scope.col = 1;
      scope.value = Value::String("open");
    }
    if (scope.kind == ModelScope::Kind::kPredicate) {
      Condition c;
      c.type = Condition::Type::kSimple;
      c.op = SimpleOp::kGt;
      c.left.kind = ValuePosition::Kind::kColumn;
      c.left.column = "n";
      c.right.literal = Value::Int(2);
      scope.where = c;
    }
  }
  static WritableScope ToScope(const ModelScope& s) {
    WritableScope w;
    w.kind = static_cast<WritableScope::Kind>(static_cast<int>(s.kind));
    w.col = s.col;
    w.value = s.value;
    w.where = s.where;
    return w;
  }
  void apply(Model& m) const override { (void)m.merge.AddRoomSource("t", room, scope); }
  void run(const Model& m, Sut& sut) const override {
    Model copy = m;
    absl::Status model = copy.merge.AddRoomSource("t", room, scope);
    absl::Status engine = sut.db.AddRoomSource("t", room, ToScope(scope));
    Agree(engine, model, "AddRoomSource " + room);
    sut.sources_ever.insert(room);
    CheckAll(copy, sut);
  }
  void show(std::ostream& os) const override {
    os << "AddRoom(" << room << ", kind " << static_cast<int>(scope.kind) << ")";
  }
};

struct RemoveRoom : Cmd {
  std::string room;
  explicit RemoveRoom(const Model&) { room = *rc::gen::elementOf(kRooms); }
  void apply(Model& m) const override { (void)m.merge.RemoveRoomSource("t", room); }
  void run(const Model& m, Sut& sut) const override {
    Model copy = m;
    absl::Status model = copy.merge.RemoveRoomSource("t", room);
    absl::StatusOr<std::vector<QueryBatch>> engine = sut.db.RemoveRoomSource("t", room);
    Agree(engine.status(), model, "RemoveRoomSource " + room);
    if (engine.ok()) sut.Deliver(*engine);
    CheckAll(copy, sut);
  }
  void show(std::ostream& os) const override { os << "RemoveRoom(" << room << ")"; }
};

struct Write : Cmd {
  std::vector<ModelOp> ops;
  explicit Write(const Model& m) {
    std::vector<std::string> ids = *rc::gen::unique<std::vector<std::string>>(
        *rc::gen::inRange<size_t>(1, 3), rc::gen::elementOf(kPks));
    for (const std::string& id : ids) {
      std::optional<RowValues> cur = VisibleAt(m, id);
      if (!cur) {
        ops.push_back({"t", ModelOp::Kind::kAdd, *GenRow(id), {}});
      } else if (*rc::gen::inRange(0, 3) == 0) {
        ops.push_back({"t", ModelOp::Kind::kRemove, *cur, {}});
      } else {
        ops.push_back({"t", ModelOp::Kind::kEdit, *GenRow(id), *cur});
      }
    }
  }
  void apply(Model& m) const override {
    if (m.merge.Commit(ops).ok()) m.pending.push_back(ops);
  }
  void run(const Model& m, Sut& sut) const override {
    Model copy = m;
    absl::StatusOr<std::vector<std::string>> model = copy.merge.Commit(ops);
    std::vector<std::string> routes;
    absl::Status engine = EngineWrite(sut, ops, &routes);
    Agree(engine, model.status(), "write");
    if (engine.ok()) RC_ASSERT(routes == *model);
    CheckAll(copy, sut);
  }
  void show(std::ostream& os) const override {
    os << "Write(";
    for (const ModelOp& op : ops) os << static_cast<int>(op.kind) << ":" << RowDebugString(op.row) << " ";
    os << ")";
  }
};

struct Batch : Cmd {
  std::string source;
  std::vector<ModelOp> deltas;
  std::optional<std::string> drop_pk;
  explicit Batch(const Model& m) {
    source = *rc::gen::elementOf(Sources(m));
    const MergeModel::Source& s = m.merge.tables().at("t").sources.at(source);
    std::vector<std::string> ids = *rc::gen::unique<std::vector<std::string>>(
        *rc::gen::inRange<size_t>(0, 4), rc::gen::elementOf(kPks));
    for (const std::string& id : ids) {
      auto b = s.baseline.find({Value::String(id)});
      if (b == s.baseline.end()) {
        deltas.push_back({"t", ModelOp::Kind::kAdd, *GenRow(id), {}});
      } else if (*rc::gen::inRange(0, 3) == 0) {
        deltas.push_back({"t", ModelOp::Kind::kRemove, b->second, {}});
      } else {
        deltas.push_back({"t", ModelOp::Kind::kEdit, *GenRow(id), b->second});
      }
    }
    if (!s.held.empty() && *rc::gen::inRange(0, 3) == 0) drop_pk = s.held.begin()->first[0].as_string();
  }
  void apply(Model& m) const override {
    if (!m.merge.ServerBatchBegin(source, deltas).ok()) return;
    std::vector<std::vector<ModelOp>> pending = std::move(m.pending);
    m.pending.clear();
    for (const auto& txn : pending) {
      if (m.merge.Commit(txn).ok()) m.pending.push_back(txn);
    }
    if (drop_pk) (void)m.merge.DropHeldBack("t", source, Row(*drop_pk, "open", 0));
  }
  void run(const Model& m, Sut& sut) const override {
    Model copy = m;
    std::vector<ServerDeltaOp> ops;
    for (const ModelOp& d : deltas) {
      ServerDeltaOp op;
      op.table = d.table;
      op.type = static_cast<ServerDeltaOp::Type>(static_cast<int>(d.kind));
      op.row = d.row;
      op.old_row = d.old_row;
      ops.push_back(op);
    }
    absl::Status model = copy.merge.ServerBatchBegin(source, deltas);
    absl::Status engine = sut.db.ServerBatchBegin(source, ops);
    Agree(engine, model, "ServerBatchBegin " + source);
    if (!engine.ok()) return;
    std::vector<std::vector<ModelOp>> pending = std::move(copy.pending);
    for (const auto& txn : pending) {
      absl::StatusOr<std::vector<std::string>> mr = copy.merge.Commit(txn);
      std::vector<std::string> routes;
      Agree(EngineWrite(sut, txn, &routes), mr.status(), "re-invoked write");
      if (mr.ok()) RC_ASSERT(routes == *mr);
    }
    if (drop_pk) {
      const RowValues probe = Row(*drop_pk, "open", 0);
      absl::StatusOr<std::vector<QueryBatch>> e = sut.db.DropHeldBack("t", source, probe);
      Agree(e.status(), copy.merge.DropHeldBack("t", source, probe).status(), "drop in cycle");
      if (e.ok()) RC_ASSERT(e->empty());
    }
    absl::StatusOr<std::vector<QueryBatch>> end = sut.db.ServerBatchEnd();
    RC_ASSERT(end.ok());
    sut.Deliver(*end);
    CheckAll(copy, sut);
  }
  void show(std::ostream& os) const override {
    os << "Batch(" << source << ", ";
    for (const ModelOp& d : deltas) os << static_cast<int>(d.kind) << ":" << RowDebugString(d.row) << " ";
    os << (drop_pk ? ", drop " + *drop_pk : "") << ")";
  }
};

struct Park : Cmd {
  std::string source;
  RowValues row;
  bool absent = false;
  explicit Park(const Model& m) {
    source = *rc::gen::elementOf(Sources(m));
    const std::string id = *rc::gen::elementOf(kPks);
    std::optional<RowValues> cur = VisibleAt(m, id);
    absent = !cur.has_value();
    row = cur.value_or(*GenRow(id));
  }
  bool Inert(const Model& m) const {
    return !m.merge.HoldBackChangesVisible("t", source, row, absent);
  }
  void apply(Model& m) const override {
    if (!Inert(m)) return;
    (void)(absent ? m.merge.HoldBackAbsent("t", source, row) : m.merge.HoldBack("t", source, row));
  }
  void run(const Model& m, Sut& sut) const override {
    if (!Inert(m)) return;
    Model copy = m;
    absl::Status model = absent ? copy.merge.HoldBackAbsent("t", source, row)
                                : copy.merge.HoldBack("t", source, row);
    absl::Status engine = absent ? sut.db.HoldBackAbsent("t", source, row)
                                 : sut.db.HoldBack("t", source, row);
    Agree(engine, model, absent ? "HoldBackAbsent" : "HoldBack");
    CheckAll(copy, sut);
  }
  void show(std::ostream& os) const override {
    os << (absent ? "HoldBackAbsent(" : "HoldBack(") << source << ", " << RowDebugString(row) << ")";
  }
};

struct Drop : Cmd {
  std::string source;
  std::string id;
  explicit Drop(const Model& m) {
    source = *rc::gen::elementOf(Sources(m));
    id = *rc::gen::elementOf(kPks);
  }
  void apply(Model& m) const override { (void)m.merge.DropHeldBack("t", source, Row(id, "open", 0)); }
  void run(const Model& m, Sut& sut) const override {
    Model copy = m;
    const RowValues probe = Row(id, "open", 0);
    absl::Status model = copy.merge.DropHeldBack("t", source, probe).status();
    absl::StatusOr<std::vector<QueryBatch>> engine = sut.db.DropHeldBack("t", source, probe);
    Agree(engine.status(), model, "DropHeldBack");
    if (engine.ok()) sut.Deliver(*engine);
    CheckAll(copy, sut);
  }
  void show(std::ostream& os) const override { os << "Drop(" << source << ", " << id << ")"; }
};

struct Freeze : Cmd {
  std::string source;
  explicit Freeze(const Model& m) { source = *rc::gen::elementOf(Sources(m)); }
  void apply(Model& m) const override { (void)m.merge.FreezeSource("t", source); }
  void run(const Model& m, Sut& sut) const override {
    Model copy = m;
    absl::Status model = copy.merge.FreezeSource("t", source);
    absl::StatusOr<std::vector<QueryBatch>> engine = sut.db.FreezeSource("t", source);
    Agree(engine.status(), model, "FreezeSource");
    if (engine.ok()) sut.Deliver(*engine);
    CheckAll(copy, sut);
  }
  void show(std::ostream& os) const override { os << "Freeze(" << source << ")"; }
};

TEST(MergeStateMachine, MatchesTheMergeModel) {
  props::CheckGTestWithCount(
      [] {
        Sut sut;
        Model initial;
        rc::state::check(initial, sut,
                         rc::state::gen::execOneOfWithArgs<AddRoom, AddRoom, RemoveRoom, Write,
                                                           Write, Write, Batch, Batch, Batch, Park,
                                                           Park, Drop, Freeze>());
      },
      kCases);
}

}  // namespace
}  // namespace rindle::merge_state
