// The examples in the manifests of the skills a user may see, published as prompts: picking one in
// a client puts "do <example> with skill X and these arguments" in front of the model. Every skill
// with examples gets them, built-in or not, without its plugin doing anything.
#pragma once

#include "catalog/catalog_snapshot.hpp"
#include "exec/call_pipeline.hpp"
#include "auth/user_context.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <optional>
#include <string_view>

namespace skillhost::exec {

// The example prompts ({"name","title","description","arguments":[]}) of the skills `user` may
// see, named "<skill id>_example_<n>" (n from 1).
boost::json::array skill_example_prompts(const CallPipeline& pipeline, const catalog::CatalogSnapshot& catalog,
                                         const auth::UserContext& user);

// Example prompt `name` rendered ({"description","messages"}), or nullopt when it is none of the user's.
std::optional<boost::json::object> render_skill_example(const CallPipeline& pipeline,
                                                        const catalog::CatalogSnapshot& catalog,
                                                        const auth::UserContext& user, std::string_view name);

}  // namespace skillhost::exec
