// merge_fixture.h — the one small table of the engine's multi-source merge tests (merge_test.cc,
// source_set_test.cc, merge_model_test.cc): `t` (id string pk, v number, owner nullable string)
// and its row builder. Stateless, header-only test support.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/schema.h"
#include "engine/value.h"

namespace rindle::merge_fixture {

// The shape of table `t`: columns (id, v, owner?), pk (id).
inline TableSpec TSpec() {
  TableSpec s;
  s.columns = {{"id", ColumnType::kString, false},
               {"v", ColumnType::kNumber, false},
               {"owner", ColumnType::kString, true}};
  s.primary_key = {0};
  return s;
}

// A full-width row of `t`.
inline RowValues R(const std::string& id, int64_t v,
                   std::optional<std::string> owner = std::nullopt) {
  return {Value::String(id), Value::Int(v), owner ? Value::String(*owner) : Value::Null()};
}

}  // namespace rindle::merge_fixture
