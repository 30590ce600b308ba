#include "cli/check_case.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>

#include "conformance/case_check.h"
#include "conformance/case_gen.h"
#include "conformance/json_file.h"
#include "conformance/peer_case.h"
#include "conformance/zql_diff_case.h"
#include "base/str_util.h"
#include "cli/flags.h"

namespace rindle::sim::cli {

const char kCheckCaseHelp[] = R"(rindle-sim check-case — run recorded conformance cases through our engine.

Usage:
  rindle-sim check-case FILE|DIR...

Each FILE is a rindle-peer-case/1 input (case-NNNN.json, recorded result in the sibling
case-NNNN.expected.json; format in fixtures/README.md) or a zql-diff case (../shared/fixtures/
zql-diff). A DIR means every *.json in it except *.expected.json and non-case files
(index.json, errors.json). For every step (hydrate, then each txn or push) our folded change
events must equal the engine's own materialization and the recorded data (or, where the
recording's checks.mismatches names a step, the real engine's fresh requery).

Prints one line per case:
  pass <name>
  FAIL <name> step=<hydrate|txn N|push N>     then the diff (expected = recorded, got = ours)
  ERROR <file>: <why>                         unreadable or malformed input
and a summary. Exit 0 if every case passed, 1 if any failed, 2 on usage or input errors.
)";

const char kGenCasesHelp[] = R"(rindle-sim gen-cases — write seeded rindle-peer-case/1 inputs.

Usage:
  rindle-sim gen-cases --seeds A..B --out DIR [--app DIR]

Options:
  --seeds A..B   one case per seed (inclusive range, or one seed N)
  --out DIR      where to write case-<seed>.json (created if missing)
  --app DIR      the app fixtures (app-schema.json, queries/); default: the project's
                 fixtures/app

Each case is the real app's schema, one of its queries (limits sometimes shrunk), random initial
rows and 6-14 random write txns over parents and children (conformance/case_gen.h). The same
seed always writes the same file. Record the expected files with the real engine:
  node conformance/node/record.mjs DIR
then check them: rindle-sim check-case DIR. Exit 0 ok, 2 on usage or I/O errors.
)";

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

int Usage(const char* command, const std::string& message) {
  std::fprintf(stderr, "rindle-sim %s: %s\nTry 'rindle-sim %s --help'.\n", command,
               message.c_str(), command);
  return 2;
}

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void PrintResult(const conformance::CaseResult& r) {
  if (r.ok) {
    std::printf("pass %s\n", r.name.c_str());
    return;
  }
  std::printf("FAIL %s step=%s\n", r.name.c_str(), r.step.c_str());
  std::string indented = "  ";
  for (char ch : r.detail) {
    indented += ch;
    if (ch == '\n') indented += "  ";
  }
  std::printf("%s\n", indented.c_str());
}

// One input file → its result; an input error is returned as a Status.
absl::StatusOr<conformance::CaseResult> RunFile(const std::string& path, bool from_dir,
                                                bool* skipped) {
  *skipped = false;
  absl::StatusOr<json> j = conformance::ReadJsonFile(path);
  if (!j.ok()) return j.status();
  if (conformance::LooksLikeZqlDiffCase(*j)) {
    absl::StatusOr<conformance::ZqlDiffCase> c = conformance::ParseZqlDiffCase(*j, path);
    if (!c.ok()) return c.status();
    return conformance::CheckZqlDiffCase(*c);
  }
  const bool has_format = j->is_object() && j->contains("format");
  // In a directory, other JSON documents (index.json, errors.json, ...) are skipped; a file that
  // claims to be a case (a rindle-peer-case/* format, or named case-*) is checked, so a case in an
  // unsupported version is an error, never a silent skip.
  const bool claims_case =
      (has_format && (*j)["format"].is_string() &&
       (*j)["format"].get<std::string>().rfind("rindle-peer-case/", 0) == 0) ||
      std::filesystem::path(path).filename().string().rfind("case-", 0) == 0;
  if (from_dir && has_format && !claims_case) {
    *skipped = true;
    return conformance::CaseResult{};
  }
  absl::StatusOr<conformance::PeerCase> c = conformance::ParsePeerCase(*j, path);
  if (!c.ok()) {
    if (!has_format) {
      return absl::InvalidArgumentError(
          StrCat(path, ": not a case: expected a rindle-peer-case/1 input ({\"format\": \"",
                 conformance::kPeerCaseFormat, "\", ...}) or a zql-diff case ({kind, input, "
                 "expected})"));
    }
    return c.status();
  }
  const std::string expected_path = conformance::ExpectedPathFor(path);
  absl::StatusOr<conformance::PeerExpected> e = conformance::LoadPeerExpected(expected_path, *c);
  if (!e.ok()) {
    if (absl::IsNotFound(e.status())) {
      return absl::NotFoundError(StrCat(path, ": its recorded result ", expected_path,
                                        " cannot be read (record it with "
                                        "conformance/node/record.mjs)"));
    }
    return e.status();
  }
  conformance::CaseResult result = conformance::CheckPeerCase(*c, *e);
  if (result.input_error) {  // a malformed case: exit 2 naming the file and the JSON path
    return absl::InvalidArgumentError(
        StrCat(path, ": ", result.input_path, ": ", result.detail, " (step ", result.step, ")"));
  }
  return result;
}

}  // namespace

int CheckCaseCommand(const std::vector<std::string>& args) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, FlagSpec{});
  if (!parsed.ok()) return Usage("check-case", std::string(parsed.status().message()));
  if (parsed->help) {
    std::fputs(kCheckCaseHelp, stdout);
    return 0;
  }
  if (parsed->positional.empty()) {
    return Usage("check-case", "expected one or more case files or directories");
  }
  // (path, came from a directory)
  std::vector<std::pair<std::string, bool>> files;
  int errors = 0;
  for (const std::string& arg : parsed->positional) {
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<std::string> in_dir;
      for (fs::directory_iterator it(arg, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string p = it->path().string();
        if (it->path().extension() == ".json" && !EndsWith(p, ".expected.json")) {
          in_dir.push_back(p);
        }
      }
      if (ec) {
        std::printf("ERROR %s: cannot list the directory (%s)\n", arg.c_str(),
                    ec.message().c_str());
        ++errors;
        continue;
      }
      std::sort(in_dir.begin(), in_dir.end());
      for (std::string& p : in_dir) files.emplace_back(std::move(p), true);
    } else {
      files.emplace_back(arg, false);
    }
  }
  int passed = 0, failed = 0;
  for (const auto& [path, from_dir] : files) {
    bool skipped = false;
    absl::StatusOr<conformance::CaseResult> r = RunFile(path, from_dir, &skipped);
    if (!r.ok()) {
      std::printf("ERROR %s\n", std::string(r.status().message()).c_str());
      ++errors;
      continue;
    }
    if (skipped) continue;
    PrintResult(*r);
    ++(r->ok ? passed : failed);
    std::fflush(stdout);
  }
  std::printf("check-case: %d cases, %d passed, %d failed, %d input errors\n",
              passed + failed, passed, failed, errors);
  if (errors > 0) return 2;
  return failed > 0 ? 1 : 0;
}

int GenCasesCommand(const std::vector<std::string>& args) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, FlagSpec{{"seeds", "out", "app"}, {}});
  if (!parsed.ok()) return Usage("gen-cases", std::string(parsed.status().message()));
  if (parsed->help) {
    std::fputs(kGenCasesHelp, stdout);
    return 0;
  }
  if (!parsed->positional.empty()) {
    return Usage("gen-cases", StrCat("unexpected argument \"", parsed->positional[0], "\""));
  }
  auto seeds_text = parsed->get("seeds");
  if (!seeds_text) return Usage("gen-cases", "--seeds: required (expected A..B, e.g. 1..500)");
  absl::StatusOr<SeedRange> seeds = ParseSeedRange("seeds", *seeds_text);
  if (!seeds.ok()) return Usage("gen-cases", std::string(seeds.status().message()));
  auto out = parsed->get("out");
  if (!out || out->empty()) return Usage("gen-cases", "--out: required (a directory)");
  const std::string app =
      parsed->get("app").value_or(StrCat(RINDLE_FIXTURES_DIR, "/app"));
  absl::StatusOr<conformance::CaseGenInputs> inputs = conformance::LoadCaseGenInputs(app);
  if (!inputs.ok()) {
    std::fprintf(stderr, "rindle-sim gen-cases: %s\n",
                 std::string(inputs.status().message()).c_str());
    return 2;
  }
  std::error_code ec;
  fs::create_directories(*out, ec);
  if (ec) {
    std::fprintf(stderr, "rindle-sim gen-cases: --out %s: cannot create (%s)\n", out->c_str(),
                 ec.message().c_str());
    return 2;
  }
  uint64_t written = 0;
  for (uint64_t seed = seeds->first;; ++seed) {
    absl::StatusOr<conformance::PeerCase> c = conformance::GenerateCase(*inputs, seed);
    if (!c.ok()) {
      std::fprintf(stderr, "rindle-sim gen-cases: seed %llu: %s\n",
                   static_cast<unsigned long long>(seed),
                   std::string(c.status().message()).c_str());
      return 2;
    }
    char name[64];
    std::snprintf(name, sizeof(name), "case-%06llu.json", static_cast<unsigned long long>(seed));
    absl::Status s =
        conformance::WriteJsonFile((fs::path(*out) / name).string(), PeerCaseToJson(*c));
    if (!s.ok()) {
      std::fprintf(stderr, "rindle-sim gen-cases: %s\n", std::string(s.message()).c_str());
      return 2;
    }
    ++written;
    if (seed == seeds->last) break;
  }
  std::printf("gen-cases: wrote %llu cases (seeds %llu..%llu) to %s\n",
              static_cast<unsigned long long>(written),
              static_cast<unsigned long long>(seeds->first),
              static_cast<unsigned long long>(seeds->last), out->c_str());
  return 0;
}

}  // namespace rindle::sim::cli
