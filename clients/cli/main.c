/* main.c — the `fdwave` command-line client of fdwaved: parses global options (--url,
 * --token, --json; FDWAVE_URL / FDWAVE_TOKEN from the environment) and the command's own
 * options with getopt_long (before or after the command), then runs one command from
 * commands.h. The process's exit status is the
 * command's exit code (exit_codes.h), so scripts can tell failed, cancelled, bad request
 * and unreachable apart. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>

#include "commands.h"
#include "exit_codes.h"
#include "option_refused.h"
#include "report.h"

static const char usage_text[] =
    "usage: fdwave [--url URL] [--token TOKEN] [--json] COMMAND [ARGS]\n"
    "\n"
    "Client of the fdwaved simulation service.\n"
    "\n"
    "Commands:\n"
    "  submit JOB.json [--wait] [--priority N] [--idempotency-key K] [--upload-models]\n"
    "                          submit a job spec (\"-\" reads stdin); --wait follows it to\n"
    "                          the end and exits with the job's final state; a key already\n"
    "                          used: \"already submitted as job N\"; --upload-models uploads\n"
    "                          the model file the spec names on this machine first\n"
    "  list [--state S] [--name TEXT] [--limit N] [--before ID]\n"
    "                          jobs, newest first (S: queued running succeeded failed\n"
    "                          cancelled; TEXT: part of the name; ID: the page after it)\n"
    "  status ID               one job: state, reason, devices, times, progress\n"
    "  watch ID [--since EID]  follow a job's events to the end (a progress bar on a\n"
    "                          terminal, one line per event otherwise); reconnects with\n"
    "                          Last-Event-ID when the connection drops\n"
    "  cancel ID               cancel a queued or running job\n"
    "  outputs ID              list a job's output files (its manifest)\n"
    "  fetch ID NAME|--all [-o DIR]\n"
    "                          download one output file, or all of them and the manifest,\n"
    "                          into DIR (default .)\n"
    "  models upload [--replace] FILE NAME\n"
    "                          upload a velocity model (NAME .f32/.bin/.raw, .segy/.sgy or\n"
    "                          .rsf: the server checks it and refuses a bad one)\n"
    "  models list             uploaded models\n"
    "  data put [--replace] NAME FILE\n"
    "                          upload observed shot gathers for rtm and gradient jobs (NAME\n"
    "                          .segy/.sgy or .f32/.bin/.raw; the server checks a SEG-Y's\n"
    "                          headers and refuses a bad one); a job uses it as \"data\":\n"
    "                          {\"name\": NAME}; fetch a job's image with fetch ID image.f32\n"
    "  data ls                 uploaded data (traces, samples, interval, shots, SHA-256)\n"
    "  data rm NAME            remove uploaded data\n"
    "  devices                 the server's devices and the job each one runs\n"
    "  health                  server status\n"
    "  usage [USER] [--since WHEN]\n"
    "                          device-hours, wall time and peak memory of the runs since\n"
    "                          WHEN (30d, 12h, 2026-11-01; default 30d); USER: an admin's\n"
    "                          look at another user (default: everyone for an admin)\n"
    "  rm ID                   remove a finished job's outputs (its record is kept); a\n"
    "                          queued or running job is cancelled\n"
    "\n"
    "Options:\n"
    "  --url URL      server (default $FDWAVE_URL, else http://127.0.0.1:8080)\n"
    "  --token TOKEN  bearer token (default $FDWAVE_TOKEN)\n"
    "  --json         machine-readable JSON on stdout (watch: one event per line);\n"
    "                 errors too: {\"error\":{\"code\",\"message\",\"field\"},\"http_status\"}\n"
    "  -h, --help     this text;  --version  the client's version\n"
    "\n"
    "Exit codes:\n"
    "  0  ok; for submit --wait and watch: the job succeeded\n"
    "  1  the job failed\n"
    "  2  usage error\n"
    "  3  the job was cancelled\n"
    "  4  bad request (HTTP 4xx, e.g. an invalid spec: the field path is printed)\n"
    "  5  the server cannot be reached\n"
    "  6  unauthorized (missing or wrong token)\n"
    "  7  not found (no such job, output, model or data)\n"
    "  8  server error (HTTP 5xx or an answer that is not the API's)\n"
    "  9  a local file could not be read or written\n";

enum {
    OPT_URL = 256, OPT_TOKEN, OPT_JSON, OPT_WAIT, OPT_PRIORITY, OPT_IDEMPOTENCY_KEY, OPT_STATE,
    OPT_NAME, OPT_LIMIT, OPT_BEFORE, OPT_SINCE, OPT_ALL, OPT_VERSION, OPT_REPLACE,
    OPT_UPLOAD_MODELS
};

/* The usage error for the option getopt_long refused (c: '?' or ':'). */
static int bad_option(char **argv, int c)
{
    char name[128];
    switch (option_refused(argv, c, name, sizeof name)) {
    case OPTION_NEEDS_VALUE: return fdc_fail_usage("option %s needs a value", name);
    case OPTION_TAKES_NO_VALUE: return fdc_fail_usage("option %s takes no value", name);
    default: return fdc_fail_usage("unknown option %s", name);
    }
}

/* Is --json among the options (before a "--")? Looked at before anything else, so that
 * even a usage error in front of it is reported as JSON. */
static int wants_json(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--json") == 0)
            return 1;
    return 0;
}

/* Parses argv: options may come before or after the command; the first other argument
 * is the command, the rest its positional arguments ("-" included: stdin). */
static int parse(int argc, char **argv, fdc_client *c, fdc_args *a, const char **cmd,
                 int *help, int *version)
{
    static const struct option longopts[] = {
        {"url", required_argument, NULL, OPT_URL},
        {"token", required_argument, NULL, OPT_TOKEN},
        {"json", no_argument, NULL, OPT_JSON},
        {"wait", no_argument, NULL, OPT_WAIT},
        {"priority", required_argument, NULL, OPT_PRIORITY},
        {"idempotency-key", required_argument, NULL, OPT_IDEMPOTENCY_KEY},
        {"state", required_argument, NULL, OPT_STATE},
        {"name", required_argument, NULL, OPT_NAME},
        {"limit", required_argument, NULL, OPT_LIMIT},
        {"before", required_argument, NULL, OPT_BEFORE},
        {"since", required_argument, NULL, OPT_SINCE},
        {"out", required_argument, NULL, 'o'},
        {"all", no_argument, NULL, OPT_ALL},
        {"replace", no_argument, NULL, OPT_REPLACE},
        {"upload-models", no_argument, NULL, OPT_UPLOAD_MODELS},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0},
    };
    const char *url = getenv("FDWAVE_URL");
    c->token = getenv("FDWAVE_TOKEN");
    opterr = 0; /* our messages, not getopt's */
    /* "-": arguments other than options come back in order, as option 1. */
    int o;
    while ((o = getopt_long(argc, argv, "-:ho:", longopts, NULL)) != -1) {
        switch (o) {
        case 1:
            if (!*cmd)
                *cmd = optarg;
            else if (a->npos < FDC_MAX_POS)
                a->pos[a->npos++] = optarg;
            else
                return fdc_fail_usage("too many arguments (at %s)", optarg);
            break;
        case OPT_URL: url = optarg; break;
        case OPT_TOKEN: c->token = optarg; break;
        case OPT_JSON: c->json = 1; break;
        case OPT_WAIT: a->wait = 1; break;
        case OPT_PRIORITY: a->priority = optarg; break;
        case OPT_IDEMPOTENCY_KEY: a->idempotency_key = optarg; break;
        case OPT_STATE: a->state = optarg; break;
        case OPT_NAME: a->name = optarg; break;
        case OPT_LIMIT: a->limit = optarg; break;
        case OPT_BEFORE: a->before = optarg; break;
        case OPT_SINCE: a->since = optarg; break;
        case 'o': a->out_dir = optarg; break;
        case OPT_ALL: a->all = 1; break;
        case OPT_REPLACE: a->replace = 1; break;
        case OPT_UPLOAD_MODELS: a->upload_models = 1; break;
        case 'h': *help = 1; break;
        case OPT_VERSION: *version = 1; break;
        default: /* '?' or ':' */
            return bad_option(argv, o);
        }
    }
    for (int i = optind; i < argc; i++) { /* after "--" */
        if (!*cmd)
            *cmd = argv[i];
        else if (a->npos < FDC_MAX_POS)
            a->pos[a->npos++] = argv[i];
        else
            return fdc_fail_usage("too many arguments (at %s)", argv[i]);
    }
    if (!url || !*url)
        url = "http://127.0.0.1:8080";
    if (strlen(url) >= sizeof c->url)
        return fdc_fail_usage("--url is too long: %.60s...", url);
    snprintf(c->url, sizeof c->url, "%s", url);
    size_t n = strlen(c->url);
    while (n > 0 && c->url[n - 1] == '/')
        c->url[--n] = '\0';
    if (strncmp(c->url, "http://", 7) != 0 && strncmp(c->url, "https://", 8) != 0)
        return fdc_fail_usage("--url must start with http:// or https://, got '%s'", c->url);
    return FDC_EXIT_OK;
}

int main(int argc, char **argv)
{
    fdc_client c = {0};
    fdc_args a = {0};
    const char *cmd = NULL;
    int help = 0, version = 0;
    fdc_report_set_json(wants_json(argc, argv));
    int rc = parse(argc, argv, &c, &a, &cmd, &help, &version);
    if (rc)
        return rc;
    if (help) {
        fputs(usage_text, stdout);
        return FDC_EXIT_OK;
    }
    if (version) {
        printf("fdwave %s\n", FDC_VERSION);
        return FDC_EXIT_OK;
    }
    if (!cmd) {
        if (c.json)
            return fdc_fail_usage("no command given");
        fputs(usage_text, stderr);
        return FDC_EXIT_USAGE;
    }
    static const struct {
        const char *name;
        int (*fn)(const fdc_client *, const fdc_args *);
    } table[] = {
        {"submit", fdc_cmd_submit},   {"list", fdc_cmd_list},       {"status", fdc_cmd_status},
        {"watch", fdc_cmd_watch},     {"cancel", fdc_cmd_cancel},   {"outputs", fdc_cmd_outputs},
        {"fetch", fdc_cmd_fetch},     {"models", fdc_cmd_models},   {"devices", fdc_cmd_devices},
        {"health", fdc_cmd_health},   {"usage", fdc_cmd_usage},     {"rm", fdc_cmd_rm},
        {"data", fdc_cmd_data},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(cmd, table[i].name) == 0) {
            if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
                return fdc_fail_local("cannot initialise libcurl");
            rc = table[i].fn(&c, &a);
            curl_global_cleanup();
            fflush(stdout);
            return rc;
        }
    }
    return fdc_fail_usage("unknown command '%s'", cmd);
}
