// merge_world.h — what the `--target merge` properties read (issue 14): the engine Db under test,
// the naive merge model (oracles/merge_model.h) the harness drove in lockstep, the live views as
// the harness folded them from the delivered batches, and what the harness issued this step.
// Read-only view types; no state of their own beyond the step record.
//
// The rule: every expectation comes from the model or from the harness's record, never from the
// engine's self-report; the engine's answers (TableRows, QueryResult, ProvenanceOf,
// HeldBackState, WritableMatches, CommitTracked sources) are only ever checked AGAINST them.
//
// Properties (CheckMerge runs them in this order; the first violation is reported):
//   merge-fold          every delivered batch folded into the previous view (the harness's fold
//                       error), and the folded view == the engine's materialization
//                       (Db::QueryResult: the events and the state agree)
//   merge-fence         a parked row (model) with no optimistic write over it stays visible in
//                       the engine; a tombstoned pk (model) is never served by that source
//   merge-view==fresh   every live folded view == FreshQuery(ast) over the MODEL's visible rows
//   merge-rows          Db::TableRows(t) == the model's visible rows, every table
//   merge-provenance    Db::ProvenanceOf == the model's winner, every known pk
//   merge-held-back     Db::HeldBackState == the model's, every (table, source ever attached, pk)
//   merge-routing       the CommitTracked sources of this step's txns == the model's routes
//   merge-writable      Db::WritableMatches == the model's scope, every room × known row
//   merge-source-rows   Db::SourceRows(t, s) == the model's baseline of s, every Merged table
// (merge-error — engine and model disagree on whether a call fails — is the runner's.)
// Source: seed 000 §merge doc comments; issue 14 "After every step".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/ast.h"
#include "engine/change.h"
#include "engine/db.h"
#include "engine/schema.h"
#include "oracles/merge_model.h"

namespace rindle::props {

struct MergeLiveView {
  int64_t qid = 0;
  const Ast* ast = nullptr;
  std::vector<TreeNode> folded;  // snapshot + every delivered batch, folded by the harness
};

struct MergeStepRecord {
  std::string fold_error;  // non-empty: a delivered batch did not fold into its view
  // Per optimistic txn committed this step: the engine's CommitTracked sources and the model's.
  std::vector<std::vector<std::string>> engine_routes, model_routes;
};

struct MergeWorld {
  Db* db = nullptr;
  const MergeModel* model = nullptr;
  const Schema* schema = nullptr;
  std::vector<MergeLiveView> views;
  std::set<std::string> sources_ever;  // every source key the harness attached (removed too)
  MergeStepRecord step;
};

struct MergeViolation {
  std::string property;
  std::string message;
};

// The property names above, in check order.
const std::vector<std::string>& MergePropertyNames();

// Runs every property; counts check.<property>.checked per property run (the campaign's
// health table reads that key).
std::optional<MergeViolation> CheckMerge(const MergeWorld& w,
                                         std::map<std::string, int64_t>* counters);

// The families (merge_views.cc, merge_probes.cc).
std::optional<MergeViolation> CheckMergeFold(const MergeWorld& w);
std::optional<MergeViolation> CheckMergeFence(const MergeWorld& w);
std::optional<MergeViolation> CheckMergeViewFresh(const MergeWorld& w);
std::optional<MergeViolation> CheckMergeRows(const MergeWorld& w);
std::optional<MergeViolation> CheckMergeProvenance(const MergeWorld& w);
std::optional<MergeViolation> CheckMergeHeldBack(const MergeWorld& w);
std::optional<MergeViolation> CheckMergeRouting(const MergeWorld& w);
std::optional<MergeViolation> CheckMergeWritable(const MergeWorld& w);
std::optional<MergeViolation> CheckMergeSourceRows(const MergeWorld& w);

// A full-width row at `pk` to probe with: the model's visible row, else any source's copy;
// nullopt when the model has no row for the pk (a tombstone alone).
std::optional<RowValues> MergeProbeRow(const MergeModel& m, const std::string& table,
                                       const RowValues& pk);

}  // namespace rindle::props
