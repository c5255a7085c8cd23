/* datadir.c — the data directory's layout and the allowed directories (see datadir.h);
 * the database is checked (dbcheck.h) before it is opened. */
#include "core/datadir.h"
#include "core/db.h"
#include "core/dbcheck.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int mkdir_p(const char *path)
{
    char buf[CFG_PATH];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0750) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0750) != 0 && errno != EEXIST ? -1 : 0;
}

/* Data directory layout and the database. */
int datadir_open(fdwd_app *app, char *err, size_t errlen)
{
    if (mkdir_p(app->cfg.data_dir)) {
        snprintf(err, errlen, "cannot create --data %.1000s: %s", app->cfg.data_dir, strerror(errno));
        return -1;
    }
    if (!realpath(app->cfg.data_dir, app->data_dir)) {
        snprintf(err, errlen, "--data %.1000s: %s", app->cfg.data_dir, strerror(errno));
        return -1;
    }
    snprintf(app->db_path, sizeof app->db_path, "%.4000s/fdwave.db", app->data_dir);
    snprintf(app->models_dir, sizeof app->models_dir, "%.4000s/models", app->data_dir);
    snprintf(app->jobs_dir, sizeof app->jobs_dir, "%.4000s/jobs", app->data_dir);
    snprintf(app->datasets_dir, sizeof app->datasets_dir, "%.4000s/datasets", app->data_dir);
    if (mkdir_p(app->models_dir) || mkdir_p(app->jobs_dir) || mkdir_p(app->datasets_dir)) {
        snprintf(err, errlen, "cannot create directories under %.1000s: %s", app->data_dir,
                 strerror(errno));
        return -1;
    }
    /* A damaged database is refused, with the way to restore it (dbcheck.h). */
    if (dbcheck_run(app->db_path, app->cfg.integrity_check, err, errlen))
        return -1;
    app->db = db_open(app->db_path, err, errlen);
    return app->db ? 0 : -1;
}

/* Directories job specs may read: the models and datasets directories (APP_UPLOAD_DIRS)
 * and each --allow-dir. */
int datadir_allowed(fdwd_app *app, char *err, size_t errlen)
{
    app->nallowed = 0;
    snprintf(app->allowed[app->nallowed++], CFG_PATH, "%s", app->models_dir);
    snprintf(app->allowed[app->nallowed++], CFG_PATH, "%s", app->datasets_dir);
    for (int i = 0; i < app->cfg.nallow; i++) {
        if (!realpath(app->cfg.allow_dirs[i], app->allowed[app->nallowed])) {
            snprintf(err, errlen, "--allow-dir %.1000s: %s", app->cfg.allow_dirs[i], strerror(errno));
            return -1;
        }
        app->nallowed++;
    }
    for (int i = 0; i < app->nallowed; i++)
        app->allowed_ptrs[i] = app->allowed[i];
    app->allowed_ptrs[app->nallowed] = NULL;
    return 0;
}


void datadir_empty(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[CFG_PATH + 300];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (unlink(p) != 0 && errno == EISDIR)
            datadir_remove(p);
    }
    closedir(d);
}

void datadir_remove(const char *dir)
{
    datadir_empty(dir);
    rmdir(dir);
}
