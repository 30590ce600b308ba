#include "optimistic/downgrade.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/source_key.h"

namespace rindle {

Downgrades::Downgrades(Channels* channels, const Subscriptions* subs, Ledger* ledger,
                       Views* views, RoomTables* rooms, RoomSwaps* swaps, Reconciler* reconcile,
                       ClientHealth* health, RoomCounters* counters)
    : channels_(channels),
      subs_(subs),
      ledger_(ledger),
      views_(views),
      rooms_(rooms),
      swaps_(swaps),
      reconcile_(reconcile),
      health_(health),
      counters_(counters) {
  RINDLE_CHECK(channels_ != nullptr && subs_ != nullptr && ledger_ != nullptr);
  RINDLE_CHECK(views_ != nullptr);
  RINDLE_CHECK(rooms_ != nullptr && swaps_ != nullptr && reconcile_ != nullptr);
  RINDLE_CHECK(health_ != nullptr && counters_ != nullptr);
}

void Downgrades::Arm(const std::string& source_key, const std::string& doc,
                     int64_t final_flush_seq) {
  RINDLE_CHECK(!IsDaemonSource(source_key));
  ++counters_->demotes;
  auto [it, inserted] = ghosts_.try_emplace(source_key, Ghost{doc, final_flush_seq, false});
  // A second demote keeps the NEWEST fence: swapping back on an older one shows pre-flush images.
  if (!inserted) it->second.final_flush_seq = std::max(it->second.final_flush_seq, final_flush_seq);
}

void Downgrades::Cancel(const std::string& source_key) {
  if (ghosts_.erase(source_key) > 0) ++counters_->ghosts_cancelled;
}

bool Downgrades::Ready(const std::string& key, Ghost& ghost) {
  if (channels_->Has(key)) return false;  // re-upgraded: never dismantle a live room
  const int64_t mark = room_watermark ? room_watermark(ghost.doc) : 0;
  if (mark < ghost.final_flush_seq) return false;  // the fence holds
  std::vector<int64_t> sent;
  for (const auto& p : ledger_->pending()) {
    if (p.domain == key && p.mid) sent.push_back(*p.mid);
  }
  if (!sent.empty()) {
    if (!ghost.stuck_reported) {
      ghost.stuck_reported = true;
      ++counters_->stuck_events;
      std::sort(sent.begin(), sent.end());
      if (stuck) stuck(DowngradeStuckEvent{key, ghost.doc, sent});
    }
    return false;  // hold — never a timeout retire (§7.5 rule 2)
  }
  for (int64_t qid : swaps_->SwappedOnto(key)) {
    if (!subs_->FeedersHydrated(qid)) return false;  // the daemon has not re-delivered yet
  }
  return true;
}

std::vector<std::string> Downgrades::Due() {
  std::vector<std::string> due;
  for (auto& [key, ghost] : ghosts_) {
    if (Ready(key, ghost)) due.push_back(key);
  }
  return due;
}

void Downgrades::Detach(const std::vector<std::string>& keys) {
  for (const auto& key : keys) {
    ghosts_.erase(key);
    ++counters_->ghost_drops;
    // Detached first so the re-staging cycle delivers nothing to them; each gets ONE transition at
    // its Rebind: the swap-back and the re-staged predictions notify as one step.
    for (int64_t qid : swaps_->SwappedOnto(key)) {
      views_->Detach(qid);
      swaps_->ForgetSwap(qid);
      detached_.push_back(qid);
    }
    if (absl::Status s = rooms_->Unregister(key); !s.ok()) {
      health_->Fail(AnnotateStatus(s, absl::StrCat("ghost drop of ", key, ": ")));
    }
  }
}

bool Downgrades::BeforeCycle() {
  if (ghosts_.empty()) return false;  // every non-downgrade release: a structural no-op
  const std::vector<std::string> due = Due();
  if (due.empty()) return false;
  Detach(due);
  // The twins took their staged predictions with them: every pending entry must re-stage.
  return !ledger_->pending().empty();
}

void Downgrades::AfterCycle() {
  if (detached_.empty()) return;
  const std::vector<int64_t> detached = std::move(detached_);
  detached_.clear();
  for (int64_t qid : detached) {
    if (!views_->Has(qid)) continue;
    views_->ResetTables(qid);
    if (absl::Status s = views_->Rebind(qid, views_->OriginalAst(qid)); !s.ok()) health_->Fail(s);
    ++counters_->swap_backs;
  }
  views_->RefreshAxes();
}

void Downgrades::Evaluate() {
  if (ghosts_.empty()) return;
  const std::vector<std::string> due = Due();
  if (due.empty()) return;
  Detach(due);
  if (!ledger_->pending().empty()) {
    if (absl::Status s = reconcile_->RunCycle(std::string(kDaemonSource), {}); !s.ok()) {
      health_->Fail(AnnotateStatus(s, "ghost drop: re-staging cycle failed: "));
    }
  }
  AfterCycle();
}

}  // namespace rindle
