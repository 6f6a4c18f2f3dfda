// The KV connector cases of the ext format (c*, o*): not implemented yet. The input is
// refused with a diagnostic at /connector, so `blis conform` never prints a trace that
// ignores the connector.
#include "engine/vllm/conform/conform_ext_extension.h"

namespace blis::vllm::conform {
namespace {

class UnsupportedConnector final : public ExtExtension {
 public:
  void take_input(nlohmann::json& doc, Diagnostics& diags) override {
    diags.push_back({"/connector", "KV connector cases are not supported yet"});
    doc.erase("connector");
  }
};

}  // namespace

std::unique_ptr<ExtExtension> make_connector_extension(const nlohmann::json& doc) {
  if (!doc.is_object() || !doc.contains("connector")) return nullptr;
  return std::make_unique<UnsupportedConnector>();
}

}  // namespace blis::vllm::conform
