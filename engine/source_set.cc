#include "engine/source_set.h"

#include "absl/strings/str_cat.h"
#include "base/str_util.h"

namespace rindle {

absl::StatusOr<CompiledScope> CompiledScope::Compile(const WritableScope&, const TableSpec&,
                                                     std::string_view where) {
  return absl::UnimplementedError(StrCat(where, ": writable scopes not implemented yet"));
}

bool CompiledScope::Covers(const RowValues&) const { return kind_ == WritableScope::Kind::kAll; }

Row SourceSlice::Effective(const RowValues& pk) const {
  if (auto it = held.find(pk); it != held.end()) return it->second;
  auto it = baseline.find(pk);
  return it == baseline.end() ? nullptr : it->second;
}

}  // namespace rindle
