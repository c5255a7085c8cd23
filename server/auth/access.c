/* access.c — the daemon's data-access model (see access.h). */
#include "auth/access.h"
#include "auth/auth.h"
#include "core/app.h"
#include "core/db.h"
#include "data/factcache.h"
#include "data/datasets.h"
#include "data/models.h"

#include <stdio.h>
#include <string.h>

/* Whether the canonical path p lies under the canonical directory dir. */
static int under(const char *p, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(p, dir, n) == 0 && (p[n] == '/' || p[n] == '\0');
}

int access_file(const app_caller *caller, const char *real_path, fdw_file_use use,
                const char *format, fdw_model_info *info)
{
    fdwd_app *app = caller->app;
    if (under(real_path, app->models_dir)) {
        const char *name = real_path + strlen(app->models_dir);
        if (*name != '/' || strchr(name + 1, '/'))
            return -1; /* the directory itself, or below it: nothing a user uploaded */
        char path[CFG_PATH + 200];
        fdw_model_info facts;
        if (models_resolve(caller, name + 1, path, sizeof path, &facts) != 0 ||
            strcmp(path, real_path) != 0)
            return -1; /* not an upload, or someone else's: the one refusal */
        if (use == FDW_FILE_MODEL && format && strcmp(facts.format, format) == 0)
            *info = facts;
        return 0;
    }
    if (under(real_path, app->datasets_dir)) {
        const char *name;
        char path[CFG_PATH + 200], format[16];
        if (!upload_in_dir(app->datasets, real_path, &name) ||
            datasets_resolve(caller, name, path, sizeof path, format, sizeof format, NULL) != 0 ||
            strcmp(path, real_path) != 0)
            return -1; /* not an upload, or someone else's: the one refusal */
        return 0;
    }
    if (under(real_path, app->data_dir))
        return -1; /* the database, job outputs, partial uploads */
    for (int i = APP_UPLOAD_DIRS; i < app->nallowed; i++)
        if (under(real_path, app->allowed[i])) {
            /* A shared model is read once per version, not at every submission. */
            if (use == FDW_FILE_MODEL)
                factcache_get(app->facts, real_path, format, info);
            return 0;
        }
    return -1;
}

const char *access_rule(void)
{
    return "a job may read only its owner's uploaded models and data and files under the "
           "directories this server shares with every user";
}

void access_rights_of(fdwd_app *app, const char *user, identity *who)
{
    snprintf(who->user, sizeof who->user, "%s", user);
    who->admin = 0;
    int ntokens = auth_token_count(app);
    if (ntokens == 0) {
        who->admin = strcmp(user, "local") == 0;
        return;
    }
    const int64_t admin =
        db_int(db(app->db), "SELECT admin FROM tokens WHERE name = ?1", -1, "t", user);
    if (admin >= 0)
        who->admin = admin != 0;
}

int access_check_allowed(fdwd_app *app, char *err, size_t errlen)
{
    for (int i = APP_UPLOAD_DIRS; i < app->nallowed; i++) {
        const char *d = app->allowed[i];
        if (under(d, app->data_dir) || under(app->data_dir, d) || strcmp(d, "/") == 0) {
            snprintf(err, errlen,
                     "--allow-dir %.1000s %s the data directory %.1000s: job specs could then "
                     "name the database, other users' models and job outputs",
                     d, under(d, app->data_dir) ? "lies inside" : "contains", app->data_dir);
            return -1;
        }
    }
    return 0;
}
