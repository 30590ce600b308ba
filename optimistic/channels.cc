#include "optimistic/channels.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/source_key.h"

namespace rindle {

Channels::Channels(std::string client_id, const Schema* schema,
                   const std::set<std::string>* local_tables, size_t buffer_cap,
                   OptimisticSource* daemon)
    : client_id_(std::move(client_id)),
      schema_(schema),
      local_tables_(local_tables),
      buffer_cap_(buffer_cap),
      daemon_(nullptr) {
  daemon_ = &Add(std::string(kDaemonSource), daemon);
}

Channel& Channels::Add(const std::string& key, OptimisticSource* source) {
  RINDLE_CHECK(source != nullptr);
  RINDLE_CHECK_MSG(!Has(key), key);
  auto channel =
      std::make_unique<Channel>(key, client_id_, schema_, local_tables_, buffer_cap_, source);
  Channel& out = *channel;
  channels_.emplace(key, std::move(channel));
  return out;
}

void Channels::Remove(const std::string& key) {
  RINDLE_CHECK_MSG(!IsDaemonSource(key), "the daemon channel is never removed");
  channels_.erase(key);
}

Channel* Channels::Find(const std::string& key) {
  auto it = channels_.find(key);
  return it == channels_.end() ? nullptr : it->second.get();
}

const Channel* Channels::Find(const std::string& key) const {
  return const_cast<Channels*>(this)->Find(key);
}

Channel& Channels::For(const std::string& domain) {
  Channel* own = Find(domain);
  return own != nullptr ? *own : *daemon_;
}

absl::StatusOr<Channel*> Channels::Require(const std::string& key) {
  if (Channel* c = Find(key)) return c;
  return absl::NotFoundError(absl::StrCat(
      "optimistic backend: no source connected for channel \"", key, "\" — call connectSource(\"",
      key, "\", source) before retaining a query on it"));
}

}  // namespace rindle
