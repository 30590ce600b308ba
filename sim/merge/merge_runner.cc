// merge_runner.cc — the `--target merge` run loop (merge_runner.h).
#include "sim/merge/merge_runner.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/source_key.h"
#include "base/str_util.h"
#include "engine/ast_json.h"
#include "engine/db.h"
#include "engine/ivm/view.h"
#include "engine/source_set.h"
#include "properties/merge_world.h"
#include "sim/merge/merge_generator.h"
#include "sim/run/trace_hash.h"
#include "sim/workload/schema.h"

namespace rindle::sim {
namespace {

using Op = MergeAction::Op;

ServerDeltaOp ToDelta(const ModelOp& op) {
  ServerDeltaOp d;
  d.table = op.table;
  d.type = op.kind == ModelOp::Kind::kAdd      ? ServerDeltaOp::Type::kAdd
           : op.kind == ModelOp::Kind::kRemove ? ServerDeltaOp::Type::kRemove
                                               : ServerDeltaOp::Type::kEdit;
  d.row = op.row;
  d.old_row = op.old_row;
  return d;
}

WritableScope ToScope(const ModelScope& s) {
  WritableScope w;
  w.kind = s.kind == ModelScope::Kind::kAll     ? WritableScope::Kind::kAll
           : s.kind == ModelScope::Kind::kNone  ? WritableScope::Kind::kNone
           : s.kind == ModelScope::Kind::kColEq ? WritableScope::Kind::kColEq
                                                : WritableScope::Kind::kPredicate;
  w.col = s.col;
  w.value = s.value;
  w.where = s.where;
  return w;
}

// A failure of the run.
struct Failure {
  std::string property;
  std::string message;
};

class MergeRun {
 public:
  MergeRun(Schema schema, std::set<std::string> locals)
      : schema_(std::move(schema)), locals_(std::move(locals)), model_(schema_, locals_) {}

  std::optional<Failure> Setup() {
    for (const auto& [name, spec] : schema_) {
      if (absl::Status s = db_.RegisterTable(name, spec, locals_.count(name) > 0); !s.ok()) {
        return Failure{"merge-setup", StrCat("RegisterTable ", name, ": ", s.message())};
      }
    }
    sources_ever_.insert(std::string(kDaemonSource));
    return std::nullopt;
  }

  // Runs one top-level action and then every property.
  std::optional<Failure> Step(const MergeAction& a) {
    step_ = props::MergeStepRecord{};
    if (std::optional<Failure> f = Execute(a)) return f;
    if (poisoned_) return std::nullopt;
    props::MergeWorld w;
    w.db = &db_;
    w.model = &model_;
    w.schema = &schema_;
    w.sources_ever = sources_ever_;
    w.step = step_;
    for (const auto& [qid, v] : views_) w.views.push_back({qid, &v.ast, v.folded});
    if (std::optional<props::MergeViolation> v = props::CheckMerge(w, &counters_)) {
      return Failure{v->property, v->message};
    }
    HashStep();
    return std::nullopt;
  }

  bool poisoned() const { return poisoned_; }
  std::map<std::string, int64_t>& counters() { return counters_; }
  std::string Digest() const { return hasher_.Hex(); }

 private:
  struct LiveView {
    Ast ast;
    std::unique_ptr<ResultView> view;
    std::vector<TreeNode> folded;
  };

  void Count(const std::string& name, int64_t n = 1) { counters_[name] += n; }

  void HashStep() {
    hasher_.Tag('s');
    for (const auto& [qid, v] : views_) {
      hasher_.Int(qid);
      hasher_.Tree(v.folded);
    }
    for (const auto& [name, spec] : schema_) {
      absl::StatusOr<std::vector<RowValues>> rows = db_.TableRows(name);
      hasher_.Int(rows.ok() ? static_cast<int64_t>(rows->size()) : -1);
    }
  }

  // Folds delivered batches into the harness's views.
  void Deliver(const std::vector<QueryBatch>& batches) {
    for (const QueryBatch& b : batches) {
      Count("merge.batches");
      Count("merge.events", static_cast<int64_t>(b.events.size()));
      auto it = views_.find(b.query_id);
      if (it == views_.end()) {
        step_.fold_error = StrCat("a batch for query ", b.query_id, " that is not live");
        continue;
      }
      if (absl::Status s = it->second.view->Apply(b.events); !s.ok() && step_.fold_error.empty()) {
        step_.fold_error = StrCat("query ", b.query_id, ": a delivered event does not fold: ",
                                  s.message());
      }
      it->second.folded = it->second.view->Tree();
    }
  }

  // Compares whether the engine and the model refused; counts the error path.
  std::optional<Failure> Agree(const MergeAction& a, const std::string& call,
                               const absl::Status& engine, const absl::Status& model) {
    if (engine.ok() != model.ok()) {
      return Failure{"merge-error",
                     engine.ok() ? StrCat(call, ": the engine accepted what the model refuses (",
                                          model.message(), ")")
                                 : StrCat(call, ": the engine refused what the model accepts (",
                                          engine.message(), ")")};
    }
    if (!a.error.empty()) Count(StrCat(engine.ok() ? "merge.error_missed." : "merge.error.", a.error));
    if (engine.ok()) Count(StrCat("merge.", MergeOpName(a.op)));
    return std::nullopt;
  }

  std::string CallText(const MergeAction& a) const {
    return StrCat(MergeOpName(a.op), "(", a.table, ", ", a.source,
                  a.row.empty() ? "" : ", " + RowDebugString(a.row), ")");
  }

  std::optional<Failure> Execute(const MergeAction& a);
  std::optional<Failure> Query(const MergeAction& a);
  std::optional<Failure> ServerBatch(const MergeAction& a);
  std::optional<Failure> Write(const MergeAction& a, bool in_cycle);
  std::optional<Failure> HoldBack(const MergeAction& a);
  std::optional<Failure> Drop(const MergeAction& a, bool in_cycle);
  std::optional<Failure> Probe(const MergeAction& a);
  std::optional<Failure> WithBatches(const MergeAction& a,
                                     absl::StatusOr<std::vector<QueryBatch>> engine,
                                     const absl::Status& model);
  void CountFences(const MergeModel& before);

  Schema schema_;
  std::set<std::string> locals_;
  Db db_;
  MergeModel model_;
  std::map<int64_t, LiveView> views_;
  std::set<std::string> sources_ever_;
  props::MergeStepRecord step_;
  std::map<std::string, int64_t> counters_;
  RowHasher hasher_;
  bool poisoned_ = false;
};

std::optional<Failure> MergeRun::Execute(const MergeAction& a) {
  switch (a.op) {
    case Op::kQuery: return Query(a);
    case Op::kAddRoom: {
      absl::Status e = db_.AddRoomSource(a.table, a.source, ToScope(a.scope));
      absl::Status m = model_.AddRoomSource(a.table, a.source, a.scope);
      if (e.ok()) sources_ever_.insert(a.source);
      return Agree(a, CallText(a), e, m);
    }
    case Op::kRemoveRoom:
      return WithBatches(a, db_.RemoveRoomSource(a.table, a.source),
                         model_.RemoveRoomSource(a.table, a.source));
    case Op::kServerBatch: return ServerBatch(a);
    case Op::kWrite: return Write(a, /*in_cycle=*/false);
    case Op::kHoldBack:
    case Op::kHoldBackAbsent: return HoldBack(a);
    case Op::kDrop: return Drop(a, /*in_cycle=*/false);
    case Op::kFreeze:
      return WithBatches(a, db_.FreezeSource(a.table, a.source),
                         model_.FreezeSource(a.table, a.source));
    case Op::kWritableMatches:
    case Op::kProvenance: return Probe(a);
  }
  return std::nullopt;
}

std::optional<Failure> MergeRun::WithBatches(const MergeAction& a,
                                             absl::StatusOr<std::vector<QueryBatch>> engine,
                                             const absl::Status& model) {
  if (std::optional<Failure> f = Agree(a, CallText(a), engine.status(), model)) return f;
  if (engine.ok()) Deliver(*engine);
  return std::nullopt;
}

std::optional<Failure> MergeRun::Query(const MergeAction& a) {
  absl::StatusOr<Ast> ast = ParseAst(a.ast);
  if (!ast.ok()) return Failure{"merge-setup", StrCat("query ", a.qid, ": ", ast.status().message())};
  absl::StatusOr<QuerySnapshot> snap = db_.RegisterQuery(a.qid, *ast);
  if (!snap.ok()) {
    return Failure{"merge-setup", StrCat("RegisterQuery ", a.qid, ": ", snap.status().message())};
  }
  LiveView v{*ast, std::make_unique<ResultView>(snap->shape), {}};
  if (absl::Status s = v.view->Apply(snap->events); !s.ok()) {
    step_.fold_error = StrCat("query ", a.qid, ": the snapshot does not fold: ", s.message());
  }
  v.folded = v.view->Tree();
  views_[a.qid] = std::move(v);
  Count("merge.query");
  return std::nullopt;
}

void MergeRun::CountFences(const MergeModel& before) {
  for (const auto& [table, t] : before.tables()) {
    const auto& after_sources = model_.tables().at(table).sources;
    for (const auto& [key, s] : t.sources) {
      auto it = after_sources.find(key);
      for (const auto& [pk, held] : s.held) {
        if (it != after_sources.end() && it->second.held.count(pk)) continue;
        Count(held.has_value() ? "merge.fence.row" : "merge.fence.tombstone");
      }
    }
  }
}

std::optional<Failure> MergeRun::ServerBatch(const MergeAction& a) {
  std::vector<ServerDeltaOp> deltas;
  for (const ModelOp& op : a.ops) deltas.push_back(ToDelta(op));
  const MergeModel before = model_;
  absl::Status e = db_.ServerBatchBegin(a.source, deltas);
  absl::Status m = model_.ServerBatchBegin(a.source, a.ops);
  if (std::optional<Failure> f = Agree(a, CallText(a), e, m)) return f;
  if (!e.ok()) {
    if (db_.poisoned()) {
      Count("merge.poisoned");
      if (db_.ServerBatchBegin(kDaemonSource, {}).ok()) {
        return Failure{"merge-error", "a poisoned Db accepted ServerBatchBegin"};
      }
      poisoned_ = true;
    }
    return std::nullopt;
  }
  Count(IsDaemonSource(a.source) ? "merge.server_batch.daemon" : "merge.server_batch.room");
  CountFences(before);
  for (const MergeAction& in : a.inside) {
    std::optional<Failure> f = in.op == Op::kWrite ? Write(in, true) : Drop(in, true);
    if (f) return f;
  }
  absl::StatusOr<std::vector<QueryBatch>> end = db_.ServerBatchEnd();
  if (!end.ok()) return Failure{"merge-error", StrCat("ServerBatchEnd: ", end.status().message())};
  Deliver(*end);
  return std::nullopt;
}

std::optional<Failure> MergeRun::Write(const MergeAction& a, bool in_cycle) {
  std::unique_ptr<WriteTxn> txn = db_.Write();
  absl::Status e = absl::OkStatus();
  for (const ModelOp& op : a.ops) {
    if (op.kind == ModelOp::Kind::kAdd) e = txn->Add(op.table, op.row);
    else if (op.kind == ModelOp::Kind::kRemove) e = txn->Remove(op.table, op.row);
    else e = txn->Edit(op.table, op.old_row, op.row);
    if (!e.ok()) break;
  }
  absl::StatusOr<CommitTracked> committed = absl::UnknownError("not committed");
  if (e.ok()) {
    committed = txn->CommitTrackedWrites();
    e = committed.status();
  }
  absl::StatusOr<std::vector<std::string>> m = model_.Commit(a.ops);
  if (in_cycle) Count(m.ok() ? "merge.reinvoke" : "merge.reinvoke.failed");
  if (!m.ok() && a.error.empty() && !in_cycle) Count("merge.write.failed");
  if (std::optional<Failure> f = Agree(a, StrCat("write of ", a.ops.size(), " ops"), e,
                                       m.status())) {
    return f;
  }
  if (!committed.ok()) return std::nullopt;
  step_.engine_routes.push_back(committed->sources);
  step_.model_routes.push_back(*m);
  Deliver(committed->batches);
  if (in_cycle && !committed->batches.empty()) {
    step_.fold_error = "a write inside a server batch delivered batches before ServerBatchEnd";
  }
  return std::nullopt;
}

std::optional<Failure> MergeRun::HoldBack(const MergeAction& a) {
  const bool absent = a.op == Op::kHoldBackAbsent;
  if (model_.HoldBackChangesVisible(a.table, a.source, a.row, absent)) {
    Count("merge.skip.non_inert");
    return std::nullopt;
  }
  absl::Status e = absent ? db_.HoldBackAbsent(a.table, a.source, a.row)
                          : db_.HoldBack(a.table, a.source, a.row);
  absl::Status m = absent ? model_.HoldBackAbsent(a.table, a.source, a.row)
                          : model_.HoldBack(a.table, a.source, a.row);
  return Agree(a, CallText(a), e, m);
}

std::optional<Failure> MergeRun::Drop(const MergeAction& a, bool in_cycle) {
  absl::StatusOr<std::vector<QueryBatch>> e = db_.DropHeldBack(a.table, a.source, a.row);
  absl::StatusOr<bool> m = model_.DropHeldBack(a.table, a.source, a.row);
  if (std::optional<Failure> f = Agree(a, CallText(a), e.status(), m.status())) return f;
  if (!e.ok()) return std::nullopt;
  if (!*m) Count("merge.drop.noop");
  if (in_cycle) Count("merge.drop.in_cycle");
  if (in_cycle && !e->empty()) {
    step_.fold_error = "DropHeldBack inside a server batch delivered batches before ServerBatchEnd";
  }
  Deliver(*e);
  return std::nullopt;
}

std::optional<Failure> MergeRun::Probe(const MergeAction& a) {
  if (a.op == Op::kWritableMatches) {
    absl::StatusOr<bool> e = db_.WritableMatches(a.table, a.source, a.row);
    absl::StatusOr<bool> m = model_.WritableMatches(a.table, a.source, a.row);
    if (std::optional<Failure> f = Agree(a, CallText(a), e.status(), m.status())) return f;
    if (e.ok() && *e != *m) {
      return Failure{"merge-writable", StrCat(CallText(a), ": expected ", *m ? "true" : "false")};
    }
    return std::nullopt;
  }
  absl::StatusOr<std::optional<std::string>> e = db_.ProvenanceOf(a.table, a.row);
  absl::StatusOr<std::optional<std::string>> m = model_.ProvenanceOf(a.table, a.row);
  if (std::optional<Failure> f = Agree(a, CallText(a), e.status(), m.status())) return f;
  if (e.ok() && *e != *m) {
    return Failure{"merge-provenance", StrCat(CallText(a), ": expected ", m->value_or("(none)"),
                                              ", engine says ", e->value_or("(none)"))};
  }
  return std::nullopt;
}

RunResult Fail(RunResult r, int64_t step, Failure f) {
  r.ok = false;
  r.step = step;
  r.property = std::move(f.property);
  r.message = std::move(f.message);
  return r;
}

}  // namespace

RunResult RunMergeScenario(const MergeScenario& scenario, const RunOptions& options) {
  RunResult result;
  result.seed = scenario.seed;
  absl::StatusOr<Schema> app = LoadAppSchema();
  if (!app.ok()) return Fail(result, 0, {"merge-setup", std::string(app.status().message())});
  Schema schema = *app;
  for (const auto& [name, spec] : LocalTableSpecs()) schema[name] = spec;
  MergeRun run(schema, LocalTableNames());
  if (std::optional<Failure> f = run.Setup()) return Fail(result, 0, *f);
  int64_t limit = static_cast<int64_t>(scenario.actions.size());
  if (options.max_steps > 0 && options.max_steps < limit) limit = options.max_steps;
  for (int64_t i = 0; i < limit && !run.poisoned(); ++i) {
    if (options.progress != nullptr) options.progress->store(i + 1);
    std::optional<Failure> f = run.Step(scenario.actions[static_cast<size_t>(i)]);
    result.steps = i + 1;
    if (f) {
      result.counters = run.counters();
      result.digest = run.Digest();
      return Fail(result, i + 1, *f);
    }
  }
  result.counters = run.counters();
  result.digest = run.Digest();
  return result;
}

RunResult RunMergeSeed(const RunOptions& options) {
  return RunMergeScenario(GenerateMergeScenario(options.seed), options);
}

}  // namespace rindle::sim
