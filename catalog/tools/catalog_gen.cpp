// catalog_gen: checks every catalog JSON file against its schema and writes them into a C++
// source file, so the library carries the catalog without file I/O at run time.
//
//   catalog_gen OUT.cpp CATALOG_DIR REL_PATH...
//
// REL_PATH is relative to CATALOG_DIR and starts with gpus/, models/, fabrics/ or
// coefficients/, which sets the entry's kind. On any error it prints one line per problem,
//   catalog/models/x.json: /num_key_value_heads: must divide num_attention_heads (32), got 5
// and exits 1 without writing OUT.cpp, which fails the build. Run natively, or under node
// (CMAKE_CROSSCOMPILING_EMULATOR) in the WASM preset.

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "catalog/schema/entry_parser.h"
#include "catalog/schema/references.h"

namespace {

using blis::Diagnostics;
using blis::catalog::Kind;
using blis::catalog::schema::ParsedEntry;

struct Entry {
  std::string rel;
  std::string text;
  ParsedEntry parsed;
};

bool kind_of(const std::string& rel, Kind* kind) {
  const auto slash = rel.find('/');
  const std::string dir = rel.substr(0, slash);
  if (dir == "gpus")
    *kind = Kind::kGpu;
  else if (dir == "models")
    *kind = Kind::kModel;
  else if (dir == "fabrics")
    *kind = Kind::kFabric;
  else if (dir == "coefficients")
    *kind = Kind::kCoefficients;
  else
    return false;
  return true;
}

std::string stem_of(const std::string& rel) {
  std::string name = rel.substr(rel.find('/') + 1);
  const std::string ext = ".json";
  if (name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0) {
    name.resize(name.size() - ext.size());
  }
  return name;
}

const char* kind_enum(Kind k) {
  switch (k) {
    case Kind::kGpu:
      return "Kind::kGpu";
    case Kind::kModel:
      return "Kind::kModel";
    case Kind::kFabric:
      return "Kind::kFabric";
    case Kind::kCoefficients:
      return "Kind::kCoefficients";
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: catalog_gen OUT.cpp CATALOG_DIR REL_PATH...\n");
    return 2;
  }
  const std::string out_path = argv[1];
  const std::string root = argv[2];
  int errors = 0;
  auto report = [&](const std::string& rel, const Diagnostics& d) {
    for (const auto& x : d) {
      std::fprintf(stderr, "catalog/%s: %s\n", rel.c_str(), blis::format_diagnostic(x).c_str());
      if (x.severity == blis::Severity::kError) ++errors;
    }
  };

  std::vector<Entry> entries;
  for (int i = 3; i < argc; ++i) {
    Entry e;
    e.rel = argv[i];
    Kind kind;
    if (!kind_of(e.rel, &kind)) {
      report(e.rel, {{"", "not under gpus/, models/, fabrics/ or coefficients/"}});
      continue;
    }
    std::ifstream in(root + "/" + e.rel, std::ios::binary);
    if (!in) {
      report(e.rel, {{"", "cannot read the file"}});
      continue;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    e.text = ss.str();
    const Diagnostics d = blis::catalog::schema::parse_entry(kind, e.text, "", &e.parsed);
    report(e.rel, d);
    if (blis::has_errors(d)) continue;
    const std::string want = blis::catalog::schema::file_stem_for_id(e.parsed.id);
    if (stem_of(e.rel) != want) {
      report(e.rel,
             {{"/id", "id \"" + e.parsed.id + "\" requires the file name " + want + ".json"}});
      continue;
    }
    if (e.text.find(")BLISJSON\"") != std::string::npos) {
      report(e.rel, {{"", "contains the text )BLISJSON\" which the generator cannot embed"}});
      continue;
    }
    entries.push_back(std::move(e));
  }

  // Cross-entry rules: unique ids per kind, references, one memory coefficients entry and a
  // "default" GPU coefficients entry.
  std::vector<std::string> fabric_ids, gpu_ids;
  std::map<std::pair<int, std::string>, std::string> seen;
  int memory_entries = 0;
  bool has_default = false;
  for (const auto& e : entries) {
    const auto key = std::make_pair(static_cast<int>(e.parsed.kind), e.parsed.id);
    if (seen.count(key) != 0) {
      report(e.rel,
             {{"/id", "duplicate id \"" + e.parsed.id + "\" (also in catalog/" + seen[key] + ")"}});
    }
    seen[key] = e.rel;
    if (e.parsed.kind == Kind::kFabric) fabric_ids.push_back(e.parsed.id);
    if (e.parsed.kind == Kind::kGpu) gpu_ids.push_back(e.parsed.id);
    if (e.parsed.kind == Kind::kCoefficients) {
      if (e.parsed.coefficients_are_memory)
        ++memory_entries;
      else if (e.parsed.id == "default")
        has_default = true;
    }
  }
  for (const auto& e : entries) {
    if (e.parsed.kind == Kind::kGpu) {
      report(e.rel, blis::catalog::schema::check_gpu_references(e.parsed.gpu, fabric_ids, ""));
    }
    if (e.parsed.kind == Kind::kCoefficients && !e.parsed.coefficients_are_memory) {
      report(e.rel, blis::catalog::schema::check_coefficients_references(e.parsed.gpu_coefficients,
                                                                         gpu_ids, ""));
    }
  }
  if (memory_entries != 1) {
    report("coefficients/", {{"", "expected exactly one \"kind\": \"memory\" entry, found " +
                                      std::to_string(memory_entries)}});
  }
  if (!has_default) {
    report("coefficients/", {{"", "missing the \"default\" GPU coefficients entry"}});
  }
  if (errors > 0) {
    std::fprintf(stderr, "catalog: %d error(s); the build stops here\n", errors);
    return 1;
  }

  std::ostringstream os;
  os << "// Generated by catalog/tools/catalog_gen.cpp from catalog/**/*.json. Do not edit.\n"
     << "#include \"catalog/embedded.h\"\n\n"
     << "namespace blis::catalog::detail {\n\n"
     << "const EmbeddedEntry kEmbeddedEntries[] = {\n";
  for (const auto& e : entries) {
    os << "  {" << kind_enum(e.parsed.kind) << ", \"" << e.rel << "\", R\"BLISJSON(" << e.text
       << ")BLISJSON\"},\n";
  }
  os << "};\n\nconst std::size_t kEmbeddedEntryCount = " << entries.size() << ";\n\n"
     << "}  // namespace blis::catalog::detail\n";
  std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
  out << os.str();
  if (!out) {
    std::fprintf(stderr, "catalog_gen: cannot write %s\n", out_path.c_str());
    return 1;
  }
  return 0;
}
