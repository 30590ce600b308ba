#include "engine/merge.h"

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/source_key.h"
#include "base/str_util.h"

namespace rindle {
namespace {

absl::Status Unimplemented(std::string_view what) {
  return absl::UnimplementedError(StrCat(what, ": not implemented yet (issue 14)"));
}

}  // namespace

Merge::Merge(TableMap* tables, NetChangeSet* accum) : tables_(tables), accum_(accum) {
  RINDLE_CHECK(tables_ != nullptr);
  RINDLE_CHECK(accum_ != nullptr);
}

SourceSet* Merge::Find(std::string_view table) {
  auto it = sets_.find(table);
  return it == sets_.end() ? nullptr : &it->second;
}

const SourceSet* Merge::Find(std::string_view table) const {
  auto it = sets_.find(table);
  return it == sets_.end() ? nullptr : &it->second;
}

absl::Status Merge::AddRoomSource(std::string_view, std::string_view, const WritableScope&) {
  return Unimplemented("addRoomSource");
}
absl::Status Merge::RemoveRoomSource(std::string_view, std::string_view) {
  return Unimplemented("removeRoomSource");
}
absl::Status Merge::HoldBack(std::string_view, std::string_view, const RowValues&) {
  return Unimplemented("holdBack");
}
absl::Status Merge::HoldBackAbsent(std::string_view, std::string_view, const RowValues&) {
  return Unimplemented("holdBackAbsent");
}
absl::Status Merge::DropHeldBack(std::string_view, std::string_view, const RowValues&) {
  return Unimplemented("dropHeldBack");
}
absl::StatusOr<std::optional<HeldBackInfo>> Merge::HeldBackState(std::string_view,
                                                                 std::string_view,
                                                                 const RowValues&) const {
  return Unimplemented("heldBackState");
}
absl::Status Merge::FreezeSource(std::string_view, std::string_view) {
  return Unimplemented("freezeSource");
}
absl::StatusOr<std::optional<std::string>> Merge::ProvenanceOf(std::string_view,
                                                               const RowValues&) const {
  return Unimplemented("provenanceOf");
}
absl::StatusOr<bool> Merge::WritableMatches(std::string_view, std::string_view,
                                            const RowValues&) const {
  return Unimplemented("writableMatches");
}
absl::StatusOr<std::vector<RowValues>> Merge::SourceRows(std::string_view,
                                                         std::string_view) const {
  return Unimplemented("sourceRows");
}
std::string Merge::RouteOf(const Table&, const RowValues&) const {
  return std::string(kDaemonSource);
}

}  // namespace rindle
