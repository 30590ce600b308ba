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
