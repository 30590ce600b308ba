#include "sim/runner.h"

#include "sim/simulation.h"

namespace rindle::sim {

RunResult RunSeed(const RunOptions& options) {
  Simulation sim(options);
  return sim.Run();
}

}  // namespace rindle::sim
