#include "cluster/spec_acceptance.h"

#include <cmath>

namespace blis::cluster {

double accepted_past(const scenario::SpecAcceptance& m, std::int32_t position) {
  if (position < 0) return 1.0;
  if (m.acceptance_rate) return std::pow(*m.acceptance_rate, static_cast<double>(position + 1));
  const auto i = static_cast<std::size_t>(position);
  return i < m.per_position.size() ? m.per_position[i] : 0.0;
}

std::int32_t draw_accepted(const scenario::SpecAcceptance& m, std::int32_t drafts, Rng& rng) {
  if (drafts <= 0) return 0;
  const double u = rng.uniform01();
  std::int32_t accepted = 0;
  while (accepted < drafts && u < accepted_past(m, accepted)) ++accepted;
  return accepted;
}

}  // namespace blis::cluster
