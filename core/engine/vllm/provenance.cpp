#include "engine/vllm/provenance.h"

namespace blis::vllm {

engine::Provenance engine_provenance() {
  engine::Provenance p;
  p.kind = "vllm";
  p.release = std::string(kModelledRelease);
  p.upstream_repo = kUpstreamRepo;
  p.upstream_commit = kUpstreamCommit;
  return p;
}

}  // namespace blis::vllm
