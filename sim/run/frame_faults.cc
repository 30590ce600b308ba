// frame_faults.cc — see frame_faults.h.
#include "sim/run/frame_faults.h"

#include <algorithm>

#include "base/check.h"

namespace rindle::sim {

FrameFaults::FrameFaults(EventQueue* queue, Network* network,
                         std::map<std::string, int64_t>* counters)
    : queue_(queue), network_(network), counters_(counters) {
  RINDLE_CHECK(queue_ != nullptr);
  RINDLE_CHECK(network_ != nullptr);
  RINDLE_CHECK(counters_ != nullptr);
}

void FrameFaults::Heal() {
  for (auto& [client, st] : state_) {
    st.stale_armed = false;
    st.duplicates = 0;
    st.overtake_armed = false;
    st.overtake_qid = -1;
    st.owed.clear();
  }
}

ServerFrame FrameFaults::Copy(const ServerFrame& f) {
  ServerFrame c = f;
  c.redelivered = true;
  return c;
}

void FrameFaults::Record(ClientFaults& st, const std::string& client, int64_t at,
                         const ServerFrame& f) {
  if (at < 0) return;
  InFlight r;
  r.at = at;
  r.link_epoch = network_->epoch(client);
  r.barrier = f.kind != ServerFrame::Kind::kData;
  r.qid = f.kind == ServerFrame::Kind::kData ? f.qid : -1;
  st.in_flight.push_back(r);
}

int64_t FrameFaults::Ordered(const std::string& client, const ServerFrame& frame,
                             const Deliver& deliver) {
  return network_->SendToClient(client, [deliver, frame] { deliver(frame); });
}

void FrameFaults::Send(const std::string& client, const ServerFrame& frame,
                       const Deliver& deliver) {
  ClientFaults& st = state_[client];
  const int64_t now = queue_->now_ms();
  const int64_t link_epoch = network_->epoch(client);
  std::erase_if(st.in_flight, [&](const InFlight& r) {
    return r.at < now || r.link_epoch != link_epoch;
  });
  switch (frame.kind) {
    case ServerFrame::Kind::kWelcome:
      return SendWelcome(client, st, frame, deliver);
    case ServerFrame::Kind::kProgress:
      return SendProgress(client, st, frame, deliver);
    case ServerFrame::Kind::kData:
      break;
  }
  if (SendOvertaking(client, st, frame, deliver)) return;
  Record(st, client, Ordered(client, frame, deliver), frame);
  if (st.duplicates > 0 && frame.event.type == NormalizedEvent::Type::kBatch &&
      network_->up(client)) {
    --st.duplicates;
    st.owed.push_back({Copy(frame), link_epoch});
  }
}

void FrameFaults::SendWelcome(const std::string& client, ClientFaults& st,
                              const ServerFrame& frame, const Deliver& deliver) {
  st.owed.clear();  // a new connection: the old one's retransmits died with it
  Record(st, client, Ordered(client, frame, deliver), frame);
  // A resume to the same authority process replays frames the client already released.
  if (!st.stale_armed || frame.boot_id != st.boot || !network_->up(client)) return;
  int64_t sent = 0;
  for (const ServerFrame& old : st.released) {
    if (old.event.cv > st.released_cv) continue;
    Record(st, client, Ordered(client, Copy(old), deliver), old);
    ++sent;
  }
  if (sent == 0) return;
  st.stale_armed = false;
  Count("fault.stale_redelivery");
  Count("fault.stale_redelivered_frames", sent);
}

void FrameFaults::SendProgress(const std::string& client, ClientFaults& st,
                               const ServerFrame& frame, const Deliver& deliver) {
  Record(st, client, Ordered(client, frame, deliver), frame);
  if (st.duplicates > 0 && network_->up(client)) {
    --st.duplicates;
    Record(st, client, Ordered(client, Copy(frame), deliver), frame);
    Count("fault.progress_duplicated");
  }
  // Retransmits of batches this progress covers: they arrive after it (the client released them).
  const int64_t link_epoch = network_->epoch(client);
  for (auto it = st.owed.begin(); it != st.owed.end();) {
    if (it->link_epoch != link_epoch) {
      it = st.owed.erase(it);
      continue;
    }
    if (it->frame.event.cv > frame.cv_min) {
      ++it;
      continue;
    }
    if (Ordered(client, it->frame, deliver) >= 0) Count("fault.frame_duplicated");
    it = st.owed.erase(it);
  }
}

bool FrameFaults::SendOvertaking(const std::string& client, ClientFaults& st,
                                 const ServerFrame& frame, const Deliver& deliver) {
  const NormalizedEvent::Type type = frame.event.type;
  const bool hello = type == NormalizedEvent::Type::kHello && st.overtake_armed &&
                     frame.qid != kLmidQid;
  const bool snapshot = type == NormalizedEvent::Type::kSnapshot && frame.qid == st.overtake_qid;
  if (!hello && !snapshot) return false;
  // Nothing overtakes a welcome, a progress or a frame of its own query.
  int64_t floor = queue_->now_ms() + network_->config().latency_ms_min;
  for (const InFlight& r : st.in_flight) {
    if (r.barrier || r.qid == frame.qid) floor = std::max(floor, r.at);
  }
  const int64_t at = network_->SendToClientAt(client, floor, [deliver, frame] { deliver(frame); });
  if (at < 0) return true;  // the link is down: lost like any frame
  int64_t passed = 0;
  for (const InFlight& r : st.in_flight) {
    if (!r.barrier && r.qid != frame.qid && r.at > at) ++passed;
  }
  Record(st, client, at, frame);
  Count("fault.frames_overtaken", passed);
  if (hello) {
    st.overtake_armed = false;
    st.overtake_qid = frame.qid;
    Count("fault.snapshot_overtake");
  } else {
    st.overtake_qid = -1;
  }
  return true;
}

void FrameFaults::Delivered(const std::string& client, const ServerFrame& frame) {
  ClientFaults& st = state_[client];
  switch (frame.kind) {
    case ServerFrame::Kind::kWelcome:
      if (frame.boot_id != st.boot) {  // a restart: the old boot's frames are never replayed
        st.boot = frame.boot_id;
        st.released_cv = 0;
        st.released.clear();
      }
      return;
    case ServerFrame::Kind::kProgress:
      st.released_cv = std::max(st.released_cv, frame.cv_min);
      return;
    case ServerFrame::Kind::kData:
      if (frame.redelivered || frame.event.type != NormalizedEvent::Type::kBatch) return;
      st.released.push_back(frame);
      if (st.released.size() > kMaxRedelivered) st.released.pop_front();
      return;
  }
}

}  // namespace rindle::sim
