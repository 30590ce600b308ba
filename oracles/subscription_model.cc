// subscription_model.cc — see subscription_model.h.
#include "oracles/subscription_model.h"

#include "base/check.h"

namespace rindle {

bool SubscriptionModel::Retain(const std::string& key, int64_t qid) {
  RINDLE_CHECK(!key_of_.contains(qid));
  key_of_[qid] = key;
  auto [it, created] = subs_.try_emplace(key);
  it->second.retains.insert(qid);
  if (it->second.hydrated) it->second.hydrated_retains.insert(qid);
  if (!created) return false;
  it->second.source_qid = qid;
  RINDLE_CHECK(!key_of_source_.contains(qid));
  key_of_source_[qid] = key;
  return true;
}

std::optional<int64_t> SubscriptionModel::Release(int64_t qid) {
  auto k = key_of_.find(qid);
  RINDLE_CHECK(k != key_of_.end());
  auto it = subs_.find(k->second);
  RINDLE_CHECK(it != subs_.end());
  key_of_.erase(k);
  it->second.retains.erase(qid);
  it->second.hydrated_retains.erase(qid);
  if (!it->second.retains.empty()) return std::nullopt;
  const int64_t source = it->second.source_qid;
  key_of_source_.erase(source);
  subs_.erase(it);
  return source;
}

bool SubscriptionModel::Hydrate(int64_t source_qid) {
  auto k = key_of_source_.find(source_qid);
  if (k == key_of_source_.end()) return false;
  Sub& sub = subs_.at(k->second);
  const bool was = sub.hydrated;
  sub.hydrated = true;
  sub.hydrated_retains = sub.retains;
  return !was;
}

void SubscriptionModel::Rearm(int64_t source_qid) {
  auto k = key_of_source_.find(source_qid);
  if (k != key_of_source_.end()) subs_.at(k->second).hydrated = false;
}

bool SubscriptionModel::RetainHydrated(int64_t qid) const {
  auto k = key_of_.find(qid);
  return k != key_of_.end() && subs_.at(k->second).hydrated_retains.contains(qid);
}

const SubscriptionModel::Sub* SubscriptionModel::Find(const std::string& key) const {
  auto it = subs_.find(key);
  return it == subs_.end() ? nullptr : &it->second;
}

std::optional<std::string> SubscriptionModel::KeyOfSource(int64_t source_qid) const {
  auto it = key_of_source_.find(source_qid);
  if (it == key_of_source_.end()) return std::nullopt;
  return it->second;
}

}  // namespace rindle
