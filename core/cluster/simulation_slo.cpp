// Whether a finished request met its SLO (the scenario's, or its client's SLO class): goodput
// counts the requests that met every target.

#include "cluster/simulation_state.h"

namespace blis::cluster {

bool Simulation::State::meets_slo(const RequestRecord& r) const {
  const scenario::Slo* slo = &scenario->slo;
  const auto& client_class = r.gen.slo_class;
  if (!client_class.empty()) {
    for (const auto& c : scenario->slo_classes) {
      if (c.name == client_class) slo = &c.slo;
    }
  }
  const double ttft_ms = to_millis(r.first_token - r.sent);
  const double e2e_ms = to_millis(r.finish - r.sent);
  if (slo->ttft_ms && ttft_ms > *slo->ttft_ms) return false;
  if (slo->e2e_ms && e2e_ms > *slo->e2e_ms) return false;
  if (slo->itl_ms && r.output_tokens > 1) {
    const double tpot = (e2e_ms - ttft_ms) / static_cast<double>(r.output_tokens - 1);
    if (tpot > *slo->itl_ms) return false;
  }
  return true;
}

}  // namespace blis::cluster
