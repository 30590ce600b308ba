// diff.h — a short, readable description of how two JSON documents differ, for property
// failures ("a minimal diff of expected versus actual", SPEC §4). Stateless.
//
// JsonDiff walks both documents in parallel (object keys in sorted order, arrays by index) and
// reports up to `max_lines` differences, one per line: `<path>: expected <e>, got <a>` where
// path is `$`, `$.key`, `$[3]`...; a missing key or element is written `(missing)`; arrays of
// different lengths also report the lengths. Numbers compare by value (3 == 3.0). Values are
// abbreviated to ~120 characters. Returns "" exactly when the documents are equal.
// Source: SPEC §4 (failure reports).
#pragma once

#include <string>

#include "engine/schema.h"
#include "nlohmann/json.hpp"

namespace rindle {

std::string JsonDiff(const nlohmann::json& expected, const nlohmann::json& actual,
                     int max_lines = 5);

// TablesDiff compares two table sets in PlainTablesToJson's shape ({table: [row]}, a row an
// array of column values) by primary key, naming what a reader needs:
//   `issue[id=3].title: expected "a", got "b"`
//   `issue[id=4]: expected row {"id":4,...}, got (missing)` (or the reverse)
// A table the schema does not know, or whose rows are not column arrays, falls back to
// JsonDiff's positional paths (`$.table[1][2]`). Returns "" exactly when both are equal.
std::string TablesDiff(const nlohmann::json& expected, const nlohmann::json& actual,
                       const Schema& schema, int max_lines = 5);

}  // namespace rindle
