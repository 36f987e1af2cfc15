// The error codes plugin/ raises, each declared once with its kind: build an Error from one of these
// constants (Error{errors::kName, "what is wrong and what to do"}). docs/architecture.md, "Errors".
#pragma once

#include "base/error_kind.hpp"

#define SKILLHOST_PLUGIN_ERROR_CODES(X)                               \
    X(kAbiIncompatible, "ABI_INCOMPATIBLE", internal)                 \
    X(kAbiMismatch, "ABI_MISMATCH", internal)                         \
    X(kCancelled, "CANCELLED", internal)                              \
    X(kCgroupFailed, "CGROUP_FAILED", internal)                       \
    X(kContentInvalid, "CONTENT_INVALID", internal)                   \
    X(kContentTooLarge, "CONTENT_TOO_LARGE", internal)                \
    X(kContentUnavailable, "CONTENT_UNAVAILABLE", internal)           \
    X(kDataDirUnavailable, "DATA_DIR_UNAVAILABLE", internal)          \
    X(kDirNotFound, "DIR_NOT_FOUND", not_found)                       \
    X(kDirUnreadable, "DIR_UNREADABLE", internal)                     \
    X(kDiskBudgetExceeded, "DISK_BUDGET_EXCEEDED", internal)          \
    X(kDuplicatePlugin, "DUPLICATE_PLUGIN", internal)                 \
    X(kDuplicateSkillId, "DUPLICATE_SKILL_ID", internal)              \
    X(kElicitationFailed, "ELICITATION_FAILED", internal)             \
    X(kElicitationInvalid, "ELICITATION_INVALID", internal)           \
    X(kElicitationPending, "ELICITATION_PENDING", internal)           \
    X(kElicitationUnavailable, "ELICITATION_UNAVAILABLE", internal)   \
    X(kEntryMissing, "ENTRY_MISSING", internal)                       \
    X(kEntryReturnedNull, "ENTRY_RETURNED_NULL", internal)            \
    X(kExtensionIsolated, "EXTENSION_ISOLATED", internal)             \
    X(kHostRequestWithoutCall, "HOST_REQUEST_WITHOUT_CALL", internal) \
    X(kInvalidDescriptor, "INVALID_DESCRIPTOR", invalid)              \
    X(kInvokeMissing, "INVOKE_MISSING", internal)                     \
    X(kLibraryLoadFailed, "LIBRARY_LOAD_FAILED", internal)            \
    X(kLibraryNotFound, "LIBRARY_NOT_FOUND", not_found)               \
    X(kLlmFailed, "LLM_FAILED", internal)                             \
    X(kLlmNotPermitted, "LLM_NOT_PERMITTED", internal)                \
    X(kNameMismatch, "NAME_MISMATCH", internal)                       \
    X(kPluginCrashed, "PLUGIN_CRASHED", internal)                     \
    X(kPluginException, "PLUGIN_EXCEPTION", internal)                 \
    X(kPluginInitFailed, "PLUGIN_INIT_FAILED", internal)              \
    X(kPluginKilled, "PLUGIN_KILLED", internal)                       \
    X(kPluginLoadException, "PLUGIN_LOAD_EXCEPTION", internal)        \
    X(kPluginQuarantined, "PLUGIN_QUARANTINED", internal)             \
    X(kPluginRestarting, "PLUGIN_RESTARTING", internal)               \
    X(kPrivateCopyFailed, "PRIVATE_COPY_FAILED", internal)            \
    X(kPromptsUnsupported, "PROMPTS_UNSUPPORTED", internal)           \
    X(kResourcesUnsupported, "RESOURCES_UNSUPPORTED", internal)       \
    X(kResultTooLarge, "RESULT_TOO_LARGE", internal)                  \
    X(kRunnerNotFound, "RUNNER_NOT_FOUND", not_found)                 \
    X(kRunnerProtocolError, "RUNNER_PROTOCOL_ERROR", internal)        \
    X(kRunnerStartFailed, "RUNNER_START_FAILED", internal)            \
    X(kRunnerUserInvalid, "RUNNER_USER_INVALID", internal)            \
    X(kSandboxUnavailable, "SANDBOX_UNAVAILABLE", unavailable)        \
    X(kSkillsMismatch, "SKILLS_MISMATCH", internal)                   \
    X(kSkillNotFound, "SKILL_NOT_FOUND", not_found)                   \
    X(kStructTooSmall, "STRUCT_TOO_SMALL", internal)                  \
    X(kTooManyHostRequests, "TOO_MANY_HOST_REQUESTS", too_many)       \
    X(kUnknownHostService, "UNKNOWN_HOST_SERVICE", internal)          \
    X(kVersionMismatch, "VERSION_MISMATCH", internal)

SKILLHOST_DECLARE_ERROR_CODES(SKILLHOST_PLUGIN_ERROR_CODES, kPluginErrorCodes, "plugin")
