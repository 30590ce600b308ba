// The OptimisticBackend's room entry points (seed 002 302; backend.h "Rooms"): thin sequencing
// over room_tables.h, swap.h and downgrade.h, kept apart from backend.cc so the facade stays thin.
#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/source_key.h"
#include "base/status_macros.h"
#include "optimistic/backend.h"

namespace rindle {

absl::Status OptimisticBackend::RegisterRoomTables(const std::string& source_key,
                                                   const std::vector<std::string>& tables) {
  RETURN_IF_ERROR(Guard(HealthCheck::kCheck,
                        [&] { return absl::StrCat("registerRoomTables ", source_key, ": called"); }));
  // Fresh twins hold no rows: a row record a dead channel left for older twins is not theirs.
  if (rooms_.TablesFor(source_key).empty()) surviving_sync_.erase(source_key);
  return rooms_.Register(source_key, tables);
}

absl::Status OptimisticBackend::UnregisterRoomTables(const std::string& source_key) {
  absl::Status arg_error;
  if (!swaps_.SwappedOnto(source_key).empty()) {
    arg_error = absl::FailedPreconditionError(absl::StrCat(
        "unregisterRoomTables ", source_key, ": a view is still swapped onto its tables"));
  }
  RETURN_IF_ERROR(Guard(HealthCheck::kSkip,
                        [&] { return absl::StrCat("unregisterRoomTables ", source_key, ": called"); },
                        std::move(arg_error)));
  return rooms_.Unregister(source_key);
}

absl::StatusOr<int64_t> OptimisticBackend::RetargetRemoteQuery(const RemoteQuery& remote,
                                                               const std::string& source_key) {
  RETURN_IF_ERROR(Guard(HealthCheck::kCheck, [&] {
    return absl::StrCat("retargetRemoteQuery \"", remote.name, "\" → ", source_key, ": called");
  }));
  ASSIGN_OR_RETURN(const int64_t source_qid, swaps_.Retarget(remote, source_key));
  views_.RefreshAxes();
  RINDLE_CHECK_EQ(subs_.ChannelOf(source_qid).value_or(""), source_key);
  return source_qid;
}

absl::Status OptimisticBackend::DemoteRoomSource(const std::string& source_key,
                                                 const std::string& doc,
                                                 int64_t final_flush_seq) {
  absl::Status arg_error;
  if (IsDaemonSource(source_key)) {
    arg_error =
        absl::InvalidArgumentError("optimistic backend: the daemon source cannot be demoted");
  } else if (const std::optional<std::string> name = subs_.FirstOn(source_key)) {
    // Validated first: a sub still on the channel would silently starve once it detaches.
    arg_error = absl::FailedPreconditionError(absl::StrCat(
        "optimistic backend: cannot demote \"", source_key, "\" — query \"", *name,
        "\" is still retained on it (retarget it to the daemon first)"));
  }
  RETURN_IF_ERROR(Guard(HealthCheck::kSkip,
                        [&] { return absl::StrCat("demoteRoomSource ", source_key, ": called"); },
                        std::move(arg_error)));
  RETURN_IF_ERROR(DisconnectSource(source_key));  // (1) the channel (a no-op when already gone)
  downgrades_.Arm(source_key, doc, final_flush_seq);  // (2) the ghost, then its first evaluation
  downgrades_.Evaluate();
  RINDLE_CHECK(!channels_.Has(source_key));
  return absl::OkStatus();
}

int64_t OptimisticBackend::RoomWatermark(const std::string& doc) const {
  if (room_watermark_source_) return room_watermark_source_(doc);
  // roomWatermarks[doc] from the system streams (system_streams.h), max the test seam's value.
  const std::map<std::string, int64_t>& folded = system_.room_watermarks();
  auto f = folded.find(doc);
  auto t = test_room_watermarks_.find(doc);
  return std::max(f == folded.end() ? int64_t{0} : f->second,
                  t == test_room_watermarks_.end() ? int64_t{0} : t->second);
}

void OptimisticBackend::TestRoomWatermark(const std::string& doc, int64_t flush_seq) {
  int64_t& mark = test_room_watermarks_[doc];
  mark = std::max(mark, flush_seq);  // a monotone max-fold, like the system stream's
  if (!health_.in_cycle) downgrades_.Evaluate();
}

void OptimisticBackend::NoteCrossAuthority(const std::string& name, const std::string& domain,
                                           const WriteSet& writes) {
  std::vector<std::string> outside;
  if (!rooms_.NoteCrossAuthority(name, domain, Touched(writes), &outside)) return;
  ++room_counters_.cross_authority_warnings;
  if (cross_authority_observer_) cross_authority_observer_(name, domain, outside);
}

void OptimisticBackend::RunReleaseGc(const std::optional<std::pair<int64_t, std::string>>& sub,
                                     std::vector<ServerDeltaOp> gc, const std::string& what) {
  if (sub) gc = rooms_.MapDelta(sub->second, std::move(gc));
  reconcile_.RunGc(daemon_key(), gc, what);
  // A sub released mid-retarget: the channel it left still holds its rows.
  if (sub && !subs_.HasSource(sub->first)) {
    swaps_.ForgetLeft(sub->first);
    if (std::optional<std::string> old = swaps_.TakeRetargetGc(sub->first)) {
      swaps_.GcOn(*old, sub->first, what);
    }
  }
}

}  // namespace rindle
