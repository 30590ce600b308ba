// gate_model.cc — see gate_model.h.
#include "oracles/gate_model.h"

#include <algorithm>

#include "base/check.h"

namespace rindle {

GateModel::GateModel(size_t cap) : cap_(cap) { RINDLE_CHECK(cap > 0); }

GateModel::Arrival GateModel::Push(const Frame& frame) {
  // At or below a cvMin this timeline delivered (released, or held by a fence) a batch can only
  // be a redelivery: every batch it covers was sent before it on the FIFO link.
  if (!frame.snapshot && frame.cv <= std::max(applied_cv_, held_cv_min_)) return Arrival::kStale;
  if (fenced_ && !frame.snapshot && missing_.contains(frame.qid)) return Arrival::kStale;
  buffer_.push_back(frame);
  // While fenced: the fenced snapshots, and what a held progress covers, are not backlog.
  const int64_t covered = std::max(applied_cv_, held_cv_min_);
  size_t backlog = buffer_.size();
  if (fenced_) {
    backlog = static_cast<size_t>(std::count_if(
        buffer_.begin(), buffer_.end(), [covered](const Frame& f) { return f.cv > covered; }));
  }
  if (backlog > cap_ + (fenced_ ? fence_.size() : 0)) {
    buffer_.clear();
    return Arrival::kOverflow;
  }
  if (fenced_ && frame.snapshot && fence_.contains(frame.qid) && !owed_.contains(frame.qid)) {
    missing_.erase(frame.qid);
    fence_cv_ = std::max(fence_cv_, frame.cv);
  }
  return Arrival::kBuffered;
}

size_t GateModel::Drop(int64_t qid) {
  const size_t before = buffer_.size();
  std::erase_if(buffer_, [qid](const Frame& f) { return f.qid == qid; });
  if (fenced_ && fence_.contains(qid)) missing_.insert(qid);
  if (auto it = owed_.find(qid); it != owed_.end() && --it->second == 0) owed_.erase(it);
  return before - buffer_.size();
}

size_t GateModel::Forget(int64_t qid) {
  const size_t n = Drop(qid);
  fence_.erase(qid);
  missing_.erase(qid);
  owed_.erase(qid);
  return n;
}

size_t GateModel::DropAll() {
  const size_t n = buffer_.size();
  buffer_.clear();
  owed_.clear();
  if (fenced_) {
    missing_ = fence_;
    fence_cv_ = 0;
  }
  return n;
}

void GateModel::ExpectHellos(const std::set<int64_t>& qids) {
  for (int64_t qid : qids) ++owed_[qid];
}

void GateModel::BeginFence(std::set<int64_t> qids) {
  fenced_ = true;
  missing_ = qids;
  fence_ = std::move(qids);
  fence_cv_ = 0;
  // A snapshot buffered before the fence began is of its qid's current epoch: not missing.
  for (const Frame& f : buffer_) {
    if (f.snapshot && fence_.contains(f.qid) && !owed_.contains(f.qid)) {
      missing_.erase(f.qid);
      fence_cv_ = std::max(fence_cv_, f.cv);
    }
  }
}

std::vector<GateModel::Frame> GateModel::Release(int64_t cv_min) {
  if (fenced_ && (!missing_.empty() || cv_min < fence_cv_)) {
    held_cv_min_ = std::max(held_cv_min_, cv_min);
    return {};
  }
  fenced_ = false;
  std::vector<Frame> released;
  std::vector<Frame> keep;
  for (const Frame& f : buffer_) (f.cv <= cv_min ? released : keep).push_back(f);
  buffer_ = std::move(keep);
  // Seed 002 §5.1: (cv, arrival) order — a snapshot that overtook an older batch of another
  // query must not be undone by it. The buffer is in arrival order, so a stable sort by cv.
  std::stable_sort(released.begin(), released.end(),
                   [](const Frame& a, const Frame& b) { return a.cv < b.cv; });
  applied_cv_ = std::max(applied_cv_, cv_min);
  return released;
}

void GateModel::Reset() {
  buffer_.clear();
  applied_cv_ = 0;
  held_cv_min_ = 0;
  fenced_ = false;
  fence_.clear();
  missing_.clear();
  owed_.clear();
}

}  // namespace rindle
