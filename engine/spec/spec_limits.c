/* spec_limits.c — the limits on what a spec may make the engine expand, load or write
 * (sources, expanded receivers, snapshot files, recorded and loaded samples, a survey's
 * shots and traces): the
 * engine's defaults, lowered by the caller's fdw_parse_opts (the daemon's configured
 * caps). The section parsers check counts against these before expanding anything. */
#include "spec/spec_parse.h"

/* opt when it is set and below dflt, else dflt. */
static long lower(long opt, long dflt)
{
    return opt > 0 && opt < dflt ? opt : dflt;
}

long sp_max_sources(const spec_ctx *c)
{
    return lower(c->opts ? c->opts->max_sources : 0, SP_MAX_SOURCES);
}

long sp_max_receivers(const spec_ctx *c)
{
    return lower(c->opts ? c->opts->max_receivers : 0, SP_MAX_RECEIVERS);
}

long sp_max_snapshots(const spec_ctx *c)
{
    return lower(c->opts ? c->opts->max_snapshots : 0, SP_MAX_SNAPSHOTS);
}

uint64_t sp_max_record_bytes(const spec_ctx *c)
{
    uint64_t opt = c->opts ? c->opts->max_record_bytes : 0;
    return opt > 0 && opt < SP_MAX_RECORD_BYTES ? opt : SP_MAX_RECORD_BYTES;
}

long sp_max_shots(const spec_ctx *c)
{
    return lower(c->opts ? c->opts->max_shots : 0, SP_MAX_SHOTS);
}

long long sp_max_traces(const spec_ctx *c)
{
    long long opt = c->opts ? c->opts->max_traces : 0;
    return opt > 0 && opt < SP_MAX_TRACES ? opt : SP_MAX_TRACES;
}
