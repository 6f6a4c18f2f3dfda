#pragma once
// The rules packs read engine.args with the one field reader of core/util (util/json_fields.h);
// these names keep the rules:: spelling the scenario decoder and the sweep use.

#include "util/json_fields.h"

namespace blis::rules {

using blis::describe_type;
using blis::FieldReader;
using blis::join;
using blis::kInt32Max;
using blis::parse_human_readable_int;
using blis::pydantic_bool;
using blis::show;

}  // namespace blis::rules
