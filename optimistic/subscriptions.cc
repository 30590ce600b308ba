#include "optimistic/subscriptions.h"

#include "absl/strings/str_cat.h"
#include "base/check.h"

namespace rindle {

Subscriptions::Subscriptions(Channels* channels) : channels_(channels) {
  RINDLE_CHECK(channels_ != nullptr);
}

Channel& Subscriptions::ChannelFor(const RemoteSub& sub) {
  Channel* c = channels_->Find(sub.channel);
  return c != nullptr ? *c : channels_->daemon();
}

absl::Status Subscriptions::CheckWireId(int64_t qid, const RemoteQuery& remote) const {
  if (auto s = source_to_key_.find(qid); s != source_to_key_.end() && s->second != remote.Key()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "registerQuery: qid ", qid, " is still the wire id of the live remote query \"",
        subs_.at(s->second).remote.name, "\""));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> Subscriptions::Retain(int64_t retain_qid, const RemoteQuery& remote,
                                           std::optional<int64_t> local_qid,
                                           const std::string& channel) {
  RINDLE_CHECK_NE(retain_qid, kLmidQid);
  RINDLE_CHECK(!HasRetain(retain_qid));
  RINDLE_CHECK_MSG(channels_->Has(channel), channel);
  const std::string key = remote.Key();
  if (auto existing = subs_.find(key); existing != subs_.end() && existing->second.channel != channel) {
    return absl::FailedPreconditionError(absl::StrCat(
        "optimistic backend: query \"", remote.name, "\" is already retained on channel \"",
        existing->second.channel, "\" — cannot retain it on \"", channel, "\""));
  }
  auto [it, is_new] = subs_.try_emplace(key);
  RemoteSub& sub = it->second;
  if (is_new) {
    if (source_to_key_.count(retain_qid) > 0) {
      subs_.erase(it);
      return absl::FailedPreconditionError(absl::StrCat(
          "retainRemoteQuery: qid ", retain_qid, " is still the wire id of a live remote query"));
    }
    sub.source_qid = retain_qid;
    sub.remote = remote;
    sub.channel = channel;
    source_to_key_[retain_qid] = key;
  }
  ++sub.ref_count;
  retains_[retain_qid] = RetainRecord{key, local_qid};
  bool late_joiner = false;
  if (local_qid) {
    ++sub.local_qids[*local_qid];
    view_retains_[*local_qid].insert(retain_qid);
    if (sub.hydrated) {
      hydrated_.insert(*local_qid);
      late_joiner = true;
    } else {
      hydrated_.erase(*local_qid);
    }
  }
  // A hydrated sub is never new, so a late joiner's notification and this registration never
  // both happen in one call.
  if (is_new) ChannelFor(sub).Register(sub.source_qid, sub.remote);
  return late_joiner;
}

std::optional<int64_t> Subscriptions::ReleaseRetain(int64_t retain_qid) {
  auto r = retains_.find(retain_qid);
  if (r == retains_.end()) return std::nullopt;
  const RetainRecord retain = r->second;
  retains_.erase(r);
  RemoteSub& sub = subs_.at(retain.key);
  if (retain.local_qid) {
    auto lq = sub.local_qids.find(*retain.local_qid);
    if (lq != sub.local_qids.end() && --lq->second <= 0) sub.local_qids.erase(lq);
    auto vr = view_retains_.find(*retain.local_qid);
    if (vr != view_retains_.end()) {
      vr->second.erase(retain_qid);
      if (vr->second.empty()) view_retains_.erase(vr);
    }
  }
  RINDLE_CHECK_GT(sub.ref_count, 0);
  if (--sub.ref_count > 0) return std::nullopt;
  const int64_t source_qid = sub.source_qid;
  ChannelFor(sub).Unregister(source_qid);
  source_to_key_.erase(source_qid);
  subs_.erase(retain.key);
  return source_qid;
}

std::vector<ServerDeltaOp> Subscriptions::Release(int64_t retain_qid) {
  auto r = retains_.find(retain_qid);
  if (r == retains_.end()) return {};
  Channel& channel = ChannelFor(subs_.at(r->second.key));
  std::optional<int64_t> source_qid = ReleaseRetain(retain_qid);
  if (!source_qid) return {};
  return channel.DropQuery(*source_qid);
}

void Subscriptions::DetachView(int64_t qid) {
  if (auto vr = view_retains_.find(qid); vr != view_retains_.end()) {
    for (int64_t retain_qid : vr->second) {
      auto r = retains_.find(retain_qid);
      if (r == retains_.end()) continue;
      r->second.local_qid.reset();
      subs_.at(r->second.key).local_qids.erase(qid);
    }
    view_retains_.erase(vr);
  }
  hydrated_.erase(qid);
}

void Subscriptions::MarkHydrated(int64_t source_qid, std::set<int64_t>* newly) {
  auto k = source_to_key_.find(source_qid);
  if (k == source_to_key_.end()) return;
  RemoteSub& sub = subs_.at(k->second);
  if (sub.hydrated) return;
  sub.hydrated = true;
  for (const auto& [local_qid, n] : sub.local_qids) {
    if (hydrated_.insert(local_qid).second) newly->insert(local_qid);
  }
}

bool Subscriptions::ViewHydrated(int64_t qid) const {
  // A view no retain feeds is local-only: local data is synchronous.
  if (view_retains_.count(qid) == 0) return true;
  return hydrated_.count(qid) > 0;
}

const RemoteQuery& Subscriptions::RemoteOf(int64_t source_qid) const {
  return subs_.at(source_to_key_.at(source_qid)).remote;
}

std::vector<std::pair<int64_t, const RemoteQuery*>> Subscriptions::Live(
    const std::string& channel) const {
  std::vector<std::pair<int64_t, const RemoteQuery*>> out;
  for (const auto& [key, sub] : subs_) {
    if (sub.channel == channel) out.emplace_back(sub.source_qid, &sub.remote);
  }
  return out;
}

std::optional<int64_t> Subscriptions::SourceOf(int64_t retain_qid) const {
  auto r = retains_.find(retain_qid);
  if (r == retains_.end()) return std::nullopt;
  return subs_.at(r->second.key).source_qid;
}

std::optional<std::string> Subscriptions::ChannelOf(int64_t source_qid) const {
  auto k = source_to_key_.find(source_qid);
  if (k == source_to_key_.end()) return std::nullopt;
  return subs_.at(k->second).channel;
}

bool Subscriptions::AnyOn(const std::string& channel) const {
  for (const auto& [key, sub] : subs_) {
    if (sub.channel == channel) return true;
  }
  return false;
}

std::optional<std::string> Subscriptions::FirstOn(const std::string& channel) const {
  for (const auto& [key, sub] : subs_) {
    if (sub.channel == channel) return sub.remote.name;
  }
  return std::nullopt;
}

bool Subscriptions::SubHydrated(int64_t source_qid) const {
  auto k = source_to_key_.find(source_qid);
  return k != source_to_key_.end() && subs_.at(k->second).hydrated;
}

bool Subscriptions::FeedersHydrated(int64_t qid) const {
  auto vr = view_retains_.find(qid);
  if (vr == view_retains_.end()) return true;
  for (int64_t retain_qid : vr->second) {
    if (!subs_.at(retains_.at(retain_qid).key).hydrated) return false;
  }
  return true;
}

std::vector<int64_t> Subscriptions::ViewsOf(int64_t source_qid) const {
  std::vector<int64_t> out;
  auto k = source_to_key_.find(source_qid);
  if (k == source_to_key_.end()) return out;
  for (const auto& [local_qid, n] : subs_.at(k->second).local_qids) out.push_back(local_qid);
  return out;
}

std::optional<std::pair<int64_t, std::string>> Subscriptions::SubOfRetain(
    int64_t retain_qid) const {
  auto r = retains_.find(retain_qid);
  if (r == retains_.end()) return std::nullopt;
  const RemoteSub& sub = subs_.at(r->second.key);
  return std::make_pair(sub.source_qid, sub.channel);
}

absl::StatusOr<Subscriptions::Moved> Subscriptions::Move(const RemoteQuery& remote,
                                                         const std::string& channel) {
  RINDLE_CHECK_MSG(channels_->Has(channel), channel);
  auto it = subs_.find(remote.Key());
  if (it == subs_.end()) {
    return absl::NotFoundError(absl::StrCat("optimistic backend: no live sub for query \"",
                                            remote.name, "\" — nothing to retarget"));
  }
  RemoteSub& sub = it->second;
  if (sub.channel == channel) return Moved{sub.source_qid, ""};  // idempotent per target
  Moved moved{sub.source_qid, sub.channel};
  ChannelFor(sub).Leave(sub.source_qid);
  sub.channel = channel;
  sub.hydrated = false;  // the new channel's own first snapshot is the cutover point
  ChannelFor(sub).Register(sub.source_qid, sub.remote);
  return moved;
}

}  // namespace rindle
