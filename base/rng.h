// rng.h — the simulation's own seeded pseudo-random generator: splitmix64 seeding feeding
// xoshiro256** (Blackman & Vigna), with our own integer range reduction. Holds state (256 bits).
//
// Every random choice a simulated run makes comes from an Rng forked off the run's root seed
// (ARCHITECTURE.md §2): one stream per purpose ("workload", "network", "faults", "client/3"), so
// adding a draw to one purpose never reshuffles the others. The output sequence for a seed is
// fixed by this file alone — no std:: distributions, no absl::BitGen, no global state — so it
// is identical across processes, standard libraries and platforms.
//
// Ranges:  Below(n) ∈ [0, n) (n > 0, unbiased: rejection of the short top bucket);
//          Range(lo, hi) ∈ [lo, hi] inclusive (lo <= hi; the full int64 range is allowed);
//          Chance(num, den) is true with probability exactly num/den (den > 0, num <= den).
// Preconditions are CHECKed (they are programmer errors, not input errors).
//
// Fork(purpose) derives a child stream from the current state and an FNV-1a-64 hash of
// `purpose` WITHOUT advancing the parent. Forking the same purpose twice from the same parent
// state yields the same child: give each purpose a distinct name (e.g. "client/" + index).
//
// Example:
//   rindle::sim::Rng root(seed);
//   rindle::sim::Rng net = root.Fork("network");
//   int64_t latency_ms = net.Range(5, 80);
//   if (net.Chance(1, 100)) { /* drop the message */ }
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/check.h"

namespace rindle::sim {

class Rng {
 public:
  // Seeds the 256-bit state with four splitmix64 outputs of `seed` (never all-zero).
  explicit Rng(uint64_t seed);

  // Next raw 64-bit output of xoshiro256**.
  uint64_t Next();

  // Uniform integer in [0, n). Requires n > 0.
  uint64_t Below(uint64_t n);

  // Uniform integer in [lo, hi], inclusive. Requires lo <= hi.
  int64_t Range(int64_t lo, int64_t hi);

  // True with probability num/den. Requires den > 0 and num <= den.
  bool Chance(uint32_t num, uint32_t den);

  // An independent stream derived from this generator's current state and `purpose`; does not
  // advance this generator.
  Rng Fork(std::string_view purpose) const;

  // A uniformly chosen element of `items`. Requires !items.empty(). The reference is into
  // `items`.
  template <class T>
  const T& Pick(const std::vector<T>& items) {
    RINDLE_CHECK_MSG(!items.empty(), "Rng::Pick on an empty vector");
    return items[static_cast<size_t>(Below(items.size()))];
  }

  // The raw state, for tests and for "final random state" determinism comparisons.
  const std::array<uint64_t, 4>& state() const { return s_; }

  friend bool operator==(const Rng& a, const Rng& b) { return a.s_ == b.s_; }

 private:
  std::array<uint64_t, 4> s_;
};

// 64-bit FNV-1a of `bytes`: a stable string hash (std::hash is implementation-defined).
uint64_t Fnv1a64(std::string_view bytes);

// One splitmix64 step: advances *state and returns the mixed output.
uint64_t SplitMix64(uint64_t* state);

}  // namespace rindle::sim
