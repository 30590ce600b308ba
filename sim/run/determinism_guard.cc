// determinism_guard.cc — see determinism_guard.h.
#include "sim/run/determinism_guard.h"

#include <fstream>
#include <vector>

#include "base/str_util.h"
#include "base/rng.h"
#include "sim/run/trace.h"

namespace rindle::sim {
namespace {

std::vector<std::string> ReadLines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path, std::ios::binary);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

}  // namespace

bool IsCheckedSeed(uint64_t seed, uint32_t per_million) {
  uint64_t state = seed ^ 0x6a09e667f3bcc909ULL;
  return SplitMix64(&state) % 1000000 < per_million;
}

std::optional<RunResult> CompareTwinRuns(const RunResult& a, const RunResult& b,
                                         const std::string& trace_a, const std::string& trace_b) {
  if (a.digest == b.digest) return std::nullopt;
  std::string diff = FirstDifference(ReadLines(trace_a), ReadLines(trace_b));
  if (diff.empty()) diff = "the trace files are equal (the digest differs anyway)";
  if (diff.size() > 2000) diff = StrCat(diff.substr(0, 2000), "...");
  RunResult r = a;
  r.ok = false;
  r.property = "nondeterminism";
  r.step = 0;
  r.message = StrCat("two runs of seed ", a.seed, " gave digests ", a.digest, " and ", b.digest,
                     "; first difference: ", diff);
  return r;
}

}  // namespace rindle::sim
