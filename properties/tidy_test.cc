// tidy_test.cc — the determinism "tidy" check (ARCHITECTURE.md §2; TigerBeetle keeps the same
// kind of test): greps the simulated code for names that would make a run depend on something
// other than its seed — wall clocks, global or library RNGs, std:: distributions, threads,
// unordered containers.
//
// Scanned: every .h/.cc under engine/, optimistic/, sim/, oracles/ and properties/ of
// RINDLE_SOURCE_DIR, except *_test.cc and sim/cli/ (the CLI is not simulated: it may read the
// wall clock for its progress line and fork workers). Comments and string literals are blanked
// before matching, so prose may mention the banned names. A line that really needs one
// (nothing in simulated code should) can carry `tidy:allow <reason>`.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

#ifndef RINDLE_SOURCE_DIR
#error "RINDLE_SOURCE_DIR must name the source tree"
#endif

namespace {

struct Rule {
  const char* pattern;
  const char* why;
  std::vector<std::string> hints;
};

const std::vector<Rule>& Rules() {
  // `hints`: substrings one of which a matching line must contain (a cheap prefilter; std::regex
  // is slow).
  static const std::vector<Rule> rules = {
      {R"(\brandom_device\b)", "nondeterministic seed source", {"random_device"}},
      {R"(\bs?rand\s*\()", "global C RNG", {"rand"}},
      {R"(\b(system_clock|steady_clock|high_resolution_clock)\b)", "wall clock", {"_clock"}},
      {R"(\b(gettimeofday|clock_gettime)\b|\bclock\s*\(\s*\))", "wall clock",
       {"clock", "timeofday"}},
      {R"(\btime\s*\(\s*(nullptr|NULL|0)\s*\))", "wall clock", {"time"}},
      {R"(\babsl::Now\s*\()", "wall clock", {"Now"}},
      {R"(\babsl::(Insecure)?BitGen\b)", "absl::BitGen is not repeatable across processes",
       {"BitGen"}},
      {R"(\b\w+_distribution\b)", "std:: distributions differ between standard libraries",
       {"_distribution"}},
      {R"(\b(mt19937(_64)?|default_random_engine|minstd_rand0?|ranlux\w*|knuth_b)\b)",
       "use sim/rng.h", {"mt19937", "random_engine", "minstd", "ranlux", "knuth_b"}},
      {R"(\bstd::(shuffle|random_shuffle|sample)\s*\()",
       "library shuffles use std:: distributions", {"shuffle", "sample"}},
      {R"(#\s*include\s*<random>)", "<random>: use sim/rng.h", {"<random>"}},
      {R"(\bstd::(this_thread|thread|jthread|async)\b|#\s*include\s*<(thread|future)>)",
       "threads make timing visible", {"thread", "async", "<future>"}},
      {R"(\bunordered_(map|set|multimap|multiset)\b)",
       "unordered iteration order (use absl hash maps for lookups only, or std::map)",
       {"unordered_"}},
      {R"(\bgetpid\s*\()", "process id", {"getpid"}},
  };
  return rules;
}

// Blanks comments and string/char literals (keeping newlines, so line numbers hold).
std::string StripCommentsAndStrings(const std::string& src) {
  std::string out = src;
  size_t i = 0;
  const size_t n = src.size();
  auto blank = [&](size_t from, size_t to) {
    for (size_t k = from; k < to && k < n; ++k) {
      if (out[k] != '\n') out[k] = ' ';
    }
  };
  while (i < n) {
    if (src.compare(i, 2, "//") == 0) {
      size_t end = src.find('\n', i);
      if (end == std::string::npos) end = n;
      blank(i, end);
      i = end;
    } else if (src.compare(i, 2, "/*") == 0) {
      size_t end = src.find("*/", i + 2);
      end = end == std::string::npos ? n : end + 2;
      blank(i, end);
      i = end;
    } else if (src[i] == 'R' && i + 1 < n && src[i + 1] == '"' &&
               (i == 0 || !(std::isalnum(static_cast<unsigned char>(src[i - 1])) ||
                            src[i - 1] == '_'))) {
      const size_t open = src.find('(', i + 2);
      if (open == std::string::npos) break;
      const std::string close = ")" + src.substr(i + 2, open - i - 2) + "\"";
      size_t end = src.find(close, open + 1);
      end = end == std::string::npos ? n : end + close.size();
      blank(i + 2, end - 1);
      i = end;
    } else if (src[i] == '"' || src[i] == '\'') {
      const char quote = src[i];
      size_t k = i + 1;
      while (k < n && src[k] != quote && src[k] != '\n') k += src[k] == '\\' ? 2 : 1;
      blank(i + 1, k);
      i = k + 1;
    } else {
      ++i;
    }
  }
  return out;
}

struct Finding {
  int line = 0;
  std::string rule;
  std::string text;
};

std::vector<Finding> Scan(const std::string& source) {
  std::vector<Finding> findings;
  const std::string code = StripCommentsAndStrings(source);
  std::istringstream code_lines(code);
  std::istringstream raw_lines(source);
  std::string code_line;
  std::string raw_line;
  int line_no = 0;
  static const std::vector<std::regex> compiled = [] {
    std::vector<std::regex> v;
    for (const Rule& r : Rules()) v.emplace_back(r.pattern);
    return v;
  }();
  while (std::getline(code_lines, code_line)) {
    std::getline(raw_lines, raw_line);
    ++line_no;
    if (raw_line.find("tidy:allow") != std::string::npos) continue;
    for (size_t r = 0; r < compiled.size(); ++r) {
      bool hinted = false;
      for (const std::string& h : Rules()[r].hints) {
        hinted = hinted || code_line.find(h) != std::string::npos;
      }
      if (hinted && std::regex_search(code_line, compiled[r])) {
        findings.push_back({line_no, Rules()[r].why, raw_line});
      }
    }
  }
  return findings;
}

std::vector<std::filesystem::path> SimulatedSources() {
  namespace fs = std::filesystem;
  const fs::path root = RINDLE_SOURCE_DIR;
  std::vector<fs::path> files;
  for (const char* dir : {"engine", "optimistic", "sim", "oracles", "properties"}) {
    std::error_code ec;
    if (!fs::is_directory(root / dir, ec)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / dir, ec)) {
      if (!entry.is_regular_file()) continue;
      const fs::path& p = entry.path();
      const std::string ext = p.extension().string();
      if (ext != ".h" && ext != ".cc" && ext != ".hpp" && ext != ".cpp") continue;
      const std::string name = p.filename().string();
      if (name.size() > 8 && name.compare(name.size() - 8, 8, "_test.cc") == 0) continue;
      const std::string rel = fs::relative(p, root).generic_string();
      if (rel.rfind("sim/cli/", 0) == 0) continue;
      files.push_back(p);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(TidyTest, ScannerCatchesBannedNamesOutsideCommentsAndStrings) {
  const std::string sample =
      "#include <random>\n"                                  // 1
      "std::random_device rd;\n"                             // 2
      "int x = rand();\n"                                    // 3
      "auto t = std::chrono::steady_clock::now();\n"         // 4
      "std::uniform_int_distribution<int> d(1, 6);\n"        // 5
      "std::unordered_map<int, int> m;\n"                    // 6
      "std::shuffle(v.begin(), v.end(), g);\n"               // 7
      "auto now = time(nullptr);\n"                          // 8
      "std::this_thread::sleep_for(ms);\n"                   // 9
      "absl::BitGen gen; auto n = absl::Now();\n"            // 10
      "// a comment naming std::random_device is fine\n"     // 11
      "const char* s = \"steady_clock in a string\";\n"      // 12
      "int operand(int); int y = operand(2);\n"              // 13
      "/* block\n std::unordered_set<int> */ int z;\n"       // 14-15
      "auto w = R\"(rand() inside a raw string)\";\n"        // 16
      "std::mt19937 legacy;  // tidy:allow test fixture\n";  // 17
  std::vector<int> lines;
  for (const Finding& f : Scan(sample)) lines.push_back(f.line);
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  EXPECT_EQ(lines, (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
}

TEST(TidyTest, SimulatedCodeUsesNoNondeterministicNames) {
  const std::vector<std::filesystem::path> files = SimulatedSources();
  ASSERT_FALSE(files.empty()) << "no sources found under " << RINDLE_SOURCE_DIR;
  std::string report;
  int count = 0;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    for (const Finding& f : Scan(content.str())) {
      ++count;
      report += std::filesystem::relative(file, RINDLE_SOURCE_DIR).generic_string() + ":" +
                std::to_string(f.line) + ": " + f.rule + ": " + f.text + "\n";
    }
  }
  EXPECT_EQ(count, 0) << "banned nondeterminism in simulated code (ARCHITECTURE.md §2):\n"
                      << report;
}

}  // namespace
