// merge_probes.cc — merge-provenance, merge-held-back, merge-routing and merge-writable
// (merge_world.h): the engine's probes against the model, and CheckMerge, which runs every
// merge property in order.
#include <string>

#include "base/source_key.h"
#include "base/str_util.h"
#include "properties/merge_world.h"

namespace rindle::props {
namespace {

std::string Opt(const std::optional<std::string>& s) { return s ? "\"" + *s + "\"" : "(none)"; }

std::string InfoText(const std::optional<ModelHeldBackInfo>& i) {
  if (!i.has_value()) return "(nothing parked)";
  return StrCat("{absent: ", i->absent ? "true" : "false", ", baseline: ",
                i->baseline ? RowDebugString(*i->baseline) : "(none)", "}");
}

}  // namespace

std::optional<RowValues> MergeProbeRow(const MergeModel& m, const std::string& table,
                                       const RowValues& pk) {
  const PlainTable visible = m.VisibleTable(table);
  if (auto it = visible.find(pk); it != visible.end()) return it->second;
  for (const auto& [key, s] : m.tables().at(table).sources) {
    if (auto h = s.held.find(pk); h != s.held.end() && h->second) return *h->second;
    if (auto b = s.baseline.find(pk); b != s.baseline.end()) return b->second;
  }
  return std::nullopt;
}

std::optional<MergeViolation> CheckMergeProvenance(const MergeWorld& w) {
  for (const auto& [table, t] : w.model->tables()) {
    if (t.local) continue;
    for (const RowValues& pk : w.model->KnownPks(table)) {
      std::optional<RowValues> probe = MergeProbeRow(*w.model, table, pk);
      if (!probe.has_value()) continue;
      absl::StatusOr<std::optional<std::string>> want = w.model->ProvenanceOf(table, *probe);
      absl::StatusOr<std::optional<std::string>> got = w.db->ProvenanceOf(table, *probe);
      if (!got.ok()) {
        return MergeViolation{"merge-provenance", StrCat("ProvenanceOf(", table, ", ",
                                                         RowDebugString(*probe), ") failed: ",
                                                         got.status().message())};
      }
      if (want.ok() && *want != *got) {
        return MergeViolation{"merge-provenance",
                              StrCat("ProvenanceOf(", table, ", ", RowDebugString(pk),
                                     "): expected ", Opt(*want), ", engine says ", Opt(*got))};
      }
    }
  }
  return std::nullopt;
}

std::optional<MergeViolation> CheckMergeHeldBack(const MergeWorld& w) {
  for (const auto& [table, t] : w.model->tables()) {
    if (t.local || !t.merged) continue;
    for (const RowValues& pk : w.model->KnownPks(table)) {
      std::optional<RowValues> probe = MergeProbeRow(*w.model, table, pk);
      if (!probe.has_value()) continue;
      for (const std::string& source : w.sources_ever) {
        absl::StatusOr<std::optional<ModelHeldBackInfo>> want =
            w.model->HeldBackState(table, source, *probe);
        absl::StatusOr<std::optional<HeldBackInfo>> got = w.db->HeldBackState(table, source, *probe);
        if (!want.ok()) continue;
        if (!got.ok()) {
          return MergeViolation{"merge-held-back",
                                StrCat("HeldBackState(", table, ", ", source, ", ",
                                       RowDebugString(pk), ") failed: ", got.status().message())};
        }
        std::optional<ModelHeldBackInfo> mine;
        if (got->has_value()) mine = ModelHeldBackInfo{(*got)->absent, (*got)->baseline};
        if (mine != *want) {
          return MergeViolation{"merge-held-back",
                                StrCat("HeldBackState(", table, ", ", source, ", ",
                                       RowDebugString(pk), "): expected ", InfoText(*want),
                                       ", engine says ", InfoText(mine))};
        }
      }
    }
  }
  return std::nullopt;
}

std::optional<MergeViolation> CheckMergeRouting(const MergeWorld& w) {
  if (w.step.engine_routes == w.step.model_routes) return std::nullopt;
  auto text = [](const std::vector<std::vector<std::string>>& routes) {
    std::string out;
    for (const auto& txn : routes) {
      out += "[";
      for (const std::string& s : txn) out += s + " ";
      out += "]";
    }
    return out;
  };
  return MergeViolation{"merge-routing", StrCat("CommitTracked sources: expected ",
                                                text(w.step.model_routes), ", engine says ",
                                                text(w.step.engine_routes))};
}

std::optional<MergeViolation> CheckMergeWritable(const MergeWorld& w) {
  for (const auto& [table, t] : w.model->tables()) {
    if (!t.merged) continue;
    for (const auto& [key, s] : t.sources) {
      if (IsDaemonSource(key)) continue;
      for (const RowValues& pk : w.model->KnownPks(table)) {
        std::optional<RowValues> probe = MergeProbeRow(*w.model, table, pk);
        if (!probe.has_value()) continue;
        absl::StatusOr<bool> want = w.model->WritableMatches(table, key, *probe);
        absl::StatusOr<bool> got = w.db->WritableMatches(table, key, *probe);
        if (want.ok() != got.ok() || (want.ok() && *want != *got)) {
          return MergeViolation{
              "merge-writable",
              StrCat("WritableMatches(", table, ", ", key, ", ", RowDebugString(*probe),
                     "): expected ", want.ok() ? (*want ? "true" : "false") : "an error",
                     ", engine says ",
                     got.ok() ? (*got ? "true" : "false") : std::string(got.status().message()))};
        }
      }
    }
  }
  return std::nullopt;
}

std::optional<MergeViolation> CheckMergeSourceRows(const MergeWorld& w) {
  for (const auto& [table, t] : w.model->tables()) {
    if (!t.merged) continue;
    for (const auto& [key, s] : t.sources) {
      absl::StatusOr<std::vector<RowValues>> got = w.db->SourceRows(table, key);
      std::vector<RowValues> want;
      for (const auto& [pk, row] : s.baseline) want.push_back(row);
      if (!got.ok() || *got != want) {
        return MergeViolation{
            "merge-source-rows",
            StrCat("SourceRows(", table, ", ", key, "): expected ", want.size(),
                   " baseline rows, engine ",
                   got.ok() ? StrCat("has ", got->size(), " (or different cells)")
                            : "failed: " + std::string(got.status().message()))};
      }
    }
  }
  return std::nullopt;
}

const std::vector<std::string>& MergePropertyNames() {
  static const std::vector<std::string> names = {
      "merge-fold", "merge-fence",      "merge-view==fresh", "merge-rows",
      "merge-provenance", "merge-held-back", "merge-routing", "merge-writable",
      "merge-source-rows"};
  return names;
}

std::optional<MergeViolation> CheckMerge(const MergeWorld& w,
                                         std::map<std::string, int64_t>* counters) {
  using Check = std::optional<MergeViolation> (*)(const MergeWorld&);
  static constexpr Check kChecks[] = {CheckMergeFold,       CheckMergeFence,
                                      CheckMergeViewFresh,  CheckMergeRows,
                                      CheckMergeProvenance, CheckMergeHeldBack,
                                      CheckMergeRouting,    CheckMergeWritable,
                                      CheckMergeSourceRows};
  const std::vector<std::string>& names = MergePropertyNames();
  for (size_t i = 0; i < names.size(); ++i) {
    if (counters != nullptr) ++(*counters)["check." + names[i] + ".checked"];
    if (std::optional<MergeViolation> v = kChecks[i](w)) return v;
  }
  return std::nullopt;
}

}  // namespace rindle::props
