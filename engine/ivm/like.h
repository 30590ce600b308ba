// like.h — SQL LIKE / ILIKE matching over UTF-8 (SPEC §2.1). Stateless.
//
// `%` matches any run of code points (including none), `_` exactly one code point, and a
// backslash makes the next pattern character literal. ILIKE folds both sides to lower case first
// (ASCII, Latin-1 Supplement, Latin Extended-A, Greek and Cyrillic — the ranges the app's data
// uses). Invalid UTF-8 bytes are treated as single code points (never an error).
#pragma once

#include <string>
#include <string_view>

namespace rindle {

bool SqlLikeMatch(std::string_view text, std::string_view pattern, bool case_insensitive);
// Lower-cases `s` (the ILIKE folding above).
std::string SqlLowerUtf8(std::string_view s);

}  // namespace rindle
