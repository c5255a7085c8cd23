/* bad_runner.c — a runner that misbehaves on purpose, for the daemon's fault tests. The
 * daemon starts it through runner-command as "bad_runner {runner} {run} [CGROUP_DIR]"; it
 * reads the job's name from the run file and, for these names, does what a broken runner
 * might:
 *   garbage     writes lines that are no message, then half a line, then exits 3;
 *   hang        greets, then ignores stdin and every signal it can until killed;
 *   hog         greets, logs its RLIMIT_DATA, allocates and touches memory until an
 *               allocation fails, and reports that as the engine would (nomem);
 *   cgroup-oom  checks that the daemon put it in CGROUP_DIR/job-<id>, records an OOM kill
 *               in that cgroup's memory.events as the kernel would, and SIGKILLs itself;
 * any other name: it becomes the real runner (exec). */
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static void line(const char *text)
{
    fputs(text, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

static void hello(void)
{
    char t[96];
    snprintf(t, sizeof t, "{\"t\":\"hello\",\"pid\":%ld,\"ranks\":1}", (long)getpid());
    line(t);
}

static int hog(void)
{
    hello();
    struct rlimit rl;
    char t[512];
    getrlimit(RLIMIT_DATA, &rl);
    snprintf(t, sizeof t, "{\"t\":\"log\",\"level\":1,\"message\":\"RLIMIT_DATA %llu\"}",
             (unsigned long long)rl.rlim_cur);
    line(t);
    size_t total = 0;
    for (;;) {
        char *p = malloc(16u << 20);
        if (!p)
            break;
        memset(p, 1, 16u << 20);
        total += 16u << 20;
        if (total > (64ull << 30))
            break;
    }
    snprintf(t, sizeof t,
             "{\"t\":\"result\",\"status\":\"error\",\"code\":\"nomem\",\"field\":\"\","
             "\"message\":\"out of host memory after %zu MiB\",\"steps_done\":0,"
             "\"elapsed_s\":0,\"mpts\":0,\"backend\":\"cpu\",\"max_abs_error\":0,"
             "\"resumed_step\":0,\"checkpoint_step\":-1,\"suspended\":false,\"peak_rss\":%zu}",
             total >> 20, total);
    line(t);
    return 0;
}

static int cgroup_oom(const char *dir, long job)
{
    hello();
    char path[1200], want[32], have[4096] = "";
    snprintf(path, sizeof path, "%s/job-%ld/cgroup.procs", dir, job);
    snprintf(want, sizeof want, "%ld", (long)getpid());
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(have, 1, sizeof have - 1, f) : 0;
    have[n] = '\0';
    if (f)
        fclose(f);
    /* The child wrote "0" (itself) before exec: a real cgroup.procs shows its pid; the
     * test's plain file shows the "0" it wrote. */
    if (strcmp(have, "0") != 0 && !strstr(have, want)) {
        fprintf(stderr, "bad_runner: %s holds \"%s\", not this runner\n", path, have);
        return 5;
    }
    snprintf(path, sizeof path, "%s/job-%ld/memory.events", dir, job);
    f = fopen(path, "w");
    if (!f)
        return 6;
    fputs("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n", f);
    fclose(f);
    raise(SIGKILL);
    return 7;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bad_runner RUNNER RUN.json [CGROUP_DIR]\n");
        return 2;
    }
    json_t *run = json_load_file(argv[2], 0, NULL);
    json_t *spec = json_loads(json_string_value(json_object_get(run, "spec")), 0, NULL);
    const char *name = json_string_value(json_object_get(spec, "name"));
    const long job = (long)json_integer_value(json_object_get(run, "job"));
    if (name && !strcmp(name, "garbage")) {
        line("this is no message");
        line("{\"t\":\"progress\",\"step\":\"three\"}");
        fputs("{\"t\":\"log\",\"lev", stdout);
        fflush(stdout);
        return 3;
    }
    if (name && !strcmp(name, "hang")) {
        hello();
        signal(SIGTERM, SIG_IGN);
        signal(SIGINT, SIG_IGN);
        signal(SIGHUP, SIG_IGN);
        signal(SIGPIPE, SIG_IGN);
        for (;;)
            pause();
    }
    if (name && !strcmp(name, "hog"))
        return hog();
    if (name && !strcmp(name, "cgroup-oom"))
        return argc > 3 ? cgroup_oom(argv[3], job) : 8;
    json_decref(spec);
    json_decref(run);
    char *real[] = {argv[1], argv[2], NULL};
    execv(argv[1], real);
    perror("bad_runner: exec");
    return 127;
}
