// frame_faults.cc — see frame_faults.h.
#include "sim/run/frame_faults.h"

#include <algorithm>
#include <utility>

#include "base/check.h"
#include "base/str_util.h"

namespace rindle::sim {
namespace {

// (table, pk) → column name → value: the rows a frame writes (adds, edits' new rows), named by
// the columns of its query's hello (the wire pk, else the "id" column, else the first column).
using NamedRows = std::map<std::pair<std::string, RowValues>, std::map<std::string, Value>>;

void NameRows(const std::vector<WireTable>& tables, const NormalizedEvent& ev, NamedRows& out) {
  for (const RowOp& op : ev.ops) {
    if (op.op == RowOp::Kind::kRemove) continue;
    auto t = std::find_if(tables.begin(), tables.end(),
                          [&](const WireTable& w) { return w.name == op.table; });
    if (t == tables.end() || t->columns.size() != op.row.size() || op.row.empty()) continue;
    std::vector<int> pk = t->primary_key;
    if (pk.empty()) {
      auto id = std::find(t->columns.begin(), t->columns.end(), "id");
      pk.push_back(id == t->columns.end() ? 0 : static_cast<int>(id - t->columns.begin()));
    }
    RowValues key;
    for (int i : pk) key.push_back(op.row[static_cast<size_t>(i)]);
    auto& cells = out[{op.table, key}];
    for (size_t i = 0; i < op.row.size(); ++i) cells[t->columns[i]] = op.row[i];
  }
}

}  // namespace

std::string FrameLabel(const ServerFrame& f) {
  const nlohmann::json t = FrameToTrace(f);
  std::string label = t.value("frame", "frame");
  for (const char* key : {"qid", "cv", "ops", "cvMin", "boot"}) {
    if (t.contains(key)) StrAppend(&label, " ", key, "=", t[key].dump());
  }
  if (f.redelivered) StrAppend(&label, " (copy)");
  return label;
}

FrameFaults::FrameFaults(EventQueue* queue, Network* network,
                         std::map<std::string, int64_t>* counters)
    : queue_(queue), network_(network), counters_(counters) {
  RINDLE_CHECK(queue_ != nullptr);
  RINDLE_CHECK(network_ != nullptr);
  RINDLE_CHECK(counters_ != nullptr);
}

void FrameFaults::ArmOvertake(const std::string& client) {
  ClientFaults& st = state_[client];
  st.overtake_armed = true;
  if (st.stalled) return;
  st.stalled = true;
  st.stall_epoch = network_->epoch(client);
  const int64_t id = ++st.stall_id;
  Count("fault.overtake_stall");
  queue_->ScheduleAt(queue_->now_ms() + kMaxStallMs, [this, client, id] {
    ClientFaults& s = state_[client];
    if (s.stalled && s.stall_id == id) Resume(client, s);
  });
}

void FrameFaults::Heal() {
  for (auto& [client, st] : state_) {
    if (st.stalled) Resume(client, st);
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
  if (network_->tapped()) network_->Label(FrameLabel(frame));
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
  if (frame.kind == ServerFrame::Kind::kData && frame.event.type == NormalizedEvent::Type::kHello) {
    st.hello_tables[frame.qid] = frame.event.tables;
  }
  if (st.stalled && Hold(client, st, frame, deliver)) return;
  switch (frame.kind) {
    case ServerFrame::Kind::kWelcome:
      return SendWelcome(client, st, frame, deliver);
    case ServerFrame::Kind::kProgress:
      return SendProgress(client, st, frame, deliver);
    case ServerFrame::Kind::kData:
      break;
    case ServerFrame::Kind::kOutcome:  // rooms only (their own link); never framed here
      Ordered(client, frame, deliver);
      return;
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

// While stalled: holds `frame` (true), or lets the overtaking hello / snapshot through (false).
bool FrameFaults::Hold(const std::string& client, ClientFaults& st, const ServerFrame& frame,
                       const Deliver& deliver) {
  if (!network_->up(client) || network_->epoch(client) != st.stall_epoch) {
    if (!st.held.empty()) Count("fault.overtake_stall_lost");
    st.held.clear();  // the link broke: what it held was lost with it
    st.stalled = false;
    return false;
  }
  if (frame.kind == ServerFrame::Kind::kWelcome) {
    // A welcome on the stalled epoch (the stall was armed between a connect and its welcome):
    // nothing is held across a session start — resume, then it goes as without a stall.
    Resume(client, st);
    return false;
  }
  const NormalizedEvent::Type type = frame.event.type;
  const bool overtaker =
      frame.kind == ServerFrame::Kind::kData && frame.qid != kLmidQid &&
      ((type == NormalizedEvent::Type::kHello && st.overtake_armed) ||
       (type == NormalizedEvent::Type::kSnapshot && frame.qid == st.overtake_qid));
  if (!overtaker) {
    st.held.push_back({frame, deliver});
    return true;
  }
  // Nothing overtakes a frame of its own query: resume, then the hello goes as without a stall.
  for (const ClientFaults::Held& h : st.held) {
    if (h.frame.kind == ServerFrame::Kind::kData && h.frame.qid == frame.qid) {
      Resume(client, st);
      return false;
    }
  }
  return false;
}

// The stall ends behind the overtaking snapshot (arriving at `at`): the held data frames follow
// it in order; the held progress frames are coalesced into the registration's progress that
// follows. Returns how many frames of other queries the snapshot passed.
int64_t FrameFaults::ReleaseBehind(const std::string& client, ClientFaults& st, int64_t at,
                                   const ServerFrame& snapshot) {
  network_->HoldClientOrder(client, at);
  NamedRows passed_rows;
  std::set<int64_t> passed_qids;
  int64_t passed = 0, coalesced = 0;
  for (const ClientFaults::Held& h : st.held) {
    if (h.frame.kind == ServerFrame::Kind::kProgress) {
      ++coalesced;  // a welcome never waits (Hold resumes at one)
      continue;
    }
    Record(st, client, Ordered(client, h.frame, h.deliver), h.frame);
    if (h.frame.qid == snapshot.qid) continue;
    ++passed;
    if (h.frame.qid != kLmidQid) passed_qids.insert(h.frame.qid);
    NameRows(st.hello_tables[h.frame.qid], h.frame.event, passed_rows);
  }
  st.held.clear();
  st.stalled = false;
  Count("fault.progress_coalesced", coalesced);
  NamedRows snap_rows;
  NameRows(st.hello_tables[snapshot.qid], snapshot.event, snap_rows);
  int64_t stale = 0;
  for (const auto& [key, cells] : snap_rows) {
    auto it = passed_rows.find(key);
    if (it == passed_rows.end()) continue;
    Count("fault.overtake_overlap_rows");
    for (const auto& [col, value] : it->second) {
      auto c = cells.find(col);
      if (c != cells.end() && c->second != value) {
        ++stale;
        break;
      }
    }
  }
  if (stale > 0) {
    Count("fault.overtake_effective");
    Count("fault.overtake_stale_rows", stale);
    // One query's batches passed (a board screen): nothing else in the release re-ships a row.
    if (passed_qids.size() == 1) Count("fault.overtake_lone_query");
  }
  return passed;
}

// The stall ends without an overtake: every held frame goes out in order (none if the link that
// carried them broke).
void FrameFaults::Resume(const std::string& client, ClientFaults& st) {
  std::vector<ClientFaults::Held> held = std::move(st.held);
  st.held.clear();
  st.stalled = false;
  if (held.empty()) return;
  if (!network_->up(client) || network_->epoch(client) != st.stall_epoch) {
    Count("fault.overtake_stall_lost");
    return;
  }
  Count("fault.overtake_stall_resumed");
  for (const ClientFaults::Held& h : held) {
    if (h.frame.kind == ServerFrame::Kind::kProgress) {
      SendProgress(client, st, h.frame, h.deliver);
    } else {
      Record(st, client, Ordered(client, h.frame, h.deliver), h.frame);
    }
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
  if (network_->tapped()) network_->Label(FrameLabel(frame) + " (overtaking)");
  const int64_t at = network_->SendToClientAt(client, floor, [deliver, frame] { deliver(frame); });
  if (at < 0) return true;  // the link is down: lost like any frame
  int64_t passed = 0;
  for (const InFlight& r : st.in_flight) {
    if (!r.barrier && r.qid != frame.qid && r.at > at) ++passed;
  }
  Record(st, client, at, frame);
  if (snapshot && st.stalled) passed += ReleaseBehind(client, st, at, frame);
  Count("fault.frames_overtaken", passed);
  if (snapshot && passed > 0) Count("fault.overtake_cv_reordered");
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
    case ServerFrame::Kind::kOutcome:
      return;
  }
}

}  // namespace rindle::sim
