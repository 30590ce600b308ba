// gate_model.cc — see gate_model.h.
#include "oracles/gate_model.h"

#include <algorithm>

#include "base/check.h"

namespace rindle {

GateModel::GateModel(size_t cap) : cap_(cap) { RINDLE_CHECK(cap > 0); }

GateModel::Arrival GateModel::Push(const Frame& frame) {
  if (!frame.snapshot && frame.cv <= applied_cv_) return Arrival::kStale;
  buffer_.push_back(frame);
  if (buffer_.size() <= cap_) return Arrival::kBuffered;
  buffer_.clear();
  return Arrival::kOverflow;
}

size_t GateModel::Drop(int64_t qid) {
  const size_t before = buffer_.size();
  std::erase_if(buffer_, [qid](const Frame& f) { return f.qid == qid; });
  return before - buffer_.size();
}

std::vector<GateModel::Frame> GateModel::Release(int64_t cv_min) {
  std::vector<Frame> released;
  std::vector<Frame> keep;
  for (const Frame& f : buffer_) (f.cv <= cv_min ? released : keep).push_back(f);
  buffer_ = std::move(keep);
  applied_cv_ = std::max(applied_cv_, cv_min);
  return released;
}

void GateModel::Reset() {
  buffer_.clear();
  applied_cv_ = 0;
}

}  // namespace rindle
