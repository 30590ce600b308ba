// gate.h — one authority channel's coherence gate (seed 002 `SourceGate`, §5.1 / §8.5). Holds
// state: the cv-tagged frame buffer (with per-gate arrival seq), the applied-cv watermark.
//
// Frames: snapshot/batch frames buffer by (cv, arrival seq). Release(cvMin) removes and returns
// every buffered frame with cv ≤ cvMin sorted by (cv, arrival), and raises appliedCv to cvMin
// (monotone). A hello (OnHello) drops that qid's buffered frames — a superseded epoch. A batch
// with cv ≤ appliedCv is a stale redelivery and is not buffered (kStale); a snapshot always
// buffers. Buffering past `cap` frames is an overflow: the buffer is cleared and kOverflow
// returned — the caller re-registers the channel's subs and lmid query (seed 002 `overflow`).
// Reset() (authority restart) clears the buffer and appliedCv. Errors: none (pure bookkeeping).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "optimistic/source.h"

namespace rindle {

struct BufferedFrame {
  int64_t cv = 0;
  int64_t qid = 0;
  NormalizedEvent::Type kind = NormalizedEvent::Type::kSnapshot;
  std::vector<RowOp> ops;
  uint64_t seq = 0;  // arrival order on this gate
};

class SourceGate {
 public:
  enum class Admit { kBuffered, kStale, kOverflow };

  SourceGate(std::string key, size_t cap) : key_(std::move(key)), cap_(cap) {}

  // Drops the qid's buffered frames; returns how many.
  size_t OnHello(int64_t qid);
  // A snapshot or batch frame (CHECKs it is not a hello).
  Admit OnData(int64_t qid, const NormalizedEvent& ev);
  std::vector<BufferedFrame> Release(int64_t cv_min);
  // Drops the qid's buffered frames (its sub was released); returns how many.
  size_t DropQuery(int64_t qid);
  void Reset();

  const std::string& key() const { return key_; }
  int64_t applied_cv() const { return applied_cv_; }
  // Batches refused as stale redeliveries (cv ≤ appliedCv) over the gate's life.
  int64_t stale_dropped() const { return stale_dropped_; }
  size_t buffered() const { return buffer_.size(); }
  size_t cap() const { return cap_; }
  const std::vector<BufferedFrame>& buffer() const { return buffer_; }

 private:
  std::string key_;
  size_t cap_;
  std::vector<BufferedFrame> buffer_;
  uint64_t next_seq_ = 0;
  int64_t applied_cv_ = 0;
  int64_t stale_dropped_ = 0;
};

}  // namespace rindle
