// result_io.cc — see result_io.h.
#include "cli/result_io.h"

#include "absl/strings/str_cat.h"
#include "cli/version.h"

namespace rindle::sim::cli {
namespace {

absl::Status LineError(const std::string& path, size_t line_no, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("\"", path, "\" line ", line_no, ": ", what));
}

// The result of one parsed seed line, or why it is not one. The seed must be an exact
// non-negative 64-bit integer: nlohmann keeps such a literal as number_unsigned (parsed exactly,
// never through a double); 6.9, 1e3 and 2^64 are floats, -1 is a signed integer.
absl::StatusOr<RunResult> ResultFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return absl::InvalidArgumentError("not a JSON object");
  auto seed = j.find("seed");
  if (seed == j.end()) return absl::InvalidArgumentError("field \"seed\" is missing");
  if (!seed->is_number_unsigned()) {
    return absl::InvalidArgumentError(
        absl::StrCat("field \"seed\": expected an integer from 0 to 18446744073709551615, got ",
                     seed->dump()));
  }
  RunResult r;
  try {
    r.seed = seed->get<uint64_t>();
    r.ok = j.at("ok").get<bool>();
    r.property = j.at("property").get<std::string>();
    r.step = j.at("step").get<int64_t>();
    r.message = j.at("message").get<std::string>();
    r.digest = j.at("digest").get<std::string>();
    r.steps = j.at("steps").get<int64_t>();
    r.virtual_ms = j.at("virtual_ms").get<int64_t>();
    if (auto it = j.find("counters"); it != j.end()) {
      for (const auto& [name, count] : it->items()) r.counters[name] = count.get<int64_t>();
    }
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("bad field: ", e.what()));
  }
  return r;
}

// Checks line 1 of a results file; fills `file.options`.
absl::Status ReadHeader(const std::string& path, const nlohmann::json& j, ResultsFile& file) {
  auto format = j.is_object() ? j.find("rindle_results") : j.end();
  if (format == j.end()) {
    return LineError(path, 1,
                     "not a rindle-sim results file (expected a header line "
                     "{\"rindle_results\": 1, ...}; was it written by another tool or an older "
                     "rindle-sim?)");
  }
  if (!format->is_number_unsigned() || format->get<uint64_t>() != kResultsFormat) {
    return LineError(path, 1,
                     absl::StrCat("results format ", format->dump(), " is not supported (expected ",
                                  kResultsFormat, ")"));
  }
  auto options = j.find("options");
  if (options == j.end() || !options->is_object()) {
    return LineError(path, 1, "header field \"options\": expected an object");
  }
  file.options = *options;
  file.has_header = true;
  return absl::OkStatus();
}

// Adds one seed line (line `line_no`) to `file`, refusing a conflicting duplicate.
absl::Status AddSeedLine(const std::string& path, size_t line_no, const nlohmann::json& j,
                         ResultsFile& file, std::map<uint64_t, size_t>& line_of) {
  absl::StatusOr<RunResult> r = ResultFromJson(j);
  if (!r.ok()) return LineError(path, line_no, std::string(r.status().message()));
  if (auto o = j.find("options"); o != j.end()) {
    if (std::string why = OptionsMismatch(file.options, *o); !why.empty()) {
      return LineError(path, line_no, "options differ from the header's: " + why);
    }
  }
  auto [it, fresh] = file.by_seed.emplace(r->seed, *r);
  if (fresh) {
    line_of[r->seed] = line_no;
    return absl::OkStatus();
  }
  if (it->second.ok != r->ok || it->second.property != r->property) {
    return LineError(path, line_no,
                     absl::StrCat("seed ", r->seed, " conflicts with line ", line_of[r->seed],
                                  " (", it->second.ok ? "passed" : it->second.property, " vs ",
                                  r->ok ? "passed" : r->property, ")"));
  }
  return absl::OkStatus();  // the same outcome twice: keep the first
}

}  // namespace

std::string DumpLine(const nlohmann::json& j) {
  return j.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json RunFlagsToJson(const RunFlags& flags) {
  nlohmann::json j = {{"max_steps", flags.max_steps > 0 ? flags.max_steps : RunOptions{}.max_steps},
                      {"swarm", flags.swarm}};
  if (flags.target != "client") j["target"] = flags.target;
  j["room_views"] = flags.room_views;
  return j;
}

std::string ReproduceCommand(uint64_t seed, const RunFlags& flags) {
  return ReproduceCommand(absl::StrCat(seed), flags);
}

std::string ReproduceCommand(const std::string& seed, const RunFlags& flags) {
  std::string cmd = absl::StrCat("rindle-sim run --seed ", seed);
  if (flags.target != "client") absl::StrAppend(&cmd, " --target ", flags.target);
  if (flags.max_steps > 0) absl::StrAppend(&cmd, " --max-steps ", flags.max_steps);
  if (!flags.swarm) absl::StrAppend(&cmd, " --swarm off");
  if (!flags.room_views) absl::StrAppend(&cmd, " --room-views off");
  return cmd;
}

nlohmann::json ResultsHeader(const RunFlags& flags) {
  return {{"rindle_results", kResultsFormat},
          {"version", Version()},
          {"commit", Commit()},
          {"options", RunFlagsToJson(flags)}};
}

namespace {

// "max_steps" → "--max-steps".
std::string FlagName(std::string key) {
  for (char& c : key) c = c == '_' ? '-' : c;
  return "--" + key;
}

}  // namespace

std::string OptionsMismatch(const nlohmann::json& recorded, const nlohmann::json& current) {
  for (const auto& [name, value] : current.items()) {
    auto it = recorded.find(name);
    const std::string had = it == recorded.end() ? "nothing" : it->dump();
    if (it == recorded.end() || *it != value) {
      return absl::StrCat(FlagName(name), ": the file has ", had, ", this campaign ",
                          value.dump());
    }
  }
  for (const auto& [name, value] : recorded.items()) {
    if (!current.contains(name)) {
      return absl::StrCat(FlagName(name), ": the file has ", value.dump(),
                          ", this campaign nothing");
    }
  }
  return "";
}

nlohmann::json ResultToJson(const RunResult& r, bool with_counters) {
  nlohmann::json j = {{"seed", r.seed},         {"ok", r.ok},         {"property", r.property},
                      {"step", r.step},         {"message", r.message}, {"digest", r.digest},
                      {"steps", r.steps},       {"virtual_ms", r.virtual_ms}};
  if (with_counters) {
    nlohmann::json counters = nlohmann::json::object();
    for (const auto& [name, count] : r.counters) counters[name] = count;
    j["counters"] = std::move(counters);
  }
  return j;
}

absl::StatusOr<RunResult> ResultFromJsonLine(const std::string& line) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("result line is not JSON: ", e.what()));
  }
  absl::StatusOr<RunResult> r = ResultFromJson(j);
  if (!r.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("result line: ", r.status().message()));
  }
  return r;
}

absl::StatusOr<ResultsFile> ReadResultsText(const std::string& path, const std::string& text) {
  ResultsFile file;
  std::map<uint64_t, size_t> line_of;
  size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    ++line_no;
    const size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) {
      file.torn_tail = true;
      break;
    }
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    file.clean_size = pos;
    if (line.empty() && line_no > 1) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
      return LineError(path, line_no, "not JSON (expected one result object per line)");
    }
    absl::Status s = line_no == 1 ? ReadHeader(path, j, file)
                                  : AddSeedLine(path, line_no, j, file, line_of);
    if (!s.ok()) return s;
  }
  return file;
}

std::string FailureLine(const RunResult& r) {
  return absl::StrCat("seed=", r.seed, " property=", r.property, " step=", r.step, " ",
                      r.message);
}

}  // namespace rindle::sim::cli
