// source_key.h — the ONE spelling of a sync source / confirming-domain key (seed 000 §merge
// `sources`, seed 002 `domainPolicy`, watermark[domain]): the daemon is "daemon"; a room for
// document `doc` (itself e.g. "doc:X") is "room:" + doc, so "room:doc:X". Stateless.
// Every layer (engine rebase, client ledger and channels, simulator authorities, oracles) names
// sources through these helpers, never through a string literal.
#pragma once

#include <string>
#include <string_view>

namespace rindle {

inline constexpr std::string_view kDaemonSource = "daemon";
inline constexpr std::string_view kRoomSourcePrefix = "room:";

// "room:" + doc. `doc` must be non-empty (callers validate user input first).
inline std::string RoomSourceKey(std::string_view doc) {
  return std::string(kRoomSourcePrefix) + std::string(doc);
}
inline bool IsDaemonSource(std::string_view key) { return key == kDaemonSource; }
// A well-formed room key: the prefix and a non-empty doc.
inline bool IsRoomSource(std::string_view key) {
  return key.size() > kRoomSourcePrefix.size() && key.substr(0, kRoomSourcePrefix.size()) == kRoomSourcePrefix;
}
// The doc of a room key ("room:doc:X" → "doc:X"); empty for any other key.
inline std::string_view RoomDocOf(std::string_view key) {
  return IsRoomSource(key) ? key.substr(kRoomSourcePrefix.size()) : std::string_view();
}

}  // namespace rindle
