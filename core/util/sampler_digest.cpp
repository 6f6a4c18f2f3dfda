#include "util/sampler_digest.h"

#include "util/digest.h"
#include "util/rng.h"

namespace blis {

std::uint64_t sampler_digest(std::uint64_t seed, int draws_per_sampler) {
  Rng rng = Rng::stream(seed, "sampler-digest");
  Digest d;
  const double weights[] = {0.1, 0.0, 2.5, 1.0, 0.4};
  for (int i = 0; i < draws_per_sampler; ++i) {
    d.add_u64(rng.next_u64());
    d.add_double(rng.uniform01());
    d.add_i64(rng.uniform_int(-7, 1000003));
    d.add_double(rng.exponential(3.5));
    d.add_double(rng.normal(10.0, 2.0));
    d.add_double(rng.lognormal_mean_std(500.0, 250.0));
    d.add_double(rng.gamma(0.25 + (i % 7), 2.0));
    d.add_u64(rng.weighted_choice(weights));
  }
  return d.value();
}

}  // namespace blis
