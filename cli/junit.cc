// junit.cc — see junit.h.
#include "cli/junit.h"

#include <fstream>

#include "absl/strings/str_format.h"
#include "base/str_util.h"
#include "cli/result_io.h"
#include "sim/run/timeline.h"

namespace rindle::sim::cli {

std::string JUnitXml(const std::vector<RunResult>& results, double elapsed_s,
                     const RunFlags& flags) {
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
    StrAppend(&cases, ">\n      <failure type=\"", XmlEscape(r.property), "\" message=\"",
              XmlEscape(r.message), "\">", XmlEscape(FailureLine(r)),
              "\nreproduce: ",
              XmlEscape(ReproduceCommand(r.seed, flags)), "</failure>\n    </testcase>\n");
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
                        double elapsed_s, const RunFlags& flags) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return absl::UnavailableError(StrCat("--junit \"", path, "\": cannot open for writing"));
  f << JUnitXml(results, elapsed_s, flags);
  f.flush();
  if (!f) return absl::DataLossError(StrCat("--junit \"", path, "\": write failed"));
  return absl::OkStatus();
}

}  // namespace rindle::sim::cli
