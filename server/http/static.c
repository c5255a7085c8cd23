/* static.c — the web page: GET / and GET /<file> serve files that lie directly in the
 * --web directory (no subdirectories, no dot-files), with Content-Types for the kinds
 * of files a page uses. */
#include "core/app.h"
#include "http/routes.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const char *type_of(const char *name)
{
    static const char *const map[][2] = {
        {".html", "text/html; charset=utf-8"}, {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"}, {".css", "text/css; charset=utf-8"},
        {".png", "image/png"}, {".svg", "image/svg+xml"}, {".ico", "image/x-icon"},
        {".json", "application/json"}, {".txt", "text/plain; charset=utf-8"},
        {".jpg", "image/jpeg"}, {".jpeg", "image/jpeg"}, {".webp", "image/webp"}};
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < sizeof map / sizeof map[0]; i++)
        if (!strcasecmp(dot, map[i][0]))
            return map[i][1];
    return "application/octet-stream";
}

enum MHD_Result route_static(request *r)
{
    fdwd_app *app = r->app;
    if (r->name[0] == '.' || strchr(r->name, '/') || strchr(r->name, '\\'))
        return reply_error(r, 404, "not_found", NULL, "no such file");
    char path[CFG_PATH + 600];
    snprintf(path, sizeof path, "%s/%s", app->cfg.web_dir, r->name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return reply_error(r, 404, "not_found", NULL, "no such resource: %s", r->path);
    return serve_fd(r, fd, type_of(r->name));
}
