// determinism_guard.cc — see determinism_guard.h.
#include "sim/run/determinism_guard.h"

#include <algorithm>
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

std::string Clip(const std::string& s, size_t n) {
  return s.size() <= n ? s : StrCat(s.substr(0, n), "...");
}

}  // namespace

bool IsCheckedSeed(uint64_t seed, uint32_t per_million) {
  uint64_t state = seed ^ 0x6a09e667f3bcc909ULL;
  return SplitMix64(&state) % 1000000 < per_million;
}

// The first differing line is found on canonical lines (short: data as hashes); the readable
// detail of that line in each file follows, so a value drift names its table, pk and columns.
std::optional<RunResult> CompareTwinRuns(const RunResult& a, const RunResult& b,
                                         const std::string& trace_a, const std::string& trace_b) {
  if (a.digest == b.digest) return std::nullopt;
  const std::vector<std::string> file_a = ReadLines(trace_a);
  const std::vector<std::string> file_b = ReadLines(trace_b);
  std::vector<std::string> canon_a, canon_b;
  for (const std::string& l : file_a) canon_a.push_back(CanonicalLine(l));
  for (const std::string& l : file_b) canon_b.push_back(CanonicalLine(l));
  std::string diff = FirstDifference(canon_a, canon_b);
  if (diff.empty()) diff = "the trace files are equal (the digest differs anyway)";
  for (size_t i = 0; i < std::min(file_a.size(), file_b.size()); ++i) {
    if (canon_a[i] == canon_b[i]) continue;
    if (file_a[i] != canon_a[i] || file_b[i] != canon_b[i]) {
      StrAppend(&diff, "\n  readable (first run):  ", Clip(file_a[i], 900),
                "\n  readable (second run): ", Clip(file_b[i], 900));
    }
    break;
  }
  if (diff.size() > 4000) diff = StrCat(diff.substr(0, 4000), "...");
  RunResult r = a;
  r.ok = false;
  r.property = "nondeterminism";
  r.step = 0;
  r.message = StrCat("two runs of seed ", a.seed, " gave digests ", a.digest, " and ", b.digest,
                     "; first difference: ", diff);
  return r;
}

}  // namespace rindle::sim
