// merge_views.cc — merge-fold, merge-fence, merge-view==fresh and merge-rows (merge_world.h):
// what a reader of the merged tables sees, against the model's visible rows.
#include <string>

#include "base/str_util.h"
#include "oracles/fresh_query.h"
#include "oracles/tree_diff.h"
#include "properties/merge_world.h"

namespace rindle::props {
namespace {

std::string PkText(const RowValues& pk) { return RowDebugString(pk); }

// The engine's row at pk of `table` (head), or nullopt.
std::optional<RowValues> EngineRow(const MergeWorld& w, const std::string& table,
                                   const RowValues& pk) {
  absl::StatusOr<std::optional<RowValues>> row = w.db->Get(table, pk);
  if (!row.ok()) return std::nullopt;
  return *row;
}

}  // namespace

std::optional<MergeViolation> CheckMergeFold(const MergeWorld& w) {
  if (!w.step.fold_error.empty()) return MergeViolation{"merge-fold", w.step.fold_error};
  for (const MergeLiveView& v : w.views) {
    absl::StatusOr<std::vector<TreeNode>> mat = w.db->QueryResult(v.qid);
    if (!mat.ok()) {
      return MergeViolation{"merge-fold", StrCat("query ", v.qid, ": QueryResult failed: ",
                                                 mat.status().message())};
    }
    if (!TreesEqual(*mat, v.folded)) {
      return MergeViolation{"merge-fold",
                            StrCat("query ", v.qid, ": folded events != materialization: ",
                                   TreeDiff(*mat, v.folded, *v.ast, *w.schema))};
    }
  }
  return std::nullopt;
}

std::optional<MergeViolation> CheckMergeFence(const MergeWorld& w) {
  for (const auto& [table, t] : w.model->tables()) {
    for (const auto& [key, s] : t.sources) {
      for (const auto& [pk, held] : s.held) {
        if (t.optimistic.count(pk)) continue;  // an optimistic write sits over the parked row
        if (held.has_value() && !EngineRow(w, table, pk).has_value()) {
          return MergeViolation{"merge-fence",
                                StrCat(table, "[", PkText(pk), "]: row parked on ", key,
                                       " disappeared before its fence")};
        }
        if (held.has_value()) continue;
        std::optional<RowValues> probe = MergeProbeRow(*w.model, table, pk);
        if (!probe.has_value()) probe = EngineRow(w, table, pk);
        if (!probe.has_value()) continue;
        absl::StatusOr<std::optional<std::string>> prov = w.db->ProvenanceOf(table, *probe);
        if (prov.ok() && prov->has_value() && **prov == key) {
          return MergeViolation{"merge-fence",
                                StrCat(table, "[", PkText(pk), "]: tombstoned on ", key,
                                       " but served by it before its fence")};
        }
      }
    }
  }
  return std::nullopt;
}

std::optional<MergeViolation> CheckMergeViewFresh(const MergeWorld& w) {
  const PlainTables visible = w.model->Visible();
  for (const MergeLiveView& v : w.views) {
    absl::StatusOr<std::vector<TreeNode>> fresh = FreshQuery(*v.ast, visible, *w.schema);
    if (!fresh.ok()) {
      return MergeViolation{"merge-view==fresh", StrCat("query ", v.qid, ": fresh query failed: ",
                                                        fresh.status().message())};
    }
    if (!TreesEqual(*fresh, v.folded)) {
      return MergeViolation{"merge-view==fresh",
                            StrCat("query ", v.qid, " on ", v.ast->table, ": ",
                                   TreeDiff(*fresh, v.folded, *v.ast, *w.schema))};
    }
  }
  return std::nullopt;
}

std::optional<MergeViolation> CheckMergeRows(const MergeWorld& w) {
  for (const auto& [table, t] : w.model->tables()) {
    absl::StatusOr<std::vector<RowValues>> rows = w.db->TableRows(table);
    if (!rows.ok()) {
      return MergeViolation{"merge-rows", StrCat(table, ": TableRows failed: ",
                                                 rows.status().message())};
    }
    const PlainTable expected = w.model->VisibleTable(table);
    PlainTable actual;
    const TableSpec& spec = w.schema->at(table);
    for (const RowValues& r : *rows) actual[spec.PkOf(r)] = r;
    for (const auto& [pk, row] : expected) {
      auto it = actual.find(pk);
      if (it == actual.end() || CompareRowValues(it->second, row) != 0) {
        return MergeViolation{"merge-rows",
                              StrCat(table, "[", PkText(pk), "]: expected ", RowDebugString(row),
                                     ", engine has ",
                                     it == actual.end() ? "(missing)" : RowDebugString(it->second))};
      }
    }
    for (const auto& [pk, row] : actual) {
      if (!expected.count(pk)) {
        return MergeViolation{"merge-rows", StrCat(table, "[", PkText(pk), "]: expected (missing)",
                                                   ", engine has ", RowDebugString(row))};
      }
    }
  }
  return std::nullopt;
}

}  // namespace rindle::props
