/* ete_spec.h — the ETE kind's spec hooks (ete_spec.c) for its kind table entry (ete.c):
 * the parse of its members, its warnings and the release of its kspec (ete.h). */
#ifndef FDW_ETE_SPEC_H
#define FDW_ETE_SPEC_H

struct spec_ctx;
struct json_t;
struct fdw_spec;

int fdw_ete_parse(struct spec_ctx *c, const struct json_t *root);
void fdw_ete_warnings(struct spec_ctx *c);
void fdw_ete_free_spec(struct fdw_spec *spec);

#endif
