/* field_spec.h — the spec section the field kinds share (stencil, derivative: iterations
 * of an update of a field with an initial value): "iterations" and the unused wave
 * settings; the device memory of the two fields and their ghost planes (field_spec.c).
 * Internal to the kinds' spec sections. */
#ifndef FDW_FIELD_SPEC_H
#define FDW_FIELD_SPEC_H

#include "spec/spec_parse.h"

int field_parse(spec_ctx *c, const json_t *root);
uint64_t field_device_bytes(const fdw_spec *spec);

#endif
