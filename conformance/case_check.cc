#include "conformance/case_check.h"

#include <string>

#include "base/str_util.h"
#include "oracles/diff.h"

namespace rindle::conformance {
namespace {

using json = nlohmann::json;

constexpr int kDiffLines = 8;

// Compares our engine with one expected step; "" when it matches.
std::string CompareStep(const EngineRun& run, const ExpectedStep& expected) {
  absl::StatusOr<json> folded = run.Folded();
  if (!folded.ok()) return StrCat("cannot present our folded events: ", folded.status().message());
  absl::StatusOr<json> materialized = run.Materialized();
  if (!materialized.ok()) {
    return StrCat("cannot read the engine's materialization: ", materialized.status().message());
  }
  std::string diff = JsonDiff(*materialized, *folded, kDiffLines);
  if (!diff.empty()) {
    return StrCat("events==view: our folded events (got) differ from the engine's own "
                  "materialization (expected):\n", diff);
  }
  if (expected.requery) {
    diff = JsonDiff(*expected.requery, ProjectOnto(*folded, *expected.requery), kDiffLines);
    if (!diff.empty()) {
      return StrCat("data differs from the real engine's fresh requery (its incremental result "
                    "was wrong at this step; expected = requery, got = ours):\n", diff);
    }
    return "";
  }
  diff = JsonDiff(expected.data, *folded, kDiffLines);
  if (!diff.empty()) {
    return StrCat("data differs (expected = real engine, got = ours):\n", diff);
  }
  return "";
}

CaseResult Fail(CaseResult r, std::string step, std::string detail) {
  r.ok = false;
  r.step = std::move(step);
  r.detail = std::move(detail);
  return r;
}

// The engine refused the case's input at `path`: an input error, except a feature the engine
// does not support yet (a real conformance gap, so a failure).
CaseResult Refused(CaseResult r, std::string step, const std::string& path, const absl::Status& s) {
  const bool input = !absl::IsUnimplemented(s);
  r = Fail(std::move(r), std::move(step), StrCat("engine error: ", s.message()));
  if (input) {
    r.input_error = true;
    r.input_path = path;
    r.detail = StrCat("the engine refused the case's input: ", s.message());
  }
  return r;
}

}  // namespace

json ProjectOnto(const json& actual, const json& shape) {
  if (actual.is_object() && shape.is_object()) {
    json out = json::object();
    for (const auto& [k, v] : shape.items()) {
      auto it = actual.find(k);
      if (it != actual.end()) out[k] = ProjectOnto(*it, v);
    }
    return out;
  }
  if (actual.is_array() && shape.is_array()) {
    json out = json::array();
    for (size_t i = 0; i < actual.size(); ++i) {
      out.push_back(i < shape.size() ? ProjectOnto(actual[i], shape[i]) : actual[i]);
    }
    return out;
  }
  return actual;
}

CaseResult CheckPeerCase(const PeerCase& c, const PeerExpected& expected) {
  CaseResult r;
  r.name = c.name;
  EngineRun run;
  if (absl::Status s = run.Init(c.schema, c.rows); !s.ok()) {
    return Refused(std::move(r), "hydrate", "$.rows", s);
  }
  if (absl::Status s = run.Register(c.ast); !s.ok()) {
    return Refused(std::move(r), "hydrate", "$.ast", s);
  }
  if (std::string d = CompareStep(run, expected.hydrate); !d.empty()) {
    return Fail(std::move(r), "hydrate", std::move(d));
  }
  r.steps_checked = 1;
  for (size_t t = 0; t < c.txns.size(); ++t) {
    const std::string step = StrCat("txn ", t);
    // A write our engine refuses stays a failure: the real engine recorded it (it accepts, say,
    // a remove of a row that is not there), so refusing it is a difference.
    if (absl::Status s = run.Apply(c.txns[t]); !s.ok()) {
      return Fail(std::move(r), step, StrCat("engine error: ", s.message()));
    }
    if (std::string d = CompareStep(run, expected.txns[t]); !d.empty()) {
      return Fail(std::move(r), step, std::move(d));
    }
    ++r.steps_checked;
  }
  r.ok = true;
  return r;
}

}  // namespace rindle::conformance
