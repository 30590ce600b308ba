#include "optimistic/gate.h"

#include <algorithm>
#include <utility>

#include "base/check.h"

namespace rindle {

size_t SourceGate::OnHello(int64_t qid) { return DropQuery(qid); }

SourceGate::Admit SourceGate::OnData(int64_t qid, const NormalizedEvent& ev) {
  RINDLE_CHECK(ev.type != NormalizedEvent::Type::kHello);
  if (ev.type == NormalizedEvent::Type::kBatch && ev.cv <= applied_cv_) {
    ++stale_dropped_;
    return Admit::kStale;
  }
  buffer_.push_back(BufferedFrame{ev.cv, qid, ev.type, ev.ops, next_seq_++});
  if (buffer_.size() > cap_) {
    buffer_.clear();
    return Admit::kOverflow;
  }
  return Admit::kBuffered;
}

std::vector<BufferedFrame> SourceGate::Release(int64_t cv_min) {
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
  return before - buffer_.size();
}

void SourceGate::Reset() {
  buffer_.clear();
  applied_cv_ = 0;
}

}  // namespace rindle
