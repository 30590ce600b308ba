// status_macros.h — early-return helpers for absl::Status / absl::StatusOr (this Abseil has no
// ABSL_RETURN_IF_ERROR). Stateless.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define RINDLE_CONCAT_INNER(a, b) a##b
#define RINDLE_CONCAT(a, b) RINDLE_CONCAT_INNER(a, b)

// Returns the status from the enclosing function when `expr` is not OK.
#define RETURN_IF_ERROR(expr)                               \
  do {                                                      \
    ::absl::Status rindle_status_ = (expr);                 \
    if (!rindle_status_.ok()) return rindle_status_;        \
  } while (0)

// `ASSIGN_OR_RETURN(auto x, StatusOrExpr());` — binds the value or returns the status.
#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL(RINDLE_CONCAT(rindle_statusor_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  lhs = std::move(tmp).value()
