// inspect.h — introspection snapshots of an OptimisticBackend (seed 002 `__inspect` /
// `PendingInspect` / `__inspectDomains`, DEBUG-TOOLS-BROWSER-DESIGN §2/§4.1). Plain value types
// with a JSON form for traces; no logic beyond serialization.
//
//   Inspect          — the daemon-domain scalars (seed 002 `OptimisticInspect`): pending entries
//                      in pending (creation) order (key, mid, name, args, tables = touched,
//                      writes flattened in (table, pk-key) order, reads, fold?), confirmedLmid
//                      (= watermark["daemon"]), nextMid, appliedCv, bufferedFrames,
//                      pendingTables (sorted).
//   DomainsInspect   — seed 002 `__inspectDomains`: per-domain nextMid / watermark (every domain
//                      ever opened — a disconnected channel's stays), per CONNECTED channel its
//                      gate's appliedCv / bufferedFrames, roomTables / swappedViews (the view
//                      plane: empty until it exists), lifecycle {roomWatermarks, scopeSessions
//                      (the system streams, system_streams.h), ghosts (the view plane: empty
//                      until it exists)}, and pending
//                      {mid, seq, name, domain} in pending (creation) order.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nlohmann/json.hpp"
#include "optimistic/write_set.h"

namespace rindle {

// Present iff the entry is a folded (debounced) write (seed 002 `FoldInspect`).
struct FoldInspect {
  std::string fold_key;  // "name\0identity-json"
  int64_t debounce_ms = 0;
  std::optional<int64_t> max_wait_ms;
  bool defer_across_writes = false;
  bool flushed = false;  // a real mid was dealt
};

struct PendingInspect {
  std::string key;  // "m:<mid>", "f:<foldKey>" for an unflushed fold, else "?:<name>"
  std::optional<int64_t> mid;
  std::string name;
  nlohmann::json args;
  std::vector<std::string> tables;
  std::vector<WriteRecord> writes;
  ReadLog reads;
  std::optional<FoldInspect> fold;

  nlohmann::json ToJson() const {
    nlohmann::json w = nlohmann::json::array();
    for (const auto& r : writes) w.push_back(r.ToJson());
    nlohmann::json out = {{"key", key},
                          {"mid", mid ? nlohmann::json(*mid) : nlohmann::json(nullptr)},
                          {"name", name},
                          {"args", args},
                          {"tables", tables},
                          {"writes", std::move(w)},
                          {"reads", reads.ToJson()}};
    if (fold) {
      out["fold"] = {{"foldKey", fold->fold_key},
                     {"debounceMs", fold->debounce_ms},
                     {"deferAcrossWrites", fold->defer_across_writes},
                     {"flushed", fold->flushed}};
      if (fold->max_wait_ms) out["fold"]["maxWaitMs"] = *fold->max_wait_ms;
    }
    return out;
  }
};

struct Inspect {
  std::vector<PendingInspect> pending;
  int64_t confirmed_lmid = 0;
  int64_t next_mid = 1;
  int64_t applied_cv = 0;
  size_t buffered_frames = 0;
  std::vector<std::string> pending_tables;

  nlohmann::json ToJson() const {
    nlohmann::json p = nlohmann::json::array();
    for (const auto& e : pending) p.push_back(e.ToJson());
    return {{"pending", std::move(p)},
            {"confirmedLmid", confirmed_lmid},
            {"nextMid", next_mid},
            {"appliedCv", applied_cv},
            {"bufferedFrames", buffered_frames},
            {"pendingTables", pending_tables}};
  }
};

struct GateInspect {
  int64_t applied_cv = 0;
  size_t buffered_frames = 0;
};

struct DomainPendingInspect {
  std::optional<int64_t> mid;
  std::optional<int64_t> seq;
  std::string name;
  std::string domain;
};

struct GhostInspect {
  std::string doc;
  int64_t final_flush_seq = 0;
};

struct LifecycleInspect {
  std::map<std::string, int64_t> room_watermarks;                         // doc → flush seq
  std::map<std::string, std::map<std::string, int64_t>> scope_sessions;  // scope → client → exp
  std::map<std::string, GhostInspect> ghosts;                             // source key → ghost
};

struct DomainsInspect {
  std::map<std::string, int64_t> next_mid;
  std::map<std::string, int64_t> watermark;
  std::map<std::string, GateInspect> gates;
  std::map<std::string, std::map<std::string, std::string>> room_tables;  // key → wire → engine
  std::map<int64_t, std::string> swapped_views;                           // view qid → key
  LifecycleInspect lifecycle;
  std::vector<DomainPendingInspect> pending;

  nlohmann::json ToJson() const {
    nlohmann::json g = nlohmann::json::object();
    for (const auto& [k, v] : gates) {
      g[k] = {{"appliedCv", v.applied_cv}, {"bufferedFrames", v.buffered_frames}};
    }
    nlohmann::json p = nlohmann::json::array();
    for (const auto& e : pending) {
      p.push_back({{"mid", e.mid ? nlohmann::json(*e.mid) : nlohmann::json(nullptr)},
                   {"seq", e.seq ? nlohmann::json(*e.seq) : nlohmann::json(nullptr)},
                   {"name", e.name},
                   {"domain", e.domain}});
    }
    nlohmann::json sv = nlohmann::json::object();
    for (const auto& [qid, key] : swapped_views) sv[std::to_string(qid)] = key;
    nlohmann::json gh = nlohmann::json::object();
    for (const auto& [k, v] : lifecycle.ghosts) {
      gh[k] = {{"doc", v.doc}, {"finalFlushSeq", v.final_flush_seq}};
    }
    nlohmann::json rt = nlohmann::json::object();
    for (const auto& [k, v] : room_tables) rt[k] = v;
    nlohmann::json ss = nlohmann::json::object();
    for (const auto& [k, v] : lifecycle.scope_sessions) ss[k] = v;
    return {{"nextMid", next_mid},
            {"watermark", watermark},
            {"gates", std::move(g)},
            {"roomTables", std::move(rt)},
            {"swappedViews", std::move(sv)},
            {"lifecycle",
             {{"roomWatermarks", lifecycle.room_watermarks},
              {"scopeSessions", std::move(ss)},
              {"ghosts", std::move(gh)}}},
            {"pending", std::move(p)}};
  }
};

}  // namespace rindle
