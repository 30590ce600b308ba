#include "optimistic/swap.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/source_key.h"
#include "base/status_macros.h"

namespace rindle {

RoomSwaps::RoomSwaps(Channels* channels, Subscriptions* subs, Views* views, RoomTables* rooms,
                     Reconciler* reconcile, const std::set<std::string>* local_tables,
                     ClientHealth* health, RoomCounters* counters)
    : channels_(channels),
      subs_(subs),
      views_(views),
      rooms_(rooms),
      reconcile_(reconcile),
      local_tables_(local_tables),
      health_(health),
      counters_(counters) {
  RINDLE_CHECK(channels_ != nullptr && subs_ != nullptr && views_ != nullptr);
  RINDLE_CHECK(rooms_ != nullptr && reconcile_ != nullptr && local_tables_ != nullptr);
  RINDLE_CHECK(health_ != nullptr && counters_ != nullptr);
}

void RoomSwaps::QueueSwapIn(int64_t source_qid) {
  const std::optional<std::string> channel = subs_->ChannelOf(source_qid);
  if (channel && !IsDaemonSource(*channel)) queued_.insert(source_qid);
}

void RoomSwaps::ProcessSwapIns() {
  if (queued_.empty()) return;  // every single-domain release: a structural no-op
  const std::set<int64_t> queued = std::move(queued_);
  queued_.clear();
  for (int64_t source_qid : queued) counters_->swap_ins += SwapSub(source_qid);
}

void RoomSwaps::SwapLateJoiner(int64_t source_qid) {
  const std::optional<std::string> channel = subs_->ChannelOf(source_qid);
  if (!channel || IsDaemonSource(*channel) || !subs_->SubHydrated(source_qid)) return;
  // The sub's one-shot queue fired at its first snapshot, long ago: the twins already hold the
  // released state, so swapping now is the ordinary after-the-data order.
  counters_->late_join_swaps += SwapSub(source_qid);
}

int RoomSwaps::SwapSub(int64_t source_qid) {
  const std::optional<std::string> key = subs_->ChannelOf(source_qid);
  if (!key) return 0;  // released since it was queued
  const RoomTableMap& map = rooms_->TablesFor(*key);
  int moved = 0;
  for (int64_t qid : subs_->ViewsOf(source_qid)) {
    if (!views_->Has(qid)) continue;
    NoteContextJoin(qid, source_qid, *key, map);
    if (map.empty()) continue;  // no owned tables — nothing to swap
    if (SwappedTo(qid) == *key) continue;
    if (absl::Status s = views_->Rebind(qid, RemapAstTables(views_->OriginalAst(qid), map));
        !s.ok()) {
      health_->Fail(s);
      continue;
    }
    swapped_[qid] = *key;
    std::vector<std::string> twins;
    for (const auto& [wire, engine_table] : map) twins.push_back(engine_table);
    views_->AddTables(qid, twins);
    ++moved;
  }
  views_->RefreshAxes();
  return moved;
}

void RoomSwaps::NoteContextJoin(int64_t qid, int64_t source_qid, const std::string& key,
                                const RoomTableMap& map) {
  if (context_warned_.count(qid) > 0) return;
  std::vector<std::string> uncovered;
  for (const auto& t : AstTables(views_->OriginalAst(qid))) {
    if (map.count(t) == 0 && local_tables_->count(t) == 0) uncovered.push_back(t);
  }
  if (uncovered.empty()) return;
  context_warned_.insert(qid);
  ++counters_->context_joins;
  const RemoteQuery& remote = subs_->RemoteOf(source_qid);
  if (context_join) context_join(RoomContextJoinEvent{key, remote.name, remote.args, uncovered});
}

std::vector<int64_t> RoomSwaps::SwappedOnto(const std::string& source_key) const {
  std::vector<int64_t> out;
  for (const auto& [qid, key] : swapped_) {
    if (key == source_key) out.push_back(qid);
  }
  return out;
}

std::optional<std::string> RoomSwaps::SwappedTo(int64_t qid) const {
  auto it = swapped_.find(qid);
  if (it == swapped_.end()) return std::nullopt;
  return it->second;
}

void RoomSwaps::ForgetView(int64_t qid) {
  swapped_.erase(qid);
  context_warned_.erase(qid);
}

absl::StatusOr<int64_t> RoomSwaps::Retarget(const RemoteQuery& remote,
                                            const std::string& source_key) {
  RETURN_IF_ERROR(channels_->Require(source_key).status());  // before any sub state moves
  ASSIGN_OR_RETURN(const Subscriptions::Moved moved, subs_->Move(remote, source_key));
  if (moved.from.empty()) return moved.source_qid;  // already there: idempotent
  ++counters_->retargets;
  std::set<std::string>& left = left_[moved.source_qid];
  left.insert(moved.from);
  left.erase(source_key);  // re-entered: its frames there are the sub's own again
  // A second move inside the window keeps the FIRST channel's rows pending GC: the
  // intermediate channel's are dropped now (its sub never reached its tail), seed-silent.
  if (auto it = retarget_gc_.find(moved.source_qid); it != retarget_gc_.end()) {
    GcOn(moved.from, moved.source_qid, "retarget");
    // Back home before the cutover: the home channel's rows are the sub's own again.
    if (it->second == source_key) retarget_gc_.erase(it);
  } else {
    retarget_gc_[moved.source_qid] = moved.from;
  }
  return moved.source_qid;
}

void RoomSwaps::FlushRetargetGc(const std::string& channel) {
  if (retarget_gc_.empty()) return;  // every non-upgrade release: a structural no-op
  for (auto it = retarget_gc_.begin(); it != retarget_gc_.end();) {
    const int64_t source_qid = it->first;
    const std::optional<std::string> now = subs_->ChannelOf(source_qid);
    if (!now) {
      it = retarget_gc_.erase(it);  // released mid-window (TakeRetargetGc ran) — defensive
      continue;
    }
    if (*now != channel || !subs_->SubHydrated(source_qid)) {
      ++it;  // not this channel / not yet cut over
      continue;
    }
    const std::string old_channel = it->second;
    it = retarget_gc_.erase(it);
    ++counters_->retarget_gcs;
    GcOn(old_channel, source_qid, "retarget GC");
  }
}

void RoomSwaps::GcOn(const std::string& channel, int64_t source_qid, const std::string& what) {
  Channel* old = channels_->Find(channel);
  if (old == nullptr) return;  // disconnected (a demote): its rows went with its gate's sync
  std::vector<ServerDeltaOp> gc = rooms_->MapDelta(channel, old->DropQuery(source_qid));
  reconcile_->RunGc(std::string(kDaemonSource), gc, absl::StrCat(what, " of qid ", source_qid));
}

bool RoomSwaps::InGrace(int64_t source_qid, const std::string& channel) const {
  auto it = retarget_gc_.find(source_qid);
  if (it != retarget_gc_.end() && it->second == channel) return true;
  auto left = left_.find(source_qid);
  return left != left_.end() && left->second.contains(channel);
}

std::optional<std::string> RoomSwaps::TakeRetargetGc(int64_t source_qid) {
  auto it = retarget_gc_.find(source_qid);
  if (it == retarget_gc_.end()) return std::nullopt;
  std::string old = std::move(it->second);
  retarget_gc_.erase(it);
  return old;
}

}  // namespace rindle
