// like_match.h — the fresh-query oracle's own LIKE / ILIKE matcher and UTF-8 lowercasing
// (independent of the engine's engine/ivm/like.h). Stateless.
//
// Patterns: `%` matches any run of code points (also none), `_` exactly one code point, `\`
// makes the next character literal (a trailing `\` is a literal backslash); nothing else is
// special. Matching is on decoded code points; invalid UTF-8 bytes count as one code point each.
// Case-insensitive matching lowercases both sides with Utf8Lower first: ASCII, Latin-1
// Supplement, Latin Extended-A, Greek and Cyrillic capitals map to their small letters (one code
// point to one; İ → i, Ÿ → ÿ); every other code point and invalid bytes pass through unchanged.
// Source: SPEC §2.1 "LIKE uses % and _ case-sensitively, ILIKE case-insensitively".
#pragma once

#include <string>
#include <string_view>

namespace rindle {

bool LikeMatch(std::string_view text, std::string_view pattern, bool case_insensitive);
std::string Utf8Lower(std::string_view text);

}  // namespace rindle
