#include "engine/source_set.h"

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/source_key.h"
#include "base/status_macros.h"
#include "base/str_util.h"
#include "engine/ast_validate.h"

namespace rindle {

absl::StatusOr<CompiledScope> CompiledScope::Compile(const WritableScope& w, std::string_view table,
                                                     const TableSpec& spec,
                                                     std::string_view where) {
  CompiledScope out;
  out.kind_ = w.kind;
  switch (w.kind) {
    case WritableScope::Kind::kAll:
    case WritableScope::Kind::kNone:
      return out;
    case WritableScope::Kind::kColEq:
      if (w.col < 0 || static_cast<size_t>(w.col) >= spec.columns.size()) {
        return absl::InvalidArgumentError(StrCat(where, ": colEq column ", w.col,
                                                 " is out of range (the table has ",
                                                 spec.columns.size(), " columns)"));
      }
      out.col_ = w.col;
      out.value_ = w.value;
      return out;
    case WritableScope::Kind::kPredicate: {
      if (!w.where.has_value()) {
        return absl::InvalidArgumentError(StrCat(where, ": a predicate scope needs a where"));
      }
      const std::string path = StrCat(where, " $.predicate");
      // The same validation and compiled predicate a query's row-local where goes through, so
      // routing can never disagree with query semantics.
      RETURN_IF_ERROR(ValidateRowLocalCondition(*w.where, table, spec, path));
      ASSIGN_OR_RETURN(out.predicate_, Predicate::Compile(*w.where, spec, path));
      return out;
    }
  }
  return out;
}

bool CompiledScope::Covers(const RowValues& row) const {
  switch (kind_) {
    case WritableScope::Kind::kAll: return true;
    case WritableScope::Kind::kNone: return false;
    // SQL equality, as a query's `col = value` filter: a null on either side never matches.
    case WritableScope::Kind::kColEq: return EvalSimple(SimpleOp::kEq, row[col_], value_);
    case WritableScope::Kind::kPredicate: return predicate_.Eval(row);
  }
  return false;
}

Row SourceSlice::Effective(const RowValues& pk) const {
  if (auto it = held.find(pk); it != held.end()) return it->second;
  auto it = baseline.find(pk);
  return it == baseline.end() ? nullptr : it->second;
}

// Tier 1: a frozen source holding the pk; tier 2: a room whose scope covers its own copy; tier
// 3: the daemon's copy; tier 4: any room's copy. Inside a tier the map order decides: the daemon,
// then rooms by key.
SourceWinner Winner(const SourceSet& set, const RowValues& pk) {
  std::vector<Row> rows;
  rows.reserve(set.size());
  for (const auto& [key, slice] : set) rows.push_back(slice.Effective(pk));
  size_t i = 0;
  for (int tier = 1; tier <= 4; ++tier) {
    i = 0;
    for (const auto& [key, slice] : set) {
      const Row& r = rows[i++];
      if (!r) continue;
      const bool daemon = IsDaemonSource(key);
      const bool take = (tier == 1 && slice.frozen) ||
                        (tier == 2 && !daemon && slice.scope->Covers(*r)) ||
                        (tier == 3 && daemon) || (tier == 4);
      if (take) return {&key, r};
    }
  }
  return {};
}

}  // namespace rindle
