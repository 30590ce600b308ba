// subscription_model.h — a naive reference model of the optimistic client's refcounted remote
// subscriptions (seed 002 §5.1 retain/release; SPEC §4.3 hydration), shared by the runner's
// seed-002 properties (properties/optimistic_invariants.cc) and the client's state-machine test
// (optimistic/backend_state_test.cc). Holds state: per remote key, its sub (the source qid —
// the qid of the retain that created it, the one registered upstream —, the live retain qids,
// whether a snapshot of it has been released), and retain qid → key.
//
// Rules: the first retain of a key creates its sub with that qid as the source qid; later
// retains only join it; releasing the last retain removes the sub (the caller unregisters the
// source qid and drops its buffered frames); a sub is hydrated once a snapshot for its source
// qid is released and stays so until it is removed. Keys are opaque strings (a RemoteQuery key,
// or a table name in the state-machine test).
// Views (retain qids) carry their own hydration (seed 002's `hydrated` set of local qids): a
// retain is hydrated when it joins a hydrated sub or when its sub hydrates, and stays so until
// released. Rearm — a retarget moved the sub onto another channel (seed 002 302
// retargetRemoteQuery) — makes the SUB wait for its new channel's first snapshot again: a retain
// joining meanwhile is not hydrated, the retains already hydrated stay so (the view keeps its
// rows through the cutover).
// Errors: retaining a live qid or releasing an unknown one is a caller bug (RINDLE_CHECK).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace rindle {

class SubscriptionModel {
 public:
  struct Sub {
    int64_t source_qid = 0;
    std::set<int64_t> retains;
    bool hydrated = false;
    std::set<int64_t> hydrated_retains;  // retains whose view is hydrated
  };

  // Returns true when this retain created the key's sub (`qid` is its source qid).
  bool Retain(const std::string& key, int64_t qid);
  // Returns the removed sub's source qid when `qid` was its key's last retain.
  std::optional<int64_t> Release(int64_t qid);
  // A snapshot for `source_qid` was released; returns true when that hydrated a sub just now.
  bool Hydrate(int64_t source_qid);
  // The sub behind `source_qid` moved channels: it waits for the new channel's first snapshot.
  void Rearm(int64_t source_qid);
  // Whether the view of retain `qid` is hydrated (false for an unknown qid).
  bool RetainHydrated(int64_t qid) const;

  const std::map<std::string, Sub>& subs() const { return subs_; }
  const Sub* Find(const std::string& key) const;
  // The key whose sub has `source_qid`, or nullopt.
  std::optional<std::string> KeyOfSource(int64_t source_qid) const;
  bool retained(int64_t qid) const { return key_of_.contains(qid); }

 private:
  std::map<std::string, Sub> subs_;
  std::map<int64_t, std::string> key_of_;        // retain qid → key
  std::map<int64_t, std::string> key_of_source_;  // source qid → key
};

}  // namespace rindle
