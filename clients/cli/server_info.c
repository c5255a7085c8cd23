/* server_info.c — `fdwave devices` (the server's GPUs or virtual CPU devices, their
 * memory in GiB, and which job holds each) and `fdwave health`. */
#include <stdio.h>

#include "commands.h"
#include "exit_codes.h"
#include "format.h"
#include "report.h"

int fdc_cmd_devices(const fdc_client *c, const fdc_args *a)
{
    if (a->npos != 0)
        return fdc_fail_synopsis("devices");
    fdc_response r;
    int rc = fdc_call(c, "GET", "/v1/devices", NULL, NULL, 0, NULL, &r);
    if (rc)
        return rc;
    if (c->json) {
        fdc_print_json(r.json);
        fdc_response_free(&r);
        return FDC_EXIT_OK;
    }
    printf("%-4s %-5s %-32s %12s %12s  %s\n", "ID", "KIND", "NAME", "MEM TOTAL", "MEM FREE",
           "BUSY (JOB)");
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(r.json, "devices"), i, d)
    {
        char id[16], kind[16], name[128], tot[32] = "-", fre[32] = "-", busy[32];
        fdc_fmt_value(id, sizeof id, json_object_get(d, "id"));
        fdc_fmt_value(kind, sizeof kind, json_object_get(d, "kind"));
        fdc_fmt_value(name, sizeof name, json_object_get(d, "name"));
        json_t *t = json_object_get(d, "memory_total"), *f = json_object_get(d, "memory_free");
        if (json_is_number(t))
            fdc_fmt_gib(tot, sizeof tot, json_number_value(t));
        if (json_is_number(f))
            fdc_fmt_gib(fre, sizeof fre, json_number_value(f));
        fdc_fmt_value(busy, sizeof busy, json_object_get(d, "busy_job"));
        printf("%-4s %-5s %-32s %12s %12s  %s\n", id, kind, name, tot, fre, busy);
    }
    fdc_response_free(&r);
    return FDC_EXIT_OK;
}

int fdc_cmd_health(const fdc_client *c, const fdc_args *a)
{
    if (a->npos != 0)
        return fdc_fail_synopsis("health");
    fdc_response r;
    int rc = fdc_call(c, "GET", "/v1/health", NULL, NULL, 0, NULL, &r);
    if (rc)
        return rc;
    if (c->json) {
        fdc_print_json(r.json);
    } else {
        char st[32], ver[32], up[32], q[16], run[16];
        fdc_fmt_value(st, sizeof st, json_object_get(r.json, "status"));
        fdc_fmt_value(ver, sizeof ver, json_object_get(r.json, "version"));
        fdc_fmt_value(up, sizeof up, json_object_get(r.json, "uptime_s"));
        fdc_fmt_value(q, sizeof q, json_object_get(r.json, "queue"));
        fdc_fmt_value(run, sizeof run, json_object_get(r.json, "running"));
        printf("%s: fdwaved %s, up %s s, %s queued, %s running\n", st, ver, up, q, run);
    }
    fdc_response_free(&r);
    return FDC_EXIT_OK;
}
