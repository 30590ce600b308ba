// frames.h — what the authority sends down a client's link (SPEC §2.3): a welcome carrying the
// boot id (first frame of every connection), then per-subscription hello/snapshot/batch frames
// and progress frames; a room (sim/authority/room.h) also sends out-of-band mutationOutcome
// frames (seed 002 H-v). Value types only.
#pragma once

#include <cstdint>

#include "nlohmann/json.hpp"
#include "optimistic/source.h"

namespace rindle::sim {

struct ServerFrame {
  enum class Kind { kWelcome, kData, kProgress, kOutcome };
  Kind kind = Kind::kWelcome;
  int64_t boot_id = 0;      // kWelcome
  int64_t qid = 0;          // kData
  NormalizedEvent event;    // kData
  int64_t cv_min = 0;       // kProgress
  MutationOutcomeFrame outcome;  // kOutcome (a room's verdict on a mid it did not apply)
  // kData: the subscription epoch the frame belongs to — the authority's count of hellos it sent
  // for (client, qid), 1 for the first. Test-only tag (properties check superseded epochs); not
  // part of the wire contract the backend sees.
  int64_t epoch = 0;
  // Test-only tag: a copy a frame fault (sim/run/frame_faults.h) put on the link again — an old
  // frame redelivered, not something the authority sent now. Not part of the wire contract.
  bool redelivered = false;
};

// Compact trace form of a frame (ops summarized by count).
nlohmann::json FrameToTrace(const ServerFrame& f);

}  // namespace rindle::sim
