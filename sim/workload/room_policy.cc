// room_policy.cc — see room_policy.h.
#include "sim/workload/room_policy.h"

#include <algorithm>

#include "sim/workload/mutators.h"

namespace rindle::sim {

std::vector<std::string> RoomOwnedTables() { return {"comment", "issue"}; }
std::vector<std::string> RoomContextTables() { return {"user"}; }

std::string IssueDoc(const std::string& issue_id) { return kIssueDocPrefix + issue_id; }

const std::vector<std::string>& RoomDeclaredMutators() {
  static const std::vector<std::string> kNames = {"addComment", "moveComment"};
  return kNames;
}

std::optional<std::string> RoomDocFor(const std::string& name, const nlohmann::json& args) {
  const std::vector<std::string>& declared = RoomDeclaredMutators();
  if (std::find(declared.begin(), declared.end(), name) == declared.end()) return std::nullopt;
  if (!args.is_object() || !args.contains("issueId") || !args["issueId"].is_string()) {
    return std::nullopt;
  }
  const std::string id = args["issueId"].get<std::string>();
  if (id.empty()) return std::nullopt;
  return IssueDoc(id);
}

std::map<std::string, Mutator> RoomTwins() {
  const std::map<std::string, Mutator> server = ServerMutators();
  std::map<std::string, Mutator> twins;
  for (const std::string& name : RoomDeclaredMutators()) twins.emplace(name, server.at(name));
  return twins;
}

}  // namespace rindle::sim
