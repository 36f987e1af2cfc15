/*
 * skillhost skill ABI — the one contract between the skillhost host and a skill plugin.
 *
 * Pure C99, no dependencies beyond <stddef.h> and <stdint.h>. A plugin includes only this header
 * (or the C++ helper skill.hpp built on it) and links nothing from the host.
 *
 * Shape of the contract
 * ---------------------
 *  1. A plugin library exports exactly one symbol, SKILLHOST_ENTRY_SYMBOL ("skillhost_plugin_entry"),
 *     a function of type skillhost_plugin_entry_fn returning a pointer to a static skillhost_plugin.
 *  2. The host reads skillhost_plugin.abi_version FIRST and touches nothing else unless it accepts the
 *     version: same major as the host, minor up to the host's. Anything else is refused with a message
 *     naming both versions. The first two members of skillhost_plugin never change.
 *  3. The host checks that the skills listed in skillhost_plugin.skills are exactly those of the
 *     plugin's YAML manifest, then calls init() once with a table of host services.
 *  4. Each skill call passes arguments as UTF-8 JSON and a per-call context; the skill answers by
 *     calling the result writer the host passes in. The host copies every byte it is given: nothing
 *     allocated on one side is ever freed on the other.
 *  5. shutdown() is called once, after the last call has returned, before the library is unloaded.
 *
 * Evolution rules
 * ---------------
 *  - Structs only grow by appending members. Each growable struct starts (or, for skillhost_plugin,
 *    continues after the version) with a `struct_size` member holding sizeof() as compiled by its
 *    producer; a reader checks struct_size before reading an appended member.
 *  - A released layout never changes. A breaking change bumps SKILLHOST_ABI_VERSION_MAJOR.
 *
 * Strings
 * -------
 *  - skillhost_string_view is a borrowed (pointer, size) pair of UTF-8 bytes, NOT necessarily
 *    NUL-terminated. Its lifetime is stated where it appears; copy it to keep it.
 *  - `const char*` members of static descriptors (plugin name, skill ids) are NUL-terminated and live
 *    as long as the library is loaded.
 *
 * Threading and lifetime annotations
 * ----------------------------------
 * Every function pointer and function below carries one bracketed tag saying who calls it, from which
 * thread and when (grep for the tag):
 *  [load-thread]  called by the host on the thread that loads the plugin: the entry function,
 *                 init(), shutdown() and the plugin's get_extension(). Never concurrently with each
 *                 other or with any invoke() of the same load.
 *  [call-thread]  called by the host on a worker thread to run one call: invoke(). Several may run
 *                 at once (same or different skills) unless the manifest says `concurrency: serial`
 *                 for that skill; the host then never runs two invocations of it at once.
 *  [any-thread]   a host service the plugin may call from any of its threads, between the return of
 *                 init() and the start of shutdown().
 *  [during-call]  a host service tied to one call: usable from any thread, but only while the
 *                 invoke() owning its `call` context has not returned.
 *
 * Extensions (ABI 1.1)
 * --------------------
 * New host services and optional plugin features are reached by a versioned string id, the way CLAP
 * does it, instead of growing the core tables:
 *  - host side:   services->get_extension(services->host_context, "skillhost.llm/1")
 *  - plugin side: plugin->get_extension(plugin_state, id), queried by the host after init().
 * Both return a pointer to a table of the documented type, or NULL when the id is unknown: an old
 * host or an old plugin simply answers NULL, so every extension is optional for the other side. An
 * extension's table never changes; a changed extension gets a new id ("skillhost.llm/2"). The ids
 * this header defines are listed under "Extensions" near its end.
 *
 * Writing a plugin that also runs on a 1.0 host: read `get_extension` only when
 * SKILLHOST_HAS_MEMBER(skillhost_host_services, host, get_extension) is true, and fall back to the
 * 1.0 members (e.g. host->complete) otherwise.
 */
#ifndef SKILLHOST_SKILL_ABI_H
#define SKILLHOST_SKILL_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Version --------------------------------------------------------------------------------- */

#define SKILLHOST_ABI_VERSION_MAJOR 1
#define SKILLHOST_ABI_VERSION_MINOR 1
#define SKILLHOST_ABI_VERSION_PATCH 0

/* Name of the one symbol a plugin exports. */
#define SKILLHOST_ENTRY_SYMBOL "skillhost_plugin_entry"

#if defined(_WIN32)
#define SKILLHOST_EXPORT __declspec(dllexport)
#else
#define SKILLHOST_EXPORT __attribute__((visibility("default")))
#endif

/*
 * True when the struct at `ptr` (of type `type`, with a `struct_size` member holding sizeof() as
 * its producer compiled it) is large enough to contain `member`. Check it before reading any member
 * appended after the struct's first release. Example:
 *     if (SKILLHOST_HAS_MEMBER(skillhost_host_services, host, get_extension)) ...
 */
#define SKILLHOST_HAS_MEMBER(type, ptr, member) \
    ((ptr) != NULL && (size_t)(ptr)->struct_size >= offsetof(type, member) + sizeof(((const type*)0)->member))

/* A semantic version. Layout fixed forever. */
typedef struct skillhost_version {
    uint32_t major; /* incompatible changes */
    uint32_t minor; /* backwards-compatible additions (appended members, new status codes) */
    uint32_t patch; /* documentation and behaviour fixes with no layout change */
} skillhost_version;

#define SKILLHOST_ABI_VERSION_INIT \
    { SKILLHOST_ABI_VERSION_MAJOR, SKILLHOST_ABI_VERSION_MINOR, SKILLHOST_ABI_VERSION_PATCH }

/* ---- Basic types ----------------------------------------------------------------------------- */

/* Borrowed UTF-8 bytes. `data` may be NULL only when `size` is 0. Lifetime: stated at each use. */
typedef struct skillhost_string_view {
    const char* data;
    size_t size;
} skillhost_string_view;

/* Status codes returned by plugin functions. A plain int32_t so its size is fixed across compilers.
 * Unknown values received from a newer peer are treated as SKILLHOST_STATUS_ERROR. */
typedef int32_t skillhost_status;
#define SKILLHOST_STATUS_OK 0           /* success; for invoke(): a result was written */
#define SKILLHOST_STATUS_ERROR 1        /* failure; for invoke(): an error should have been written */
#define SKILLHOST_STATUS_INVALID_ARGS 2 /* the arguments were unusable (host reports INVALID_ARGS) */
#define SKILLHOST_STATUS_CANCELLED 3    /* the skill stopped because the host asked it to */
#define SKILLHOST_STATUS_UNAVAILABLE 4  /* a host service is not available (e.g. no LLM configured) */

/* Log levels for skillhost_host_services.log. */
typedef int32_t skillhost_log_level;
#define SKILLHOST_LOG_DEBUG 0
#define SKILLHOST_LOG_INFO 1
#define SKILLHOST_LOG_WARN 2
#define SKILLHOST_LOG_ERROR 3

/* ---- Results --------------------------------------------------------------------------------- */

/*
 * Where a plugin writes its answer. Passed in by the host; the plugin never allocates for the host.
 * (The plugin also builds one itself to receive the answer of a host service such as complete().)
 *
 * Lifetime: the writer and its context are valid only during the call it was passed to.
 * Threading: [during-call] call it from the thread running that call, or from any thread as long as
 *            the call has not returned yet.
 * Semantics: the FIRST write_result or write_error counts; later writes are ignored and reported as
 *            a plugin contract violation. The host copies the bytes before returning, so the plugin
 *            may free or reuse its buffers immediately after.
 * Growth:    since 1.1 the writer ends with `struct_size`, and later members are appended after it.
 *            A writer made by a 1.0 peer has no struct_size at all, so test the producer's version
 *            first; SKILLHOST_WRITER_HAS_MEMBER below does both checks.
 */
typedef struct skillhost_result_writer {
    /* Opaque host data; pass it back as the first argument. */
    void* writer_context;

    /* The successful result: one complete UTF-8 JSON value (usually an object). The host validates
     * it; invalid JSON turns the call into a PLUGIN_INVALID_RESULT error. */
    void (*write_result)(void* writer_context, skillhost_string_view result_json);

    /* A structured error. `code` is an UPPER_SNAKE identifier (e.g. "TASK_NOT_FOUND") that the
     * manifest's error hints can refer to; `message` is one human sentence saying what is wrong and
     * what to do; `details_json` is a JSON object with machine-readable details, or empty. */
    void (*write_error)(void* writer_context, skillhost_string_view code, skillhost_string_view message,
                        skillhost_string_view details_json);

    /* 1.1: sizeof(skillhost_result_writer) as its producer compiled it. Absent in 1.0 writers. */
    uint32_t struct_size;
} skillhost_result_writer;

/* True when `writer`, made by a peer speaking ABI `producer_version` (a skillhost_version), has
 * `member`. A plugin passes host->host_abi_version for writers the host hands it. */
#define SKILLHOST_WRITER_HAS_MEMBER(producer_version, writer, member)  \
    ((producer_version).major == 1 && (producer_version).minor >= 1 && \
     SKILLHOST_HAS_MEMBER(skillhost_result_writer, writer, member))

/* ---- Per-call context ------------------------------------------------------------------------ */

/*
 * Who is calling and under which limits. Built by the host for one invocation.
 * Lifetime: valid only until invoke() returns; every string view points into host memory.
 */
typedef struct skillhost_call_context {
    uint32_t struct_size;                 /* sizeof(skillhost_call_context) as the host compiled it */
    skillhost_string_view skill_id;       /* the skill being invoked */
    skillhost_string_view call_id;        /* unique id of this call (for logs and correlation) */
    skillhost_string_view user_id;        /* the user on whose behalf the call runs */
    skillhost_string_view cognitive_mode; /* "dual", "agent" or "emulation" */
    skillhost_string_view data_dir;       /* this plugin's private directory for this user; exists */
    skillhost_string_view workspace_root; /* the user's workspace root (absolute); may be empty */
    int64_t deadline_unix_ms;             /* wall-clock deadline in ms since the epoch; 0 = none */
    void* host_call;                      /* opaque host handle for the per-call services below */
} skillhost_call_context;

/* ---- Host services --------------------------------------------------------------------------- */

/*
 * Services the host offers a plugin. Passed to init(); the table and host_context stay valid until
 * shutdown() returns. Every function takes host_context first. Check struct_size (with
 * SKILLHOST_HAS_MEMBER) before using any member added after version 1.0.
 */
typedef struct skillhost_host_services {
    uint32_t struct_size;               /* sizeof(skillhost_host_services) as the host compiled it */
    skillhost_version host_abi_version; /* the ABI version the host implements */
    void* host_context;                 /* opaque; pass back as the first argument of every function */

    /* [any-thread] Writes one line to the host log, attributed to the plugin. `message` is copied. */
    void (*log)(void* host_context, skillhost_log_level level, skillhost_string_view message);

    /* [during-call] Reports progress of the running call (e.g. 3 of 10 files). `total` <= 0 means
     * unknown. `message` may be empty (copied). */
    void (*report_progress)(void* host_context, const skillhost_call_context* call, double progress, double total,
                            skillhost_string_view message);

    /* [during-call] Returns 1 when the host wants the call to stop (deadline passed, client
     * cancelled), else 0. Long-running skills should poll it and return SKILLHOST_STATUS_CANCELLED.
     * Cheap. */
    int32_t (*is_cancelled)(void* host_context, const skillhost_call_context* call);

    /*
     * [during-call] Asks the host's model router for a completion by role ("persona", ...).
     * Since 1.1 also reachable as the "skillhost.llm/1" extension (same function and contract).
     * request_json: {"messages":[{"role":"system"|"user"|"assistant","content":"..."}],
     *                "temperature"?: number, "max_tokens"?: integer, "json_schema"?: object}
     * On success the writer receives {"content":"...","model":"...","backend":"..."} and the
     * function returns SKILLHOST_STATUS_OK. Returns SKILLHOST_STATUS_UNAVAILABLE (and writes an
     * error) when no model serves that role, or outside a call (`call` NULL). Blocking.
     */
    skillhost_status (*complete)(void* host_context, const skillhost_call_context* call, skillhost_string_view role,
                                 skillhost_string_view request_json, const skillhost_result_writer* writer);

    /* ---- appended in 1.1 ---- */

    /*
     * [any-thread] Returns the host's table for extension `id` (NUL-terminated, e.g.
     * SKILLHOST_EXT_LLM), or NULL when the host does not offer it. The table stays valid until
     * shutdown() returns; the same id always returns the same pointer. Cheap: look an extension up
     * once in init() and keep the pointer.
     */
    const void* (*get_extension)(void* host_context, const char* id);
} skillhost_host_services;

/* ---- Plugin description ---------------------------------------------------------------------- */

/*
 * [call-thread] Runs one skill. `plugin_state` is what init() stored. `args_json` is a JSON object already
 * validated against the manifest's input schema, with defaults applied (lifetime: this call).
 * Answer through `writer`, then return SKILLHOST_STATUS_OK (result written) or an error status
 * (error written). Must not throw C++ exceptions or longjmp across this boundary.
 * Threading: see the file comment (concurrent unless the manifest says `concurrency: serial`).
 */
typedef skillhost_status (*skillhost_invoke_fn)(void* plugin_state, const skillhost_call_context* call,
                                                skillhost_string_view args_json, const skillhost_result_writer* writer);

/*
 * One skill the library implements. Static lifetime (as long as the library is loaded).
 * Growth: the host walks `skills` with the stride skillhost_plugin.skill_struct_size (1.1), so later
 * minors may append members here; a 1.0 plugin's array has exactly these two members.
 */
typedef struct skillhost_skill {
    const char* id;             /* NUL-terminated; must equal a skill id in the manifest */
    skillhost_invoke_fn invoke; /* never NULL */
} skillhost_skill;

/*
 * The plugin descriptor returned by the entry function. Static lifetime.
 * The first two members (abi_version, struct_size) are fixed for every ABI version.
 */
typedef struct skillhost_plugin {
    skillhost_version abi_version; /* SKILLHOST_ABI_VERSION_INIT as the plugin was compiled */
    uint32_t struct_size;          /* sizeof(skillhost_plugin) as the plugin was compiled */
    const char* name;              /* NUL-terminated; must equal the manifest's `name` */
    const char* version;           /* NUL-terminated plugin version, e.g. "1.2.0" */
    uint32_t skill_count;          /* number of entries in `skills` */
    const skillhost_skill* skills; /* `skill_count` entries, ids unique */

    /*
     * [load-thread] Prepares the plugin. Called once per load, before any invoke(). Must tolerate
     * being called again after shutdown() (the host may reload). Stores plugin-wide state in
     * *out_plugin_state (may stay NULL). On failure, write an error to `error_writer` and return a
     * non-OK status: the plugin is not used and shutdown() is not called. `host` stays valid until
     * shutdown() returns. May be NULL when the plugin needs no preparation.
     */
    skillhost_status (*init)(const skillhost_host_services* host, void** out_plugin_state,
                             const skillhost_result_writer* error_writer);

    /*
     * [load-thread] Releases everything init() acquired. Called once, after the last invoke()
     * returned; calling it twice with the same state must be harmless. May be NULL.
     */
    void (*shutdown)(void* plugin_state);

    /* ---- appended in 1.1 (read only when struct_size covers them) ---- */

    /* sizeof(skillhost_skill) as the plugin was compiled: the stride of `skills`. */
    uint32_t skill_struct_size;

    /*
     * [load-thread] Returns the plugin's table for extension `id` (NUL-terminated), or NULL when
     * the plugin does not implement it. Called after init() succeeded, with the state init() stored;
     * the table must stay valid until shutdown(). May be NULL (the plugin has no extensions).
     */
    const void* (*get_extension)(void* plugin_state, const char* id);
} skillhost_plugin;

/*
 * [load-thread] The one exported function. Must be callable any number of times and always return
 * the same static descriptor; must not allocate, start threads or call back into the host.
 */
typedef const skillhost_plugin* (*skillhost_plugin_entry_fn)(void);

/*
 * The entry's prototype, so the compiler checks a plugin's definition against it. Define it in
 * exactly one source file of the plugin:
 *     SKILLHOST_EXPORT const skillhost_plugin* skillhost_plugin_entry(void) { return &my_plugin; }
 * (skill.hpp's SKILLHOST_PLUGIN does this for C++ plugins.)
 */
SKILLHOST_EXPORT const skillhost_plugin* skillhost_plugin_entry(void);

/* ---- Extensions ------------------------------------------------------------------------------ */

/*
 * "skillhost.llm/1" — host extension: the model router, as the 1.0 `complete` member.
 *   const skillhost_llm_v1* llm = host->get_extension(host->host_context, SKILLHOST_EXT_LLM);
 */
#define SKILLHOST_EXT_LLM "skillhost.llm/1"
typedef struct skillhost_llm_v1 {
    /* [during-call] Exactly skillhost_host_services.complete: same request, answer and statuses. */
    skillhost_status (*complete)(void* host_context, const skillhost_call_context* call, skillhost_string_view role,
                                 skillhost_string_view request_json, const skillhost_result_writer* writer);
} skillhost_llm_v1;

/*
 * "skillhost.path_check/1" — host extension: the call's path rules, asked per path.
 *   const skillhost_path_check_v1* paths = host->get_extension(host->host_context, SKILLHOST_EXT_PATH_CHECK);
 * The host checks a skill's path arguments (the manifest's `paths`) against the user's rules before
 * the call, but only the plugin knows every other path it touches: the entries of a listed or
 * searched directory, the target of a resolved link. Before listing, reading, searching or writing
 * such a path, ask is_allowed(); skip a denied path (and, for a directory, everything below it)
 * and tell the caller how many were withheld, without naming them.
 * A host without this extension (NULL) has no per-path rules to offer.
 */
#define SKILLHOST_EXT_PATH_CHECK "skillhost.path_check/1"

/* What the plugin is about to do with a path; rules may one day differ per operation. */
typedef enum skillhost_path_operation {
    SKILLHOST_PATH_LIST = 0,   /* show it as an entry of a listing */
    SKILLHOST_PATH_READ = 1,   /* read its content */
    SKILLHOST_PATH_SEARCH = 2, /* look into it (a file's content or a directory's entries) */
    SKILLHOST_PATH_WRITE = 3   /* create, change or delete it */
} skillhost_path_operation;

typedef struct skillhost_path_check_v1 {
    /*
     * [during-call] Returns 1 when the rules of `call` allow `operation` on `path`, else 0.
     * `path` (UTF-8, copied by the host) is relative to the call's workspace_root or absolute, as a
     * path argument would be. Fails closed: 0 for a NULL call or a path the host cannot interpret. Cheap (no I/O beyond resolving links the path goes through).
     */
    int32_t (*is_allowed)(void* host_context, const skillhost_call_context* call, skillhost_string_view path,
                          int32_t operation);
} skillhost_path_check_v1;

/*
 * "skillhost.plugin_info/1" — plugin extension: what the plugin says about itself beyond the
 * descriptor. The host reads it after init() and shows it in `skills show` and `plugin check`.
 */
#define SKILLHOST_EXT_PLUGIN_INFO "skillhost.plugin_info/1"
typedef struct skillhost_plugin_info_v1 {
    const char* description; /* NUL-terminated, one sentence, static lifetime; may be NULL */
    const char* homepage;    /* NUL-terminated URL, static lifetime; may be NULL */
} skillhost_plugin_info_v1;

/*
 * "skillhost.content/1" — host extension: rich content beside the structured result.
 *   const skillhost_content_v1* content = host->get_extension(host->host_context, SKILLHOST_EXT_CONTENT);
 * A skill's result (write_result) stays the structured answer checked against the manifest's
 * `outputs`. Through this extension a skill adds content items for people and clients that show
 * them: text, images, audio, links to resources and embedded resources. MCP returns them as the
 * `content` of tools/call; the HTTP API as the result's `content` array; the CLI prints them.
 * Items added by a call whose answer is an error are dropped.
 *
 * item_json is one MCP content item (UTF-8 JSON object, copied by the host):
 *   {"type":"text","text":"..."}
 *   {"type":"image","data":"<base64>","mimeType":"image/png"}
 *   {"type":"audio","data":"<base64>","mimeType":"audio/wav"}
 *   {"type":"resource_link","uri":"file:///...","name":"...","mimeType"?:"...","description"?:"..."}
 *   {"type":"resource","resource":{"uri":"...","mimeType"?:"...","text":"..."}}   (or "blob":"<base64>")
 * Every item may also carry "annotations" (object) and "_meta" (object), passed on unchanged.
 *
 * Limits: at most SKILLHOST_CONTENT_MAX_ITEMS items and SKILLHOST_CONTENT_MAX_BYTES bytes of item
 * JSON per call. A refused item (malformed, over a limit) changes nothing already added.
 */
#define SKILLHOST_EXT_CONTENT "skillhost.content/1"
#define SKILLHOST_CONTENT_MAX_ITEMS 64
#define SKILLHOST_CONTENT_MAX_BYTES (8u * 1024u * 1024u)

typedef struct skillhost_content_v1 {
    /*
     * [during-call] Adds one content item to `call`'s answer, after those added before (the order
     * is kept). Returns SKILLHOST_STATUS_OK, or SKILLHOST_STATUS_INVALID_ARGS when the item is
     * refused: then `error_writer` (may be NULL) receives CONTENT_INVALID (what is wrong with the
     * item) or CONTENT_TOO_LARGE (a limit, named in the message). SKILLHOST_STATUS_UNAVAILABLE for
     * a NULL call. Safe from several threads of the same call at once.
     */
    skillhost_status (*add)(void* host_context, const skillhost_call_context* call, skillhost_string_view item_json,
                            const skillhost_result_writer* error_writer);
} skillhost_content_v1;

/*
 * "skillhost.elicit/1" — host extension: ask the user for input during a call.
 *   const skillhost_elicit_v1* elicit = host->get_extension(host->host_context, SKILLHOST_EXT_ELICIT);
 * The front end that started the call shows a form to its user and returns the answer. Over MCP the
 * request becomes `elicitation/create` to the client (when it declared the elicitation capability).
 * Where nobody can be asked during the call (the CLI's `call`, the HTTP API, an MCP client without
 * the capability) the host queues the question for the user and answers SKILLHOST_STATUS_CANCELLED
 * with ELICITATION_PENDING: return at once (whatever the call returns is discarded). When the user
 * answers, the host runs the call again from the start, and each elicit() of that run that asks
 * the same question in the same order is answered at once with what the user said; ask before any
 * side effect. Operator runs and approved calls answer SKILLHOST_STATUS_UNAVAILABLE with
 * ELICITATION_UNAVAILABLE: go on without the input, or fail naming the argument to pass instead.
 *
 * request_json (UTF-8 JSON, copied):
 *   {"message": "what to ask, one or two sentences",
 *    "requestedSchema": {"type":"object",
 *                        "properties": {"<name>": {"type":"string"|"number"|"integer"|"boolean",
 *                                                   "title"?, "description"?, "default"?,
 *                                                   "enum"? (strings), "enumNames"?,
 *                                                   "minLength"?, "maxLength"?, "format"?,
 *                                                   "minimum"?, "maximum"?}, ...},
 *                        "required"?: ["<name>", ...]}}
 * A flat object of primitive fields, as in the MCP 2025-11-25 revision; at most 32 fields.
 * Answer (to `writer`, status OK): {"action":"accept","content":{...}} with content checked
 * against the schema by the host, {"action":"decline"} or {"action":"cancel"}.
 * Errors (to `writer`): ELICITATION_INVALID (a malformed request: SKILLHOST_STATUS_INVALID_ARGS),
 * ELICITATION_UNAVAILABLE (SKILLHOST_STATUS_UNAVAILABLE), ELICITATION_FAILED (the client answered
 * with an error or an answer that breaks the schema, or no answer came in time; STATUS_ERROR),
 * CANCELLED when the call was cancelled while waiting, ELICITATION_PENDING when the question was
 * queued for later (both SKILLHOST_STATUS_CANCELLED).
 */
#define SKILLHOST_EXT_ELICIT "skillhost.elicit/1"

typedef struct skillhost_elicit_v1 {
    /* [during-call] Blocking until the user answers, the call is cancelled or its deadline
     * passes. The writer is used once, before the function returns. */
    skillhost_status (*elicit)(void* host_context, const skillhost_call_context* call,
                               skillhost_string_view request_json, const skillhost_result_writer* writer);
} skillhost_elicit_v1;

/*
 * "skillhost.idempotency/1" — host extension: a key that stays the same when a call is retried.
 *   const skillhost_idempotency_v1* idem = host->get_extension(host->host_context, SKILLHOST_EXT_IDEMPOTENCY);
 * A call can run twice for one intent: an instance dies after the plugin did its side effect but
 * before the result was stored, and another instance runs the step again. The key is the same for
 * both: "<run id>:<step>" for a step of an operator run, the approval id for an approved call, and
 * the call id (unique, so never a retry) for any other direct call. A plugin with side effects
 * (sending a message, creating a ticket) records the keys it acted on and answers a known key
 * with what it did then, instead of doing it again.
 * A host without this extension (NULL) never retries a call.
 */
#define SKILLHOST_EXT_IDEMPOTENCY "skillhost.idempotency/1"
#define SKILLHOST_IDEMPOTENCY_KEY_MAX_BYTES 256u

typedef struct skillhost_idempotency_v1 {
    /* [during-call] The key of `call`: UTF-8, 1 to SKILLHOST_IDEMPOTENCY_KEY_MAX_BYTES bytes, valid
     * until the call returns (copy it to keep it). Empty for a NULL call or outside a call. */
    skillhost_string_view (*key)(void* host_context, const skillhost_call_context* call);
} skillhost_idempotency_v1;

/*
 * "skillhost.storage/1" — host extension: records the host keeps for the plugin, per user.
 *   const skillhost_storage_v1* storage = host->get_extension(host->host_context, SKILLHOST_EXT_STORAGE);
 * A plugin's files in data_dir stay on the instance that wrote them; records kept here live in the
 * host's storage (the SQLite file of its home, or the PostgreSQL database several daemons share),
 * so every instance serving the user sees the same records. Use it for the plugin's state (tasks,
 * notes, settings) instead of a database file of its own.
 *
 * One store per (plugin, user): the plugin is the one making the call, the user is the call's user
 * (the host's record of the call, never a value the plugin passes), so a plugin cannot reach
 * another user's records or another plugin's. A store holds collections; a collection holds
 * records, each a key and a value:
 *  - collection: 1 to SKILLHOST_STORAGE_MAX_COLLECTION_BYTES bytes of [A-Za-z0-9_.-], starting with
 *    a letter or digit ("tasks", "notes.v2"). Collections need no creating.
 *  - key: 1 to SKILLHOST_STORAGE_MAX_KEY_BYTES bytes of UTF-8 without NUL. Keys are ordered byte by
 *    byte ("10" sorts before "9": zero-pad numbers, e.g. "0000000016", to list them in order).
 *  - value: one JSON value (UTF-8 JSON text, usually an object), at most
 *    SKILLHOST_STORAGE_MAX_VALUE_BYTES bytes. The host stores it compacted: whitespace may differ
 *    when read back, the value does not.
 *  - version: an integer > 0 the host gives a record on every write. It grows with each write to
 *    the store, and a record deleted and created again never gets a version it had before, so
 *    "still version 7" means "nobody wrote it since I read it".
 * expected_version, wherever it is taken, is a precondition checked atomically with the write:
 * SKILLHOST_STORAGE_ANY_VERSION (-1) none; 0 the record must not exist (create only); n > 0 the
 * record must exist at version n (compare-and-set). A failed precondition writes nothing.
 *
 * Every function is [during-call]: `call` must be the context of a call in flight (else
 * STORAGE_UNAVAILABLE); blocking (a database round trip). Safe from several threads of the same
 * call, and from concurrent calls: every write is a transaction, and writes to one store are
 * serialised. Strings are copied by the host. Each answers through `writer` (used once, before the
 * function returns) with one JSON object and returns SKILLHOST_STATUS_OK, or writes an error:
 *   STORAGE_INVALID          a malformed argument (collection, key, value JSON, limit, batch),
 *                            named in the message: SKILLHOST_STATUS_INVALID_ARGS
 *   STORAGE_TOO_LARGE        a key, value, batch or page over its limit (details.limit names it,
 *                            details.max the limit, details.actual what was given): INVALID_ARGS
 *   STORAGE_QUOTA_EXCEEDED   the store would hold more than SKILLHOST_STORAGE_MAX_RECORDS records or
 *                            SKILLHOST_STORAGE_MAX_BYTES bytes of values (details.limit): ERROR
 *   STORAGE_CONFLICT         expected_version did not hold; details: collection, key,
 *                            expected_version, actual_version (0: absent), index (in a batch): ERROR
 *   STORAGE_UNAVAILABLE      no storage (outside a call, a host without storage): UNAVAILABLE
 *   DATABASE_UNAVAILABLE     the host's database does not answer now; retry later: UNAVAILABLE
 *   DATABASE_ERROR           the host's database failed: ERROR
 */
#define SKILLHOST_EXT_STORAGE "skillhost.storage/1"
#define SKILLHOST_STORAGE_ANY_VERSION (-1)
#define SKILLHOST_STORAGE_MAX_COLLECTION_BYTES 64u
#define SKILLHOST_STORAGE_MAX_KEY_BYTES 512u
#define SKILLHOST_STORAGE_MAX_VALUE_BYTES (256u * 1024u)
#define SKILLHOST_STORAGE_MAX_RECORDS 100000u             /* per (plugin, user) */
#define SKILLHOST_STORAGE_MAX_BYTES (64u * 1024u * 1024u) /* of values, per (plugin, user) */
#define SKILLHOST_STORAGE_MAX_BATCH_OPERATIONS 100u
#define SKILLHOST_STORAGE_MAX_BATCH_BYTES (4u * 1024u * 1024u) /* a batch's request_json */
#define SKILLHOST_STORAGE_MAX_LIST_LIMIT 1000u
#define SKILLHOST_STORAGE_MAX_PAGE_BYTES (4u * 1024u * 1024u) /* of values in one list() answer */

typedef struct skillhost_storage_v1 {
    /* [during-call] Reads one record. Answer: {"found":true,"key":"...","value":<JSON>,"version":n}
     * or {"found":false}. */
    skillhost_status (*get)(void* host_context, const skillhost_call_context* call, skillhost_string_view collection,
                            skillhost_string_view key, const skillhost_result_writer* writer);

    /* [during-call] Creates or replaces one record with `value_json`, if expected_version holds.
     * Answer: {"version":n,"created":true|false} (n the record's new version). */
    skillhost_status (*put)(void* host_context, const skillhost_call_context* call, skillhost_string_view collection,
                            skillhost_string_view key, skillhost_string_view value_json, int64_t expected_version,
                            const skillhost_result_writer* writer);

    /* [during-call] Deletes one record, if expected_version holds (0: it must not exist; removing
     * nothing). Answer: {"removed":true|false} (false: there was no such record). */
    skillhost_status (*remove)(void* host_context, const skillhost_call_context* call, skillhost_string_view collection,
                               skillhost_string_view key, int64_t expected_version,
                               const skillhost_result_writer* writer);

    /* [during-call] Records of `collection` whose key starts with `prefix` (empty: all), in key
     * order, after `cursor` (empty: from the start; otherwise a next_cursor this function gave), at
     * most `limit` (1 to SKILLHOST_STORAGE_MAX_LIST_LIMIT) and at most
     * SKILLHOST_STORAGE_MAX_PAGE_BYTES of values (at least one record). Answer:
     * {"records":[{"key":"...","value":<JSON>,"version":n},...],"next_cursor":"..."|null}; null
     * when there is nothing more. A page sees the records as they are when it is read: records
     * written between pages appear in a later page when their key is after the cursor. */
    skillhost_status (*list)(void* host_context, const skillhost_call_context* call, skillhost_string_view collection,
                             skillhost_string_view prefix, skillhost_string_view cursor, uint32_t limit,
                             const skillhost_result_writer* writer);

    /* [during-call] The next number of the collection's sequence: 1, 2, 3, ... Never the same number
     * twice for one (plugin, user, collection), even across instances and after records are
     * deleted; a number taken by a call that then failed is skipped, not reused. Answer:
     * {"id":n}. The sequence is separate from the records: it does not create one. */
    skillhost_status (*next_id)(void* host_context, const skillhost_call_context* call,
                                skillhost_string_view collection, const skillhost_result_writer* writer);

    /*
     * [during-call] Several writes, all or nothing: either every operation's precondition holds and
     * all are applied in one transaction, or none is (the first failure is reported, details.index
     * naming the operation). request_json (at most SKILLHOST_STORAGE_MAX_BATCH_BYTES):
     *   {"operations":[                     1 to SKILLHOST_STORAGE_MAX_BATCH_OPERATIONS of
     *     {"op":"put","collection":"c","key":"k","value":<JSON>,"expected_version"?:n},
     *     {"op":"remove","collection":"c","key":"k","expected_version"?:n},
     *     {"op":"check","collection":"c","key":"k","expected_version":n},   a precondition only
     *     {"op":"advance_sequence","collection":"c","to":n}                  next_id() answers > n
     *   ]}
     * expected_version defaults to SKILLHOST_STORAGE_ANY_VERSION. Operations apply in order; a
     * later one sees what an earlier one wrote. Answer: {"results":[...]}, one per operation:
     * {"version":n,"created":b} (put), {"removed":b} (remove), {"version":n} (check: 0 = absent),
     * {"last_id":n} (advance_sequence: the sequence's last number now).
     */
    skillhost_status (*batch)(void* host_context, const skillhost_call_context* call,
                              skillhost_string_view request_json, const skillhost_result_writer* writer);
} skillhost_storage_v1;

/*
 * "skillhost.call_log/1" — host extension: a log line that belongs to a call.
 *   const skillhost_call_log_v1* call_log = host->get_extension(host->host_context, SKILLHOST_EXT_CALL_LOG);
 * Like log(), and the line is also the call's, from whichever thread the plugin writes it: a front
 * end that can show a call's log (MCP: notifications/message on the call's stream, at the level the
 * client chose with logging/setLevel) receives it. At most 100 lines per call are forwarded; the
 * host log gets every line.
 * A host without this extension (NULL): log() on the thread running invoke() is the call's too.
 */
#define SKILLHOST_EXT_CALL_LOG "skillhost.call_log/1"

typedef struct skillhost_call_log_v1 {
    /* [during-call] Writes one line for `call` (NULL: the host log only). `message` is copied. */
    void (*log)(void* host_context, const skillhost_call_context* call, skillhost_log_level level,
                skillhost_string_view message);
} skillhost_call_log_v1;

/*
 * Tool logs and sampling:
 *  - log() called on the thread running invoke() is also attributed to that call, as a
 *    "skillhost.call_log/1" line is (the way a 1.0 plugin's lines reach the call's front end). Lines
 *    from other threads reach only the host log: pass the call to "skillhost.call_log/1" instead.
 *  - complete() / "skillhost.llm/1" may be answered by the MCP client (sampling/createMessage)
 *    instead of the model router, when the client declared sampling and the host allows it
 *    (skillhost.yaml `server.mcp_client_sampling`). The request and answer shapes do not change; the
 *    answer's "backend" is then "mcp-client". json_schema is passed to the client as an
 *    instruction, not enforced.
 */

/*
 * "skillhost.resources/1" — plugin extension: resources the plugin publishes (MCP resources/list, resources/read ...).
 * A resource is something a client may read by URI (a file, a note, a record). The host shows a
 * plugin's resources to a user only when that user may call `governing_skill` (visible in their mode,
 * trust high enough, not denied or sent to approval by their rules), and a read runs under that
 * skill's path rules: ask the "skillhost.path_check/1" host extension before reading or listing a
 * path, exactly as the skill would.
 * Every function answers through `writer` with one JSON value (the host copies it) and returns
 * SKILLHOST_STATUS_OK, or writes an error and returns a non-OK status. The call context is the
 * user's, as for a skill call: skill_id is `governing_skill`, data_dir and workspace_root are set,
 * the deadline is short (seconds) and is_cancelled() works.
 * Threading: [call-thread] any of these may run concurrently with each other and with invoke(),
 * whatever the manifest says about `concurrency`.
 * Limits the host enforces (an answer beyond them is an error to the client, naming the limit):
 * 1000 resources or templates per plugin, 8 MiB per answer, URIs of at most 8192 bytes.
 */
#define SKILLHOST_EXT_RESOURCES "skillhost.resources/1"
typedef struct skillhost_resources_v1 {
    /* NUL-terminated, static lifetime: the plugin's skill whose policy governs its resources. */
    const char* governing_skill;
    /* NUL-terminated, static lifetime, non-empty: every URI the plugin lists or reads starts with it
     * (e.g. "file://", "notes://"). The host asks read() only for URIs with this prefix. */
    const char* uri_prefix;

    /* [call-thread] Writes {"resources":[{"uri","name","title"?,"description"?,"mimeType"?,"size"?}]}.
     * uri and name are required strings; size is an integer number of bytes. May be NULL. */
    skillhost_status (*list)(void* plugin_state, const skillhost_call_context* call,
                             const skillhost_result_writer* writer);

    /* [call-thread] Writes {"resourceTemplates":[{"uriTemplate","name","title"?,"description"?,
     * "mimeType"?}]}, uriTemplate an RFC 6570 template such as "notes://{id}". May be NULL. */
    skillhost_status (*list_templates)(void* plugin_state, const skillhost_call_context* call,
                                       const skillhost_result_writer* writer);

    /* [call-thread] Reads `uri` (UTF-8, lifetime: this call), a URI the plugin listed or one matching
     * one of its templates. Writes {"contents":[{"uri","mimeType"?,"text"} or {"uri","mimeType"?,
     * "blob"}]} with blob the bytes in standard base64. For a URI the plugin does not know, write
     * the error code "RESOURCE_NOT_FOUND" (the host then asks the next plugin with a matching prefix);
     * for a path the rules withhold, "PATH_NOT_ALLOWED". Never NULL. */
    skillhost_status (*read)(void* plugin_state, const skillhost_call_context* call, skillhost_string_view uri,
                             const skillhost_result_writer* writer);
} skillhost_resources_v1;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SKILLHOST_SKILL_ABI_H */
