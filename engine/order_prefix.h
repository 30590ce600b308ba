// order_prefix.h — a compact, order-preserving 64-bit image of one cell, so building an ordered
// index can sort flat (prefix, row) pairs and compare full rows only on prefix ties. Stateless.
//
// Guarantee (the only one callers may rely on): OrderPrefix is monotone under CompareValues
// (value.h, SPEC §2.1): CompareValues(a, b) < 0 implies OrderPrefix(a) <= OrderPrefix(b); hence
// OrderPrefix(a) < OrderPrefix(b) implies a sorts before b, and equal prefixes say nothing (the
// caller falls back to the full comparison). Layout: the kind rank in the top 2 bits (null < bool
// < number < string, CompareValues' cross-kind order), then 62 bits of payload: a bool's value, a
// number's order-preserving IEEE-754 image (ints through double: rounding is monotone; -0 as +0),
// a string's first 7 bytes big-endian (shorter strings zero-padded: a prefix sorts first), read
// from the cell's tag without touching the text (issue 16: index searches compute it per probe).
#pragma once

#include <cstdint>

#include "engine/value.h"

namespace rindle {

uint64_t OrderPrefix(const Value& v);

// Whether OrderPrefix(v) is exact: two exact values with equal prefixes are equal under
// CompareValues (so a sort may move on to the next cell's prefix). True for null, bools and
// strings of at most 7 bytes without a NUL byte; numbers are conservatively never exact.
bool OrderPrefixExact(const Value& v);

}  // namespace rindle
