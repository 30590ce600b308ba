// str_util.h — string concatenation that accepts std::string_view. This Debian Abseil
// (20220623) has its own absl::string_view distinct from std::string_view, so absl::StrCat
// rejects std::string_view arguments; rindle::StrCat/StrAppend convert them. Stateless.
#pragma once

#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace rindle {

template <typename T>
inline const T& StrArg(const T& t) {
  return t;
}
inline absl::string_view StrArg(std::string_view s) { return {s.data(), s.size()}; }

template <typename... Args>
std::string StrCat(const Args&... args) {
  return absl::StrCat(StrArg(args)...);
}

template <typename... Args>
void StrAppend(std::string* out, const Args&... args) {
  absl::StrAppend(out, StrArg(args)...);
}

}  // namespace rindle
