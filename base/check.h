// check.h — CHECK-style assertions for programmer errors and broken invariants.
//
// Stateless. A failed CHECK prints the condition (and, for CHECK_EQ & co., both sides) with the
// source location to stderr and aborts. Expected failures (bad input, rejected transactions) are
// absl::Status instead — never a CHECK. Source: ARCHITECTURE.md §3.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

namespace rindle::internal {

[[noreturn]] inline void CheckFail(const char* file, int line, const std::string& what) {
  std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", file, line, what.c_str());
  std::fflush(stderr);
  std::abort();
}

template <typename A, typename B>
std::string CheckOpMessage(const char* expr, const A& a, const B& b) {
  std::ostringstream os;
  os << expr << " (" << a << " vs " << b << ")";
  return os.str();
}

}  // namespace rindle::internal

#define RINDLE_CHECK(cond)                                                   \
  do {                                                                       \
    if (!(cond)) ::rindle::internal::CheckFail(__FILE__, __LINE__, #cond);   \
  } while (0)

#define RINDLE_CHECK_MSG(cond, msg)                                                        \
  do {                                                                                     \
    if (!(cond))                                                                           \
      ::rindle::internal::CheckFail(__FILE__, __LINE__, std::string(#cond) + ": " + (msg)); \
  } while (0)

#define RINDLE_CHECK_OP(op, a, b)                                                        \
  do {                                                                                   \
    const auto& rindle_check_a = (a);                                                    \
    const auto& rindle_check_b = (b);                                                    \
    if (!(rindle_check_a op rindle_check_b))                                             \
      ::rindle::internal::CheckFail(                                                     \
          __FILE__, __LINE__,                                                            \
          ::rindle::internal::CheckOpMessage(#a " " #op " " #b, rindle_check_a, rindle_check_b)); \
  } while (0)

#define RINDLE_CHECK_EQ(a, b) RINDLE_CHECK_OP(==, a, b)
#define RINDLE_CHECK_NE(a, b) RINDLE_CHECK_OP(!=, a, b)
#define RINDLE_CHECK_LT(a, b) RINDLE_CHECK_OP(<, a, b)
#define RINDLE_CHECK_LE(a, b) RINDLE_CHECK_OP(<=, a, b)
#define RINDLE_CHECK_GT(a, b) RINDLE_CHECK_OP(>, a, b)
#define RINDLE_CHECK_GE(a, b) RINDLE_CHECK_OP(>=, a, b)
