#include "optimistic/gate.h"

#include <algorithm>
#include <utility>

#include "base/check.h"

namespace rindle {

size_t SourceGate::OnHello(int64_t qid) {
  const size_t before = buffer_.size();
  std::erase_if(buffer_, [qid](const BufferedFrame& f) { return f.qid == qid; });
  if (fenced_ && fence_all_.contains(qid)) fence_waiting_.insert(qid);  // a new epoch's snapshot
  if (auto it = owed_hellos_.find(qid); it != owed_hellos_.end() && --it->second == 0) {
    owed_hellos_.erase(it);
  }
  return before - buffer_.size();
}

SourceGate::Admit SourceGate::OnData(int64_t qid, const NormalizedEvent& ev) {
  RINDLE_CHECK(ev.type != NormalizedEvent::Type::kHello);
  // A batch at or below a cvMin this timeline delivered is a redelivery (the link is FIFO and no
  // batch passes a progress): stale. While a fence holds that progress appliedCv lags it, so the
  // held cvMin counts too — else a relay's retransmit of an old epoch's batch, arriving after the
  // qid's new snapshot, was buffered and released after it (campaign seed 280, superseded-epoch).
  if (ev.type == NormalizedEvent::Type::kBatch && ev.cv <= std::max(applied_cv_, held_cv_min_)) {
    ++stale_dropped_;
    return Admit::kStale;
  }
  // Fenced: a batch for a re-registered qid before its new snapshot is of the superseded epoch
  // (its new hello would drop it); dropping it now keeps the backlog from overflowing again.
  if (fenced_ && ev.type == NormalizedEvent::Type::kBatch && fence_waiting_.contains(qid)) {
    return Admit::kStale;
  }
  buffer_.push_back(BufferedFrame{ev.cv, qid, ev.type, ev.ops, next_seq_++});
  if (Overflowing()) {
    buffer_.clear();
    return Admit::kOverflow;  // the caller re-registers and begins a new fence
  }
  if (fenced_ && ev.type == NormalizedEvent::Type::kSnapshot && fence_all_.contains(qid) &&
      !owed_hellos_.contains(qid)) {  // an older registration's snapshot does not count
    fence_waiting_.erase(qid);
    fence_cv_ = std::max(fence_cv_, ev.cv);
  }
  return Admit::kBuffered;
}

bool SourceGate::Overflowing() {
  if (!fenced_) return buffer_.size() > cap_;
  // The fenced snapshots are owed, not backlog: they do not count against the cap.
  const size_t allowance = cap_ + fence_all_.size();
  if (buffer_.size() <= allowance) return false;
  // Nor do frames a held progress already covers: only the fence holds those (seed 1921).
  const int64_t covered = std::max(applied_cv_, held_cv_min_);
  const auto backlog = std::count_if(buffer_.begin(), buffer_.end(),
                                     [covered](const BufferedFrame& f) { return f.cv > covered; });
  if (static_cast<size_t>(backlog) > allowance) return true;
  ++fence_spared_;  // the frame count alone would have overflowed
  return false;
}

std::vector<BufferedFrame> SourceGate::Release(int64_t cv_min) {
  if (fenced_) {
    if (!fence_waiting_.empty() || cv_min < fence_cv_) {
      ++fence_holds_;
      held_cv_min_ = std::max(held_cv_min_, cv_min);
      return {};
    }
    fenced_ = false;  // every re-registered snapshot is here: release them together
    fence_all_.clear();
  }
  std::vector<BufferedFrame> ready;
  std::vector<BufferedFrame> keep;
  for (auto& f : buffer_) (f.cv <= cv_min ? ready : keep).push_back(std::move(f));
  buffer_ = std::move(keep);
  std::sort(ready.begin(), ready.end(), [](const BufferedFrame& a, const BufferedFrame& b) {
    return a.cv != b.cv ? a.cv < b.cv : a.seq < b.seq;
  });
  applied_cv_ = std::max(applied_cv_, cv_min);
  return ready;
}

size_t SourceGate::DropQuery(int64_t qid) {
  size_t before = buffer_.size();
  std::erase_if(buffer_, [qid](const BufferedFrame& f) { return f.qid == qid; });
  fence_all_.erase(qid);
  fence_waiting_.erase(qid);
  owed_hellos_.erase(qid);
  return before - buffer_.size();
}

void SourceGate::Reset() {
  buffer_.clear();
  applied_cv_ = 0;
  held_cv_min_ = 0;
  fenced_ = false;
  fence_all_.clear();
  fence_waiting_.clear();
  owed_hellos_.clear();
}

size_t SourceGate::DropConnection() {
  const size_t n = buffer_.size();
  buffer_.clear();
  connection_dropped_ += static_cast<int64_t>(n);
  owed_hellos_.clear();  // the registrations of the dead connection are answered no more
  if (fenced_) {  // the fenced snapshots buffered so far were dropped too: all are owed again
    fence_waiting_ = fence_all_;
    fence_cv_ = 0;
  }
  return n;
}

void SourceGate::ExpectHellos(const std::set<int64_t>& qids) {
  for (int64_t qid : qids) ++owed_hellos_[qid];
}

void SourceGate::BeginFence(std::set<int64_t> qids) {
  fenced_ = true;
  fence_waiting_ = qids;
  fence_all_ = std::move(qids);
  fence_cv_ = 0;
  // A snapshot already buffered is of the qid's current epoch (a hello drops older frames, a
  // reconnect drops the dead connection's): it is here, not owed. Seed 478: after a reconnect a
  // data sub's hello and snapshot arrived before the lmid hello that begins the fence, and the
  // fence waited for that snapshot forever (every later mutation stayed pending).
  for (const BufferedFrame& f : buffer_) {
    if (f.kind == NormalizedEvent::Type::kSnapshot && fence_all_.contains(f.qid) &&
        !owed_hellos_.contains(f.qid)) {
      fence_waiting_.erase(f.qid);
      fence_cv_ = std::max(fence_cv_, f.cv);
    }
  }
}

}  // namespace rindle
