/* migrations.h — the schema/NNN_*.sql files, embedded into the binary at build time
 * (server/CMakeLists.txt generates migrations_data.c), in version order. */
#ifndef FDWD_MIGRATIONS_H
#define FDWD_MIGRATIONS_H

#include <stddef.h>

typedef struct fdwd_migration {
    int version;               /* NNN of the file name */
    const char *name;          /* file name */
    const unsigned char *sql;  /* file contents, not NUL-terminated */
    size_t len;
} fdwd_migration;

extern const fdwd_migration fdwd_migrations[];
extern const int fdwd_nmigrations;

#endif
