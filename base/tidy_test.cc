// tidy_test.cc — the house's "tidy" checks (ARCHITECTURE.md §2 and §5; TigerBeetle keeps the
// same kind of test), over the source tree RINDLE_SOURCE_DIR:
//
// 1. Determinism: greps the simulated code for names that would make a run depend on something
//    other than its seed — wall clocks, global or library RNGs, std:: distributions, threads,
//    unordered containers. Scanned: every .h/.cc under base/, engine/, optimistic/, sim/,
//    oracles/ and properties/, except *_test.cc (cli/ is not simulated: it may read the wall
//    clock for its progress line and fork workers). Comments and string literals are blanked
//    before matching, so prose may mention the banned names. A line that really needs one
//    (nothing in simulated code should) can carry `tidy:allow <reason>`.
// 2. The include matrix (ARCHITECTURE §5): which top-level folders a non-test file may include
//    from (base → nothing; engine → base; optimistic → engine, base; oracles → optimistic's
//    interface headers, engine, base; properties → oracles, optimistic, engine, base, never sim;
//    sim → everything below; conformance → oracles, engine, base; cli → anything). Tests
//    (*_test.cc, */testing/*, properties/suites/, bench/) may include anything.
// 3. The function-length ratchet: no function in a non-test .cc file runs over 70 lines, except
//    those listed in base/long_functions.txt with their length today; a listed function may only
//    shrink (the test fails when one grew, or when a listed length is stale, so the list is
//    tightened in the same commit that shortens it).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
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
      // Built piecewise: GCC 12's -Wrestrict misfires on `")" + substr + "\""` here.
      std::string close(1, ')');
      close.append(src, i + 2, open - i - 2);
      close.push_back('"');
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
  for (const char* dir : {"base", "engine", "optimistic", "sim", "oracles", "properties"}) {
    std::error_code ec;
    if (!fs::is_directory(root / dir, ec)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / dir, ec)) {
      if (!entry.is_regular_file()) continue;
      const fs::path& p = entry.path();
      const std::string ext = p.extension().string();
      if (ext != ".h" && ext != ".cc" && ext != ".hpp" && ext != ".cpp") continue;
      const std::string name = p.filename().string();
      if (name.size() > 8 && name.compare(name.size() - 8, 8, "_test.cc") == 0) continue;
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

// --- 2. the include matrix ----------------------------------------------------------------

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

// Every .h/.cc of ours, relative to the root, sorted (build trees and node_modules skipped).
std::vector<std::string> AllSources() {
  namespace fs = std::filesystem;
  const fs::path root = RINDLE_SOURCE_DIR;
  std::vector<std::string> files;
  for (const char* dir : {"base", "engine", "optimistic", "oracles", "properties", "sim",
                          "conformance", "cli", "corpus", "bench"}) {
    std::error_code ec;
    if (!fs::is_directory(root / dir, ec)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / dir, ec)) {
      if (!entry.is_regular_file()) continue;
      const std::string ext = entry.path().extension().string();
      if (ext != ".h" && ext != ".cc") continue;
      const std::string rel = fs::relative(entry.path(), root).generic_string();
      if (rel.find("node_modules") != std::string::npos) continue;
      files.push_back(rel);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

bool IsTestFile(const std::string& rel) {
  const auto ends_with = [&](const std::string& s) {
    return rel.size() >= s.size() && rel.compare(rel.size() - s.size(), s.size(), s) == 0;
  };
  return ends_with("_test.cc") || rel.find("/testing/") != std::string::npos ||
         rel.rfind("properties/suites/", 0) == 0 || rel.rfind("bench/", 0) == 0 ||
         rel.rfind("corpus/", 0) == 0 || ends_with("_for_test.h");
}

// The layer a path belongs to: its top-level folder.
std::string LayerOf(const std::string& rel) { return rel.substr(0, rel.find('/')); }

// The headers of optimistic/ that oracles may include: contracts and value types the oracles
// share (so the same mutators run on them), never the backend.
const std::set<std::string>& OptimisticInterfaces() {
  static const std::set<std::string> s = {"optimistic/mutation_tx.h", "optimistic/source.h",
                                          "optimistic/pending.h", "optimistic/write_set.h"};
  return s;
}

// Empty when `from` may include `header`, else why not.
std::string IncludeViolation(const std::string& from, const std::string& header) {
  static const std::map<std::string, std::set<std::string>> allowed = {
      {"base", {"base"}},
      {"engine", {"engine", "base"}},
      {"optimistic", {"optimistic", "engine", "base"}},
      {"oracles", {"oracles", "engine", "base"}},
      {"properties", {"properties", "oracles", "optimistic", "engine", "base"}},
      {"sim", {"sim", "properties", "oracles", "optimistic", "engine", "base"}},
      {"conformance", {"conformance", "oracles", "engine", "base"}},
  };
  const std::string layer = LayerOf(from);
  const std::string target = LayerOf(header);
  static const std::set<std::string> ours = {"base",       "engine", "optimistic", "oracles",
                                             "properties", "sim",    "conformance", "cli",
                                             "corpus",     "bench"};
  if (!ours.count(target)) return "";  // a library header (absl/, nlohmann/, gtest/ ...)
  const auto it = allowed.find(layer);
  if (it == allowed.end()) return "";  // cli/ may include anything
  if (it->second.count(target)) return "";
  if (layer == "oracles" && OptimisticInterfaces().count(header)) return "";
  return layer + "/ may not include " + target + "/ (ARCHITECTURE.md §5)";
}

std::vector<std::string> QuotedIncludes(const std::string& source) {
  static const std::regex include_re(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::vector<std::string> out;
  std::istringstream lines(source);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_search(line, m, include_re)) out.push_back(m[1]);
  }
  return out;
}

TEST(TidyTest, IncludeMatrixRejectsUpwardIncludes) {
  EXPECT_EQ(IncludeViolation("engine/db.cc", "base/check.h"), "");
  EXPECT_NE(IncludeViolation("engine/db.cc", "optimistic/backend.h"), "");
  EXPECT_NE(IncludeViolation("base/rng.h", "engine/value.h"), "");
  EXPECT_NE(IncludeViolation("properties/world.h", "sim/run/simulation.h"), "");
  EXPECT_NE(IncludeViolation("oracles/plain_store.h", "optimistic/backend.h"), "");
  EXPECT_EQ(IncludeViolation("oracles/plain_store.h", "optimistic/mutation_tx.h"), "");
  EXPECT_NE(IncludeViolation("conformance/case_gen.cc", "sim/workload/schema.h"), "");
  EXPECT_EQ(IncludeViolation("cli/main.cc", "conformance/case_gen.h"), "");
  EXPECT_EQ(IncludeViolation("engine/db.cc", "absl/status/status.h"), "");
}

TEST(TidyTest, EveryIncludeFollowsTheLayerMatrix) {
  const std::vector<std::string> files = AllSources();
  ASSERT_FALSE(files.empty()) << "no sources found under " << RINDLE_SOURCE_DIR;
  std::string report;
  for (const std::string& rel : files) {
    if (IsTestFile(rel)) continue;
    const std::string src = ReadFile(std::filesystem::path(RINDLE_SOURCE_DIR) / rel);
    for (const std::string& header : QuotedIncludes(src)) {
      const std::string why = IncludeViolation(rel, header);
      if (!why.empty()) report += rel + ": #include \"" + header + "\": " + why + "\n";
    }
  }
  EXPECT_EQ(report, "") << "include matrix violations:\n" << report;
}

// --- 3. the function-length ratchet --------------------------------------------------------

constexpr int kMaxFunctionLines = 70;

struct FunctionSpan {
  std::string name;  // e.g. "Simulation::Act"
  int first_line = 0;
  int lines = 0;  // from the signature's first line to the closing brace, inclusive
};

// Function definitions at column 0 of a .cc file (Google style: namespaces do not indent), with
// comments and strings blanked first. A signature may span lines; lambdas and initializers
// (`= {`) are not functions; class/struct/enum/namespace bodies are skipped over by name.
std::vector<FunctionSpan> FunctionsOf(const std::string& source) {
  const std::string code = StripCommentsAndStrings(source);
  std::vector<std::string> lines;
  {
    std::istringstream in(code);
    std::string l;
    while (std::getline(in, l)) lines.push_back(l);
  }
  static const std::regex keyword_re(
      R"(^(namespace|struct|class|enum|union|extern|using|typedef|template\s*<[^>]*>\s*(struct|class))\b)");
  static const std::regex name_re(R"(([A-Za-z_~][\w:~<>]*(operator\S*)?)\s*\($)");
  std::vector<FunctionSpan> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& first = lines[i];
    if (first.empty() || !(std::isalpha(static_cast<unsigned char>(first[0])) ||
                           first[0] == '_' || first[0] == '~')) {
      continue;
    }
    if (std::regex_search(first, keyword_re)) continue;
    // Gather the signature up to the first '{' or ';' at this statement.
    std::string sig;
    size_t j = i;
    size_t brace_col = std::string::npos;
    for (; j < lines.size() && j < i + 12; ++j) {
      const size_t b = lines[j].find('{');
      const size_t s = lines[j].find(';');
      if (s != std::string::npos && (b == std::string::npos || s < b)) {
        sig.clear();
        break;
      }
      if (b != std::string::npos) {
        sig += lines[j].substr(0, b);
        brace_col = b;
        break;
      }
      sig += lines[j] + " ";
    }
    if (brace_col == std::string::npos || sig.empty()) continue;
    const size_t paren = sig.find('(');
    if (paren == std::string::npos) continue;
    if (sig.substr(0, paren).find('=') != std::string::npos) continue;  // initializer / lambda
    std::smatch m;
    const std::string head = sig.substr(0, paren + 1);
    std::string name = std::regex_search(head, m, name_re) ? std::string(m[1]) : head;
    // Match the body's braces from the '{'.
    int depth = 0;
    size_t k = j;
    bool done = false;
    for (; k < lines.size() && !done; ++k) {
      const size_t from = k == j ? brace_col : 0;
      for (size_t c = from; c < lines[k].size(); ++c) {
        if (lines[k][c] == '{') ++depth;
        if (lines[k][c] == '}' && --depth == 0) {
          done = true;
          break;
        }
      }
      if (done) break;
    }
    if (!done) break;
    out.push_back({name, static_cast<int>(i) + 1, static_cast<int>(k - i) + 1});
    i = k;
  }
  return out;
}

TEST(TidyTest, FunctionScannerMeasuresDefinitions) {
  const std::string sample =
      "namespace a {\n"                      // 1
      "int Short(int x) {\n"                 // 2
      "  return x;  // {\n"                  // 3
      "}\n"                                  // 4
      "const std::vector<int> kV = {\n"      // 5
      "  1, 2};\n"                           // 6
      "absl::Status Foo::Bar(\n"             // 7
      "    int y) const {\n"                 // 8
      "  auto f = [&]() { return \"}\"; };\n"  // 9
      "  if (y) {\n"                         // 10
      "  }\n"                                // 11
      "}\n"                                  // 12
      "struct S {\n"                         // 13
      "  int F() { return 1; }\n"            // 14
      "};\n"                                 // 15
      "}  // namespace a\n";                 // 16
  const std::vector<FunctionSpan> fns = FunctionsOf(sample);
  ASSERT_EQ(fns.size(), 2u);
  EXPECT_EQ(fns[0].name, "Short");
  EXPECT_EQ(fns[0].lines, 3);
  EXPECT_EQ(fns[1].name, "Foo::Bar");
  EXPECT_EQ(fns[1].first_line, 7);
  EXPECT_EQ(fns[1].lines, 6);
}

// base/long_functions.txt: "<path> <function> <lines>" per line; '#' starts a comment.
std::map<std::pair<std::string, std::string>, int> LongFunctionAllowance() {
  std::map<std::pair<std::string, std::string>, int> allow;
  std::istringstream in(ReadFile(std::filesystem::path(RINDLE_SOURCE_DIR) / "base" /
                                 "long_functions.txt"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string path, name;
    int lines = 0;
    if (fields >> path >> name >> lines) allow[{path, name}] = lines;
  }
  return allow;
}

TEST(TidyTest, LongFunctionsOnlyShrink) {
  const auto allow = LongFunctionAllowance();
  std::map<std::pair<std::string, std::string>, int> measured;
  std::string report;
  for (const std::string& rel : AllSources()) {
    if (IsTestFile(rel) || rel.size() < 3 || rel.compare(rel.size() - 3, 3, ".cc") != 0) continue;
    for (const FunctionSpan& f :
         FunctionsOf(ReadFile(std::filesystem::path(RINDLE_SOURCE_DIR) / rel))) {
      if (f.lines <= kMaxFunctionLines) continue;
      int& m = measured[{rel, f.name}];
      m = std::max(m, f.lines);
    }
  }
  for (const auto& [key, lines] : measured) {
    const auto it = allow.find(key);
    if (it == allow.end()) {
      report += key.first + ":" + key.second + " has " + std::to_string(lines) +
                " lines (max " + std::to_string(kMaxFunctionLines) +
                "): split it along a named seam\n";
    } else if (lines > it->second) {
      report += key.first + ":" + key.second + " grew from " + std::to_string(it->second) +
                " to " + std::to_string(lines) + " lines: the list only shrinks\n";
    }
  }
  for (const auto& [key, lines] : allow) {
    const auto it = measured.find(key);
    const int now = it == measured.end() ? 0 : it->second;
    if (now < lines) {
      report += "base/long_functions.txt: " + key.first + " " + key.second + " is listed at " +
                std::to_string(lines) + " but is now " +
                (now == 0 ? std::string("within the limit (drop the line)")
                          : std::to_string(now) + " lines (lower it)") +
                "\n";
    }
  }
  EXPECT_EQ(report, "") << "function-length ratchet (ARCHITECTURE.md §5):\n" << report;
}

}  // namespace
