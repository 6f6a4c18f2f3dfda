#pragma once
// The built-in catalog as compiled into the library: catalog_gen (catalog/tools) validates
// every JSON file at build time and writes them into a generated .cpp defining these.

#include <cstddef>

#include "catalog/entries.h"

namespace blis::catalog::detail {

struct EmbeddedEntry {
  Kind kind;
  const char* path;  // relative to catalog/, e.g. "gpus/H100-SXM-80GB.json"
  const char* json;  // the file's text
};

extern const EmbeddedEntry kEmbeddedEntries[];
extern const std::size_t kEmbeddedEntryCount;

}  // namespace blis::catalog::detail
