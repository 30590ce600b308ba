// room_views.cc — see room_views.h.
#include "properties/room_views.h"

#include "base/str_util.h"

namespace rindle::props {

MaybeViolation CheckRoomContextUntouched(const std::string& client, const std::string& key,
                                         const PlainTables& before, const PlainTables& after) {
  for (const auto& [table, rows] : after) {
    auto was = before.find(table);
    for (const auto& [pk, row] : rows) {
      const RowValues* old = nullptr;
      if (was != before.end()) {
        if (auto it = was->second.find(pk); it != was->second.end()) old = &it->second;
      }
      if (old != nullptr && *old == row) continue;
      return Violation{"room-context-leak",
                       StrCat(client, ": a frame on ", key, " ", old ? "changed" : "added",
                              " a row of ", table, ", a table the room does not own (pk ",
                              RowToJson(pk).dump(), ", now ", RowToJson(row).dump(), ")")};
    }
  }
  return std::nullopt;
}

MaybeViolation CheckGhostFence(const std::string& client, const std::string& key, int64_t mark,
                               int64_t final_flush_seq, const std::set<int64_t>& unresolved,
                               bool ghost_held,
                               const std::map<int64_t, std::optional<std::string>>& swapped_to) {
  if (mark >= final_flush_seq && unresolved.empty()) return std::nullopt;
  std::string why;
  if (mark < final_flush_seq) {
    why = StrCat(" although the fence is not met (the harness released or fed flush_seq ", mark,
                 ", the demote's final flush is ", final_flush_seq, ")");
  } else {
    std::string mids;
    for (int64_t m : unresolved) mids += StrCat(mids.empty() ? "" : ",", m);
    why = StrCat(" although sent room mids ", mids,
                 " are unresolved (a stuck ghost holds: no timeout retire)");
  }
  if (!ghost_held) {
    return Violation{"room-ghost-fence", StrCat(client, ": the ghost of ", key, " is gone", why)};
  }
  for (const auto& [qid, on] : swapped_to) {
    if (on == key) continue;
    return Violation{"room-ghost-fence", StrCat(client, " view ", qid, " swapped back off ", key,
                                                " (it reads ", on ? *on : "the plain tables", ")",
                                                why)};
  }
  return std::nullopt;
}

MaybeViolation CheckStuckEvent(const std::string& client, const std::string& key,
                               int64_t fired_before, const std::vector<int64_t>& named,
                               const std::set<int64_t>& expected) {
  if (fired_before > 0) {
    return Violation{"room-stuck", StrCat(client, ": the stuck event for ", key,
                                          " fired again for the same ghost (", fired_before + 1,
                                          " times)")};
  }
  const std::set<int64_t> got(named.begin(), named.end());
  if (got.size() == named.size() && got == expected) return std::nullopt;
  std::string g, e;
  for (int64_t m : named) g += StrCat(g.empty() ? "" : ",", m);
  for (int64_t m : expected) e += StrCat(e.empty() ? "" : ",", m);
  return Violation{"room-stuck", StrCat(client, ": the stuck event for ", key, " named mids [", g,
                                        "], the harness expects the unresolved sent mids [", e,
                                        "]")};
}

}  // namespace rindle::props
