// subscriptions.h — the client's remote subscriptions (seed 002 retainRemoteQuery /
// releaseRemoteQuery, CRIT#2): RemoteSub refcounting per RemoteQuery::Key(), the retains (retain
// qid → sub, optionally feeding a local view), the source qid ↔ key map, and which local views
// are hydrated. Holds state; not thread-safe. Registers / unregisters each sub on the channel it
// lives on (channels.h).
//
// Channels (seed 002 G-iii registration-time routing, RemoteSub.channel): a (name, args) sub lives
// on exactly ONE channel, fixed at its first retain; a later retain naming another channel fails
// (FailedPrecondition, the seed's message) — it would split the query's frames across two cv
// timelines. ChannelOf(source_qid) is the one source of truth for qid → channel ownership (the
// backend's wrong-channel check and the per-channel overflow / fence read it).
//
// Retain(retain_qid, remote, local_qid?): subs are refcounted per RemoteQuery::Key(); the first
// retain registers the sub on the channel under its retain qid (the sub's sourceQid); a retain
// naming a local view attaches it to the sub. A late joiner to a hydrated sub is hydrated at once
// (the caller notifies it kComplete). Release(retain_qid) releases one retain; the last one for a
// key unregisters the sub, drops its buffered frames and returns the GC delta of rows only it
// referenced — the caller runs it as a SERVER delta through the reconcile cycle, never an
// optimistic remove (CRIT#2). MarkHydrated(source_qid): the sub's first released snapshot (even
// an empty one) hydrates every view it feeds. A view no retain feeds is local-only: hydrated.
// Invariants: a live source qid maps to exactly one sub; ref_count == its live retains; a retain
// qid is unique among live retains and ≠ kLmidQid (callers check and return Status first).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/db.h"
#include "base/source_key.h"
#include "optimistic/channel.h"
#include "optimistic/channels.h"
#include "optimistic/source.h"

namespace rindle {

class Subscriptions {
 public:
  // `channels` must outlive this object.
  explicit Subscriptions(Channels* channels);

  bool HasRetain(int64_t retain_qid) const { return retains_.count(retain_qid) > 0; }
  bool HasSource(int64_t source_qid) const { return source_to_key_.count(source_qid) > 0; }
  // The source qid of the sub a live retain holds; nullopt for an unknown retain.
  std::optional<int64_t> SourceOf(int64_t retain_qid) const;
  // registerQuery(qid, ast, remote)'s precondition on the wire id: `qid` is not still the source
  // qid of a DIFFERENT live remote query (FailedPrecondition naming it).
  absl::Status CheckWireId(int64_t qid, const RemoteQuery& remote) const;
  // One more retain (see above) on `channel` (a connected channel's key — the caller checked).
  // Returns whether `local_qid` joined an already-hydrated sub. Errors (nothing changes):
  // `retain_qid` is still the wire id of another live remote query; the sub lives on another
  // channel.
  absl::StatusOr<bool> Retain(int64_t retain_qid, const RemoteQuery& remote,
                              std::optional<int64_t> local_qid,
                              const std::string& channel = std::string(kDaemonSource));
  // Releases one retain; the GC delta when it was the sub's last (empty otherwise / unknown qid).
  std::vector<ServerDeltaOp> Release(int64_t retain_qid);
  // The local view `qid` goes away: other retains feeding it detach, it is no longer hydrated.
  void DetachView(int64_t qid);
  // The sub's first released snapshot; inserts the views it newly hydrates into `newly`.
  void MarkHydrated(int64_t source_qid, std::set<int64_t>* newly);
  bool ViewHydrated(int64_t qid) const;

  // The sub behind a live source qid.
  const RemoteQuery& RemoteOf(int64_t source_qid) const;
  // Every live (source qid, remote) of `channel` in key order — deterministic.
  std::vector<std::pair<int64_t, const RemoteQuery*>> Live(
      const std::string& channel = std::string(kDaemonSource)) const;
  // The channel the sub behind `source_qid` lives on; nullopt when no live sub owns it.
  std::optional<std::string> ChannelOf(int64_t source_qid) const;
  // Whether any live sub lives on `channel`.
  bool AnyOn(const std::string& channel) const;
  // The first live sub on `channel` (its query name), key order; nullopt when none.
  std::optional<std::string> FirstOn(const std::string& channel) const;

  // --- rooms (swap.h) ---
  // Whether the sub behind `source_qid` released its first snapshot (on its current channel).
  bool SubHydrated(int64_t source_qid) const;
  // The local views the sub behind `source_qid` feeds (ascending); empty when none / unknown.
  std::vector<int64_t> ViewsOf(int64_t source_qid) const;
  // Whether every sub feeding view `qid` released its first snapshot on its current channel.
  bool FeedersHydrated(int64_t qid) const;
  // (source qid, channel) of the sub behind a live retain; nullopt for an unknown retain.
  std::optional<std::pair<int64_t, std::string>> SubOfRetain(int64_t retain_qid) const;
  struct Moved {
    int64_t source_qid = 0;
    std::string from;  // empty when the sub already lived on the target (idempotent: nothing moved)
  };
  // A retarget's phase 1 (seed 002 retargetRemoteQuery): the live sub of `remote` leaves its
  // channel (Channel::Leave — rows kept), moves to `channel` (connected — the caller checked) with
  // its hydration re-armed (the views it feeds stay hydrated: their rows stay visible) and
  // registers there. Errors (nothing moves): no live sub (NotFound, the seed's message).
  absl::StatusOr<Moved> Move(const RemoteQuery& remote, const std::string& channel);

 private:
  struct RemoteSub {
    int64_t source_qid = 0;
    RemoteQuery remote;
    int ref_count = 0;
    std::map<int64_t, int> local_qids;  // local view qid → how many retains feed it
    bool hydrated = false;
    std::string channel;  // the channel key it registered on (fixed at its first retain)
  };
  struct RetainRecord {
    std::string key;                   // RemoteQuery::Key() of the sub
    std::optional<int64_t> local_qid;  // the view it feeds, if any
  };
  // Releases one retain: returns the sub's source qid when it was the last one.
  std::optional<int64_t> ReleaseRetain(int64_t retain_qid);

  // The channel `sub` lives on (the daemon's if it is gone — defensive: a channel with a live
  // sub is never disconnected, backend.h).
  Channel& ChannelFor(const RemoteSub& sub);

  Channels* channels_;
  std::map<std::string, RemoteSub> subs_;              // by RemoteQuery::Key()
  std::map<int64_t, std::string> source_to_key_;       // sourceQid → key
  std::map<int64_t, RetainRecord> retains_;            // retain qid → retain
  std::map<int64_t, std::set<int64_t>> view_retains_;  // local view qid → retains feeding it
  std::set<int64_t> hydrated_;  // views whose feeding sub released a snapshot
};

}  // namespace rindle
