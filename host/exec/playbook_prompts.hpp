// The playbooks the operator learned from a user's guidance, published to that user as prompts:
// picking one in a client puts "for a goal like <goal> the user advised <guidance>, and these calls
// worked" in front of the model. A playbook is shown only while every call it recorded is one the
// user may still make (the skill visible in their mode, its rules not denying it with those
// arguments), so a prompt never suggests a call the user's policy now refuses.
#pragma once

#include "catalog/catalog_snapshot.hpp"
#include "exec/call_pipeline.hpp"
#include "auth/user_context.hpp"
#include "store/guidance_store.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <optional>
#include <string_view>

namespace skillhost::exec {

// How many of a user's newest playbooks are published; older ones still guide the operator.
inline constexpr std::size_t kMaxPlaybookPrompts = 200;

// The playbook prompts ({"name","title","description","arguments":[]}) of `user`, named
// "playbook_<playbook id>". A store that fails is logged and publishes none.
boost::json::array playbook_prompts(const CallPipeline& pipeline, const catalog::CatalogSnapshot& catalog,
                                    const auth::UserContext& user, const store::GuidanceStore& playbooks);

// Playbook prompt `name` rendered ({"description","messages"}), or nullopt when it is none of the
// user's published ones.
std::optional<boost::json::object> render_playbook(const CallPipeline& pipeline,
                                                   const catalog::CatalogSnapshot& catalog,
                                                   const auth::UserContext& user, const store::GuidanceStore& playbooks,
                                                   std::string_view name);

}  // namespace skillhost::exec
