/* upload_store.h — one store of files users upload by name, shared by the velocity models
 * (models.c, PUT /v1/models/{name}) and the observed shot gathers (datasets.c, PUT
 * /v1/data/{name}): a file's bytes are streamed to <dir>/.upload-<random> with a running
 * SHA-256, checked by the kind's inspect (the engine's one read of it), fsync'd, renamed
 * over <dir>/<name> and recorded in the kind's table with its owner and facts, all under
 * one commit lock, so a crash leaves the old file or the complete new one and never a
 * partial or unchecked file under a real name. A name belongs to its owner: others get
 * 404 on reading and 409 on uploading it. Uploads count against the owner's disk quota.
 * What differs between kinds (the names' formats, the inspection, the row's facts and
 * their JSON) is the kind's upload_kind. */
#ifndef FDWD_UPLOAD_STORE_H
#define FDWD_UPLOAD_STORE_H

#include "core/app.h"
#include "core/identity.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

typedef struct upload upload;
typedef struct upload_store upload_store;

/* Why an upload or a removal could not be done: the HTTP status (400, 403, 404, 409, 429,
 * 500), the API's error code and field (NULL when none) and a message. */
typedef struct upload_error {
    int status;
    const char *code;
    const char *field;
    char message[768];
} upload_error;

/* Temporary files of uploads in progress are <dir>/<this prefix><random>. */
#define UPLOAD_PARTIAL_PREFIX ".upload-"

/* What every row of a kind's table holds (its first columns, in this order: name, owner,
 * format, bytes, sha256, created_at); text points into the statement or the upload. */
typedef struct upload_row {
    const char *name, *owner, *format, *sha256;
    uint64_t bytes;
    int64_t created_at;
} upload_row;

/* The first six columns of a row of st (name .. created_at) as an upload_row. */
upload_row upload_row_of(sqlite3_stmt *st);

/* A kind of upload. facts: a buffer of facts_size bytes the kind fills and reads. */
typedef struct upload_kind {
    const char *noun;          /* "model", "data": in messages */
    const char *table;         /* its table; its columns: cols */
    const char *cols;          /* "name, owner, format, bytes, sha256, created_at, ..." */
    size_t facts_size;
    /* The format a name stands for (its extension), or NULL with why. */
    const char *(*format_of)(const char *name, const char **why);
    /* Check the finished file u (upload_path) and fill facts; 0, or -1 with e (400 for
     * a file that is not one of its format). */
    int (*inspect)(upload *u, void *facts, upload_error *e);
    /* Bind the kind's columns after the first six (placeholders ?7.. of cols) to st. */
    void (*bind)(sqlite3_stmt *st, const void *facts);
    /* The column assignments of an UPDATE of those columns ("nx = ?7, ..."). */
    const char *update_set;
    /* A row of a SELECT of cols as the API's JSON (facts read from column 6 on). */
    json_t *(*row_json)(sqlite3_stmt *st);
    /* The API's JSON of a new upload's row and facts. */
    json_t *(*new_json)(const upload_row *r, const void *facts);
    void (*facts_free)(void *facts); /* NULL: nothing to free */
} upload_kind;

/* The format a name's extension gives (.f32 .bin .raw: "raw-f32"; .segy .sgy: "segy";
 * .rsf: "rsf"), once the name is checked: 1 to 128 of A-Z a-z 0-9 . _ -, not starting with
 * '.'. NULL with why for a bad name, NULL with why NULL for an unknown extension. */
const char *upload_name_format(const char *name, const char **why);

/* A store of kind in dir (made at start, once; dir must exist). NULL: out of memory. */
upload_store *upload_store_new(fdwd_app *app, const upload_kind *kind, const char *dir);

/* Start an upload of name (PUT ...?replace=&owner=) expected to hold expect bytes (its
 * Content-Length; 0 when unknown). A name is created once; an existing one is replaced
 * only when replace is "true" (or "1") by its owner or an admin, and keeps its owner;
 * another user gets 409. owner (admins only, else 403): the user a new upload is for.
 * Refused with 429 when expect would take its owner past the disk quota. The checks run
 * again, atomically, when it finishes. NULL with the reason in e. */
upload *upload_begin(upload_store *s, const identity *who, const char *name,
                     const char *replace, const char *owner, uint64_t expect, upload_error *e);
/* Append bytes; -1 on a write error. */
int upload_write(upload *u, const char *data, size_t len);
uint64_t upload_bytes(const upload *u);
/* fsync, inspect, check the quota, rename into place, record. The new row's JSON, or NULL
 * with e (nothing kept). Frees u either way. */
json_t *upload_finish(upload *u, upload_error *e);
/* Drop a partial upload (removes its temporary file). NULL is fine. */
void upload_abort(upload *u);

/* For a kind's inspect: the temporary file, the name and the format of u. */
const char *upload_path(const upload *u);
const char *upload_name(const upload *u);
const char *upload_format(const upload *u);
/* msg with every mention of from replaced by to (the temporary file by the upload's name,
 * so an answer never shows the server's paths). */
void upload_rename_in(char *msg, size_t cap, const char *from, const char *to);

/* Remove partial upload files that belong to no upload in progress and were last written
 * at least min_age_ms ago (0 at start-up). Returns how many were removed. */
int upload_sweep_partial(upload_store *s, int64_t min_age_ms);

/* {"<key>": [rows]}: who's uploads (all for an admin), by name. */
json_t *upload_list(upload_store *s, const identity *who, const char *key);
/* One upload's JSON, or NULL (404: none, or another user's) with e. */
json_t *upload_get(upload_store *s, const identity *who, const char *name, upload_error *e);
/* Remove an upload (its owner or an admin): the row, then the file. 0, or -1 with e (404
 * for none or another user's). */
int upload_delete(upload_store *s, const identity *who, const char *name, upload_error *e);
/* The file of name when who may read it, its format (formatlen bytes) and, when sha256
 * is not NULL, the SHA-256 recorded at upload (65 bytes, hex). 0, or -1. */
int upload_resolve(upload_store *s, const identity *who, const char *name, char *path,
                   size_t pathlen, char *format, size_t formatlen, char *sha256);
/* Whether real_path is a file directly in the store's directory (name: its last part). */
int upload_in_dir(const upload_store *s, const char *real_path, const char **name);

#endif
