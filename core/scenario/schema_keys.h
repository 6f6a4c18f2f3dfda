#pragma once
// The keys each object of a blis/scenario/v1 document accepts. The decoder reads with these
// lists (anything else is an "unknown key" error) and the docs test checks that every one
// appears in docs/scenario.md, so the reference cannot drift from the code.

#include <string>
#include <vector>

namespace blis::scenario::keys {

struct ObjectKeys {
  const char* object;  // where it appears, e.g. "pools[]"
  std::vector<std::string> keys;
};

extern const std::vector<std::string> kRoot;
extern const std::vector<std::string> kHorizon;
extern const std::vector<std::string> kCatalog;
extern const std::vector<std::string> kPool;
extern const std::vector<std::string> kParallelism;
extern const std::vector<std::string> kEngine;
extern const std::vector<std::string> kRouter;
extern const std::vector<std::string> kScorer;
extern const std::vector<std::string> kWorkload;
extern const std::vector<std::string> kClient;
extern const std::vector<std::string> kSpecAcceptance;
extern const std::vector<std::string> kAdapter;
extern const std::vector<std::string> kLoad;
extern const std::vector<std::string> kStage;
extern const std::vector<std::string> kArrival;
extern const std::vector<std::string> kDist;
extern const std::vector<std::string> kPrefix;
extern const std::vector<std::string> kSharedPrefix;
extern const std::vector<std::string> kTrace;
extern const std::vector<std::string> kSlo;
extern const std::vector<std::string> kSloClass;
extern const std::vector<std::string> kOutputs;
extern const std::vector<std::string> kNetwork;

// Every object above plus engine.args (from the rules), for the docs test.
std::vector<ObjectKeys> all_objects();

}  // namespace blis::scenario::keys
