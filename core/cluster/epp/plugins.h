#pragma once
// The EPP plugin registry: every plugin type an llm-d EndpointPickerConfig may name (llm-d
// inference scheduler, which now carries the Gateway API Inference Extension's EPP), with
// its parameters, how far the simulator expresses it and the upstream file holding its rule.
// The config loader reads parameters against it (unknown ones are errors, with did-you-mean)
// and docs/llm-d-parity.md's matrix is generated from it (parity_markdown()).

#include <string>
#include <vector>

namespace blis::cluster::epp {

// The upstream repository every `source` below is a path in.
inline constexpr const char* kUpstreamRepo = "llm-d/llm-d-inference-scheduler";
inline constexpr const char* kUpstreamCommit = "520af47896e5f06e43d09aca281a1149187b0ffd";

enum class PluginKind {
  kFilter,
  kScorer,
  kPicker,
  kProfileHandler,
  kDecider,
  kSaturationDetector,
  kFlowPolicy,  // flow control: fairness, ordering and usage-limit policies
  kDataLayer,   // data sources, extractors, producers, parsers: the simulator's own data layer
  kAdmitter,    // request control's AdmitRequest plugins (director.go runAdmissionPlugins)
  kOther,
};

enum class Support {
  kSupported,      // the upstream rule, on the simulator's signals
  kApproximated,   // the rule, on an approximation of its input (the note says which)
  kAccepted,       // loads and has no effect (the simulator provides what it would)
  kNotExpressible  // refused: the simulator has no input it could read
};

// kSelector: a list of label-selector requirements {key, operator, values} (matchExpressions).
// kStringList: a list of strings (by-label's validValues). kAny: any JSON value, accepted as a
// whole (a parameter the simulator has no use for, e.g. request-attribute-reporter's CEL
// attributes).
enum class ParamType {
  kInt,
  kNumber,
  kBool,
  kString,
  kDuration,
  kObject,
  kSelector,
  kStringList,
  kAny
};

struct ParamInfo {
  std::string name;
  ParamType type = ParamType::kNumber;
  std::string default_text;
  bool used = true;                  // false: accepted, no effect in the simulator
  std::vector<std::string> subkeys;  // kObject: the keys it may hold (empty: any)
};

struct PluginInfo {
  std::string type;
  PluginKind kind = PluginKind::kScorer;
  Support support = Support::kSupported;
  std::vector<ParamInfo> params;
  std::string source;  // path in kUpstreamRepo
  std::string rule;    // what the plugin does, upstream
  std::string note;    // how the simulator expresses it
};

const std::vector<PluginInfo>& plugin_registry();
// The request-control, request-handling and data-layer part of the registry (admitters,
// pre-request header handlers, producers, data sources, parsers), in the order the matrix lists
// them (plugins_request_control.cpp); plugin_registry() appends it to the scheduling plugins.
std::vector<PluginInfo> request_control_plugins();
const PluginInfo* find_plugin(const std::string& type);
std::vector<std::string> plugin_types();
const char* kind_name(PluginKind k);
const char* support_name(Support s);

// The generated block of docs/llm-d-parity.md, between these markers (inclusive).
inline constexpr const char* kParityBegin = "<!-- BEGIN GENERATED: blis epp-plugins -->";
inline constexpr const char* kParityEnd = "<!-- END GENERATED: blis epp-plugins -->";
std::string parity_markdown();

}  // namespace blis::cluster::epp
