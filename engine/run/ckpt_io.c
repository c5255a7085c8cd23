/* ckpt_io.c — checkpoint files as checksummed byte streams (see ckpt_io.h). Small pieces
 * go through a 1 MiB buffer; large arrays are hashed in place and written or read with
 * one system call loop, so a checkpoint of many GiB costs about one pass over memory
 * plus the disk. The hash is a word-at-a-time multiply-xorshift over the byte stream
 * (the same value however the stream is split into pieces), finished with the length. */
#include "run/ckpt_io.h"
#include "core/error.h"
#include "core/limits.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CKPT_BUF (1u << 20)

struct fdw_ckpt_io {
    int fd;
    int writing;
    char path[FDW_PATH_MAX];
    char tmp[FDW_PATH_MAX + 8];
    uint64_t h;                /* running hash of the whole words seen */
    unsigned char part[8];     /* bytes not yet a whole word */
    int npart;
    uint64_t total;            /* bytes put or got */
    unsigned char *buf;        /* writing: pending bytes; reading: bytes read ahead */
    size_t len, pos;           /* writing: len pending; reading: [pos, len) unread */
};

static inline uint64_t mix(uint64_t h, uint64_t w)
{
    h ^= w;
    h *= 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

static void hash_bytes(fdw_ckpt_io *io, const unsigned char *p, size_t n)
{
    io->total += n;
    while (io->npart > 0 && io->npart < 8 && n > 0) {
        io->part[io->npart++] = *p++;
        n--;
    }
    if (io->npart == 8) {
        uint64_t w;
        memcpy(&w, io->part, 8);
        io->h = mix(io->h, w);
        io->npart = 0;
    }
    uint64_t h = io->h;
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = mix(h, w);
    }
    io->h = h;
    for (; n > 0; n--)
        io->part[io->npart++] = *p++;
}

static uint64_t hash_final(const fdw_ckpt_io *io)
{
    uint64_t w = 0;
    memcpy(&w, io->part, (size_t)io->npart);
    return mix(mix(io->h, w), io->total ^ 0xC0FFEEull);
}

/* "disk full" first for ENOSPC and EDQUOT, so the daemon can tell the operator. */
static fdw_status io_fail(fdw_error *err, const char *what, const char *path, int e)
{
    if (e == ENOSPC || e == EDQUOT)
        return fdw_fail(err, FDW_ERR_IO, NULL, "disk full: cannot %s checkpoint %s (%s)", what,
                        path, strerror(e));
    return fdw_fail(err, FDW_ERR_IO, NULL, "cannot %s checkpoint %s: %s", what, path,
                    strerror(e));
}

static fdw_status write_all(fdw_ckpt_io *io, const void *data, size_t n, fdw_error *err)
{
    const char *p = data;
    while (n > 0) {
        ssize_t w = write(io->fd, p, n > (1u << 30) ? (1u << 30) : n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return io_fail(err, "write", io->tmp, w < 0 ? errno : EIO);
        p += w;
        n -= (size_t)w;
    }
    return FDW_OK;
}

static fdw_status flush(fdw_ckpt_io *io, fdw_error *err)
{
    fdw_status st = io->len ? write_all(io, io->buf, io->len, err) : FDW_OK;
    io->len = 0;
    return st;
}

static fdw_ckpt_io *io_new(const char *path, fdw_error *err)
{
    fdw_ckpt_io *io = calloc(1, sizeof *io);
    if (io)
        io->buf = malloc(CKPT_BUF);
    if (!io || !io->buf) {
        if (io)
            free(io);
        fdw_fail(err, FDW_ERR_NOMEM, NULL, "out of host memory for a checkpoint buffer");
        return NULL;
    }
    io->fd = -1;
    io->h = 0x243F6A8885A308D3ull;
    if (snprintf(io->path, sizeof io->path, "%s", path) >= (int)sizeof io->path) {
        free(io->buf);
        free(io);
        fdw_fail(err, FDW_ERR_IO, NULL, "checkpoint path is too long");
        return NULL;
    }
    snprintf(io->tmp, sizeof io->tmp, "%s.tmp", path);
    return io;
}

fdw_status fdw_ckpt_create(fdw_ckpt_io **out, const char *path, fdw_error *err)
{
    *out = NULL;
    fdw_ckpt_io *io = io_new(path, err);
    if (!io)
        return err ? err->code : FDW_ERR_NOMEM;
    io->writing = 1;
    io->fd = open(io->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
    if (io->fd < 0) {
        fdw_status st = io_fail(err, "create", io->tmp, errno);
        free(io->buf);
        free(io);
        return st;
    }
    *out = io;
    return FDW_OK;
}

fdw_status fdw_ckpt_open(fdw_ckpt_io **out, const char *path, fdw_error *err)
{
    *out = NULL;
    fdw_ckpt_io *io = io_new(path, err);
    if (!io)
        return err ? err->code : FDW_ERR_NOMEM;
    io->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (io->fd < 0) {
        fdw_status st = io_fail(err, "open", path, errno);
        free(io->buf);
        free(io);
        return st;
    }
    *out = io;
    return FDW_OK;
}

fdw_status fdw_ckpt_put(fdw_ckpt_io *io, const void *data, size_t n, fdw_error *err)
{
    if (!io->writing)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "checkpoint %s is open for reading",
                        io->path);
    hash_bytes(io, data, n);
    if (io->len + n <= CKPT_BUF) {
        memcpy(io->buf + io->len, data, n);
        io->len += n;
        return FDW_OK;
    }
    fdw_status st = flush(io, err);
    return st == FDW_OK ? write_all(io, data, n, err) : st;
}

/* One read(2) of up to n bytes into dst: *got > 0, or an error (an end of file is one:
 * the checkpoint was cut short). */
static fdw_status read_some(fdw_ckpt_io *io, void *dst, size_t n, size_t *got, fdw_error *err)
{
    for (;;) {
        ssize_t r = read(io->fd, dst, n > (1u << 30) ? (1u << 30) : n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return io_fail(err, "read", io->path, errno);
        if (r == 0)
            return fdw_fail(err, FDW_ERR_IO, NULL, "checkpoint %s ends early (truncated)",
                            io->path);
        *got = (size_t)r;
        return FDW_OK;
    }
}

/* Raw bytes without hashing (the stored hash itself). */
static fdw_status get_raw(fdw_ckpt_io *io, void *data, size_t n, fdw_error *err)
{
    unsigned char *p = data;
    const size_t have = io->len - io->pos;
    const size_t take = have < n ? have : n;
    memcpy(p, io->buf + io->pos, take);
    io->pos += take;
    p += take;
    n -= take;
    const int direct = n >= CKPT_BUF; /* a large array: straight into place */
    while (n > 0) {
        size_t got = 0;
        fdw_status st = read_some(io, direct ? p : io->buf, direct ? n : CKPT_BUF, &got, err);
        if (st != FDW_OK)
            return st;
        size_t t = got;
        if (!direct) { /* refilled the buffer: take what is wanted of it */
            io->len = got;
            t = got < n ? got : n;
            memcpy(p, io->buf, t);
            io->pos = t;
        }
        p += t;
        n -= t;
    }
    return FDW_OK;
}

fdw_status fdw_ckpt_get(fdw_ckpt_io *io, void *data, size_t n, fdw_error *err)
{
    if (io->writing)
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "checkpoint %s is open for writing",
                        io->tmp);
    fdw_status st = get_raw(io, data, n, err);
    if (st == FDW_OK)
        hash_bytes(io, data, n);
    return st;
}

/* The length prefix alone: n. */
static fdw_status fdw_ckpt_put_len(fdw_ckpt_io *io, uint64_t n, fdw_error *err)
{
    return fdw_ckpt_put(io, &n, sizeof n, err);
}

fdw_status fdw_ckpt_get_len(fdw_ckpt_io *io, uint64_t n, const char *what, fdw_error *err)
{
    uint64_t have = 0;
    fdw_status st = fdw_ckpt_get(io, &have, sizeof have, err);
    if (st == FDW_OK && have != n)
        return fdw_fail(err, FDW_ERR_IO, NULL,
                        "checkpoint %s holds %llu bytes of %s where this run has %llu",
                        io->path, (unsigned long long)have, what, (unsigned long long)n);
    return st;
}

fdw_status fdw_ckpt_put_array(fdw_ckpt_io *io, const void *data, size_t n, fdw_error *err)
{
    fdw_status st = fdw_ckpt_put_len(io, n, err);
    return st == FDW_OK ? fdw_ckpt_put(io, data, n, err) : st;
}

fdw_status fdw_ckpt_get_array(fdw_ckpt_io *io, void *data, size_t n, const char *what,
                              fdw_error *err)
{
    fdw_status st = fdw_ckpt_get_len(io, n, what, err);
    return st == FDW_OK ? fdw_ckpt_get(io, data, n, err) : st;
}

/* fsync the directory holding path, so a rename into it is durable. */
static int sync_dir_of(const char *path)
{
    char dir[FDW_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        dir[1] = '\0';
    else if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

static void io_free(fdw_ckpt_io *io)
{
    if (io->fd >= 0)
        close(io->fd);
    free(io->buf);
    free(io);
}

fdw_status fdw_ckpt_put_head(fdw_ckpt_io *io, int cur, int nslabs, int first, fdw_error *err)
{
    const int32_t head[3] = {cur, nslabs, first};
    return fdw_ckpt_put(io, head, sizeof head, err);
}

fdw_status fdw_ckpt_get_head(fdw_ckpt_io *io, int nslabs, int first, int *cur,
                             fdw_error *err)
{
    int32_t head[3];
    fdw_status st = fdw_ckpt_get(io, head, sizeof head, err);
    if (st != FDW_OK)
        return st;
    if ((head[0] != 0 && head[0] != 1) || head[1] != nslabs || head[2] != first)
        return fdw_fail(err, FDW_ERR_IO, NULL,
                        "the checkpoint holds %d slab(s) from slab %d; this run has %d from "
                        "slab %d", head[1], head[2], nslabs, first);
    *cur = head[0];
    return FDW_OK;
}

fdw_status fdw_ckpt_put_count(fdw_ckpt_io *io, int n, fdw_error *err)
{
    const int32_t count = n;
    return fdw_ckpt_put(io, &count, sizeof count, err);
}

fdw_status fdw_ckpt_get_count(fdw_ckpt_io *io, int n, int slab, fdw_error *err)
{
    int32_t count = -1;
    fdw_status st = fdw_ckpt_get(io, &count, sizeof count, err);
    if (st == FDW_OK && count != n)
        st = fdw_fail(err, FDW_ERR_IO, NULL,
                      "the checkpoint holds %d state arrays for slab %d; this run has %d",
                      count, slab, n);
    return st;
}

/* A writer's last steps once every byte is written: fsync, close, rename the temporary
 * file over path, fsync the directory. Closes the file descriptor either way. */
static fdw_status commit_file(fdw_ckpt_io *io, const char *path, fdw_error *err)
{
    fdw_status st = FDW_OK;
    if (fsync(io->fd) != 0)
        st = io_fail(err, "flush", io->tmp, errno);
    const int rc = close(io->fd);
    io->fd = -1;
    if (st == FDW_OK && rc != 0)
        st = io_fail(err, "close", io->tmp, errno);
    if (st == FDW_OK && rename(io->tmp, path) != 0)
        st = io_fail(err, "rename", path, errno);
    if (st == FDW_OK && sync_dir_of(path) != 0)
        st = io_fail(err, "flush the directory of", path, errno);
    return st;
}

fdw_status fdw_ckpt_finish(fdw_ckpt_io *io, fdw_error *err)
{
    const uint64_t h = hash_final(io);
    fdw_status st;
    if (io->writing) {
        st = flush(io, err);
        if (st == FDW_OK)
            st = write_all(io, &h, sizeof h, err);
        if (st == FDW_OK)
            st = commit_file(io, io->path, err);
        if (st != FDW_OK)
            unlink(io->tmp);
        io_free(io);
        return st;
    }
    uint64_t stored = 0;
    st = get_raw(io, &stored, sizeof stored, err);
    if (st == FDW_OK && stored != h)
        st = fdw_fail(err, FDW_ERR_IO, NULL,
                      "checkpoint %s is damaged (its checksum does not match its contents)",
                      io->path);
    if (st == FDW_OK) {
        unsigned char extra;
        fdw_error ignored;
        if (get_raw(io, &extra, 1, &ignored) == FDW_OK)
            st = fdw_fail(err, FDW_ERR_IO, NULL,
                          "checkpoint %s is damaged (bytes follow its checksum)", io->path);
    }
    io_free(io);
    return st;
}

fdw_status fdw_ckpt_verify(const char *path, fdw_error *err)
{
    fdw_ckpt_io *io = NULL;
    fdw_status st = fdw_ckpt_open(&io, path, err);
    if (st != FDW_OK)
        return st;
    struct stat sb;
    if (fstat(io->fd, &sb) != 0 || sb.st_size < 8) {
        fdw_ckpt_abandon(io);
        return fdw_fail(err, FDW_ERR_IO, NULL, "checkpoint %s is damaged (too short)", path);
    }
    uint64_t left = (uint64_t)sb.st_size - 8;
    while (left > 0 && st == FDW_OK) {
        const size_t n = left < CKPT_BUF ? (size_t)left : CKPT_BUF;
        size_t got = 0;
        st = read_some(io, io->buf, n, &got, err);
        if (st == FDW_OK) {
            hash_bytes(io, io->buf, got);
            left -= got;
        }
    }
    if (st != FDW_OK) {
        fdw_ckpt_abandon(io);
        return st;
    }
    io->len = io->pos = 0;
    return fdw_ckpt_finish(io, err);
}

void fdw_ckpt_abandon(fdw_ckpt_io *io)
{
    if (!io)
        return;
    if (io->writing) {
        if (io->fd >= 0)
            close(io->fd);
        io->fd = -1;
        unlink(io->tmp);
    }
    io_free(io);
}

fdw_status fdw_ckpt_write_text(const char *path, const char *text, fdw_error *err)
{
    fdw_ckpt_io *io = NULL;
    fdw_status st = fdw_ckpt_create(&io, path, err);
    if (st != FDW_OK)
        return st;
    st = write_all(io, text, strlen(text), err);
    if (st == FDW_OK)
        st = commit_file(io, path, err);
    if (st != FDW_OK)
        fdw_ckpt_abandon(io);
    else
        io_free(io);
    return st;
}
