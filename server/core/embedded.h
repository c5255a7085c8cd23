/* embedded.h — files compiled into fdwaved (generated embedded_data.c): the OpenAPI
 * description served at /v1/openapi.yaml. The SQL migrations are in migrations.h. */
#ifndef FDWD_EMBEDDED_H
#define FDWD_EMBEDDED_H

#include <stddef.h>

extern const unsigned char *const fdwd_openapi_yaml;
extern const size_t fdwd_openapi_yaml_len;

#endif
