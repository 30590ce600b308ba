// frame_faults.h — the server→client frame faults of a run (scenario kinds stale_redelivery,
// frame_duplicate, snapshot_overtake; scenario_kinds.cc rows): what a real transport between the
// authority and one client can do to the frames of one link, and nothing it cannot. Holds state:
// per client, the frames of the current boot it can redeliver, the copies it owes, the frames in
// flight (arrival time, qid) and the armed faults.
//
// What a transport can do (seed 002 §5.1/§8.5 name the client defenses; each fault targets one):
//   - stale_redelivery: a resumable session replays its tail after a reconnect to the SAME
//     authority process (same boot id): right after the new connection's welcome, up to
//     kMaxRedelivered batch frames the client already released (cv ≤ the highest progress cvMin
//     it received on this boot) arrive again. Never across a restart (a new process cannot
//     replay the old one's frames). Defense: the gate drops a batch with cv ≤ appliedCv.
//   - frame_duplicate: a relay retransmit — each of the next `count` batches is delivered again
//     right after the first progress frame that covers its cv (so the client released it first),
//     and the next `count` progress frames are delivered twice. Defense: appliedCv (stale batch),
//     and progress is a max.
//   - snapshot_overtake: a multiplexing transport (one stream per query) delivers the next
//     (re)subscription's hello + snapshot ahead of batches of OTHER queries already in flight;
//     one query's frames stay in order and nothing overtakes a welcome or progress frame (cvMin
//     is a promise about every query). Defense: the gate releases in (cv, arrival) order.
//     Arming it also STALLS the client's link (a congested multiplexer): every frame sent from
//     the arming on is held, in send order, until the next data hello (not the lmid query's).
//     That hello and its snapshot then go first; the held data frames follow them in order and
//     the held progress frames are coalesced away (progress is a max; the registration's own
//     progress, sent right after its snapshot with a cv above every held frame, supersedes them)
//     — so one progress releases the snapshot together with older batches of other queries that
//     arrived after it: the reorder the (cv, arrival) release must undo. A stall that meets a
//     held frame of the hello's own query or a welcome, lasts kMaxStallMs, or reaches Heal()
//     resumes instead:
//     every held frame, progress included, goes out in order; a link break loses them.
// Every copy is tagged ServerFrame::redelivered. Counters: fault.stale_redelivered_frames,
// fault.frame_duplicated, fault.progress_duplicated, fault.frames_overtaken (frames of other
// queries a snapshot passed), fault.overtake_stall / _resumed / _lost (stalls begun, ended
// without an overtake, lost with the link), fault.overtake_cv_reordered (overtakes that passed
// an older frame of another query), fault.progress_coalesced, fault.overtake_overlap_rows (rows
// a passed frame wrote that the snapshot also carries), fault.overtake_effective and
// fault.overtake_stale_rows (overtakes, rows, where a passed frame's last write of a row the
// snapshot also carries holds another value in a common column: applied in arrival order the
// view would show the older value), fault.overtake_lone_query (of those, overtakes that passed
// the batches of ONE other query: no other view re-ships the row in that release) — the
// harness's own record, never the client's.
// Randomness: none (times come from the network and the event queue).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/world/event_queue.h"
#include "sim/world/frames.h"
#include "sim/world/network.h"

namespace rindle::sim {

// A server frame's name in the failure report and the timeline page (the network tap's label):
// its kind first, then qid, cv, ops, cvMin and boot where present; " (copy)" when redelivered.
std::string FrameLabel(const ServerFrame& f);

class FrameFaults {
 public:
  using Deliver = std::function<void(const ServerFrame&)>;
  static constexpr size_t kMaxRedelivered = 4;
  static constexpr int64_t kMaxStallMs = 1000;

  FrameFaults(EventQueue* queue, Network* network, std::map<std::string, int64_t>* counters);

  void ArmStaleRedelivery(const std::string& client) { state_[client].stale_armed = true; }
  void ArmDuplicate(const std::string& client, int64_t count) {
    state_[client].duplicates += count;
  }
  // Arms the overtake and starts the stall (see above).
  void ArmOvertake(const std::string& client);
  // Faults off (the liveness phase): disarms every fault; owed copies are dropped.
  void Heal();

  // Puts `frame` on the client's link, applying the armed faults; `deliver` runs at the client
  // for the frame and for every copy of it.
  void Send(const std::string& client, const ServerFrame& frame, const Deliver& deliver);
  // A frame reached the client (before the client handles it): the record of what it released.
  void Delivered(const std::string& client, const ServerFrame& frame);

 private:
  struct InFlight {
    int64_t at = 0;
    int64_t link_epoch = 0;
    bool barrier = false;  // welcome or progress: nothing may overtake it
    int64_t qid = -1;      // a data frame's qid
  };
  struct Owed {
    ServerFrame frame;
    int64_t link_epoch = 0;
  };
  struct ClientFaults {
    int64_t boot = 0;         // the boot id of the last welcome delivered
    int64_t released_cv = 0;  // the highest cvMin delivered since that boot
    std::deque<ServerFrame> released;  // recent batches delivered on this boot
    std::vector<InFlight> in_flight;
    std::vector<Owed> owed;   // duplicates waiting for a progress that covers them
    bool stale_armed = false;
    int64_t duplicates = 0;
    bool overtake_armed = false;
    int64_t overtake_qid = -1;  // the hello that overtook: its snapshot overtakes too
    // The stall: frames held since the arming (send order) on link epoch stall_epoch.
    struct Held {
      ServerFrame frame;
      Deliver deliver;
    };
    bool stalled = false;
    int64_t stall_id = 0;
    int64_t stall_epoch = 0;
    std::vector<Held> held;
    std::map<int64_t, std::vector<WireTable>> hello_tables;  // qid → its last hello's tables
  };

  void SendWelcome(const std::string& client, ClientFaults& st, const ServerFrame& frame,
                   const Deliver& deliver);
  void SendProgress(const std::string& client, ClientFaults& st, const ServerFrame& frame,
                    const Deliver& deliver);
  bool SendOvertaking(const std::string& client, ClientFaults& st, const ServerFrame& frame,
                      const Deliver& deliver);
  bool Hold(const std::string& client, ClientFaults& st, const ServerFrame& frame,
            const Deliver& deliver);
  int64_t ReleaseBehind(const std::string& client, ClientFaults& st, int64_t at,
                        const ServerFrame& snapshot);
  void Resume(const std::string& client, ClientFaults& st);
  int64_t Ordered(const std::string& client, const ServerFrame& frame, const Deliver& deliver);
  void Record(ClientFaults& st, const std::string& client, int64_t at, const ServerFrame& f);
  static ServerFrame Copy(const ServerFrame& f);
  void Count(const std::string& name, int64_t n = 1) { (*counters_)[name] += n; }

  EventQueue* queue_;
  Network* network_;
  std::map<std::string, int64_t>* counters_;
  std::map<std::string, ClientFaults> state_;
};

}  // namespace rindle::sim
