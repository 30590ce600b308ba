// junit.cc — see junit.h.
#include "cli/junit.h"

#include <fstream>
#include <utility>

#include "absl/strings/str_format.h"
#include "base/str_util.h"
#include "cli/result_io.h"
#include "sim/run/timeline.h"

namespace rindle::sim::cli {

namespace {

// The <properties> and <system-out> of a failed testcase after --auto-shrink (junit.h).
std::pair<std::string, std::string> ShrinkParts(const ShrinkLinks* links, uint64_t seed) {
  if (links == nullptr) return {};
  auto it = links->find(seed);
  if (it == links->end()) return {};
  const ShrinkLink& l = it->second;
  const std::string group = StrCat("seed ", l.representative);
  if (l.scenario.empty()) {
    return {StrCat("      <properties><property name=\"shrink_group\" value=\"", group,
                   "\"/></properties>\n"),
            StrCat("      <system-out>shrunk scenario: (not shrunk; group of ", group,
                   ")</system-out>\n")};
  }
  const std::string file = XmlEscape(l.scenario);
  return {StrCat("      <properties><property name=\"shrunk_scenario\" value=\"", file,
                 "\"/><property name=\"shrink_group\" value=\"", group,
                 "\"/></properties>\n"),
          StrCat("      <system-out>shrunk scenario: ", file, " (group of ", group,
                 "; replay: rindle-sim replay ", file, ")</system-out>\n")};
}

}  // namespace

std::string JUnitXml(const std::vector<RunResult>& results, double elapsed_s,
                     const RunFlags& flags, const ShrinkLinks* links) {
  size_t failures = 0;
  size_t passed = 0;
  for (const RunResult& r : results) (r.ok ? passed : failures) += 1;
  const bool summarize = passed > kMaxPassedCases;
  std::string cases;
  for (const RunResult& r : results) {
    if (r.ok && summarize) continue;
    StrAppend(&cases, "    <testcase classname=\"rindle-sim.fuzz\" name=\"seed ", r.seed, "\"");
    if (r.ok) {
      cases += "/>\n";
      continue;
    }
    const auto [properties, system_out] = ShrinkParts(links, r.seed);
    StrAppend(&cases, ">\n", properties, "      <failure type=\"", XmlEscape(r.property),
              "\" message=\"", XmlEscape(r.message), "\">", XmlEscape(FailureLine(r)),
              "\nreproduce: ", XmlEscape(ReproduceCommand(r.seed, flags)), "</failure>\n",
              system_out, "    </testcase>\n");
  }
  if (summarize) {
    StrAppend(&cases, "    <testcase classname=\"rindle-sim.fuzz\" name=\"", passed,
              " passing seeds\"/>\n");
  }
  const size_t tests = summarize ? failures + 1 : results.size();
  return StrCat("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n",
                absl::StrFormat("  <testsuite name=\"rindle-sim fuzz\" tests=\"%d\" "
                                "failures=\"%d\" errors=\"0\" time=\"%.3f\">\n",
                                tests, failures, elapsed_s),
                cases, "  </testsuite>\n</testsuites>\n");
}

absl::Status WriteJUnit(const std::string& path, const std::vector<RunResult>& results,
                        double elapsed_s, const RunFlags& flags, const ShrinkLinks* links) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return absl::UnavailableError(StrCat("--junit \"", path, "\": cannot open for writing"));
  f << JUnitXml(results, elapsed_s, flags, links);
  f.flush();
  if (!f) return absl::DataLossError(StrCat("--junit \"", path, "\": write failed"));
  return absl::OkStatus();
}

}  // namespace rindle::sim::cli
