/*
 * hs_yamlemit.h -- small helpers over libyaml's emitter, for every writer
 * of YAML in hetsim (profiles, scenarios): one call per scalar, mapping or
 * sequence boundary, key-value pair or duration.  Each returns 1 on
 * success and 0 when the emitter failed (its error is in em->problem), so
 * a writer chains them with && and reports once.
 */
#ifndef HS_YAMLEMIT_H
#define HS_YAMLEMIT_H

#include <stdint.h>
#include <stdio.h>
#include <yaml.h>

/* Emits the scalar s (NUL-terminated) in the given style.  A byte of s
   that starts no valid UTF-8 character (a name read from a trace, whose
   strings are not checked, or a path) is written as U+FFFD, so that the
   file is always YAML and loads back; 0 also when out of memory. */
int hs_yamlemit_scalar(yaml_emitter_t *em, const char *s,
                       yaml_scalar_style_t style);

/* Starts a mapping or a sequence: flow style ({...}, [...]) when flow is
   non-zero, else block style. */
int hs_yamlemit_map_start(yaml_emitter_t *em, int flow);
int hs_yamlemit_seq_start(yaml_emitter_t *em, int flow);

/* Ends the innermost mapping or sequence. */
int hs_yamlemit_map_end(yaml_emitter_t *em);
int hs_yamlemit_seq_end(yaml_emitter_t *em);

/* Emits the plain key k and the plain value v. */
int hs_yamlemit_kv(yaml_emitter_t *em, const char *k, const char *v);

/* Emits a duration as the plain scalar "<ns>ns". */
int hs_yamlemit_time(yaml_emitter_t *em, int64_t ns);

/* Emits the stream start and an implicit document start (begin), or the
   implicit document end, the stream end and a flush (end). */
int hs_yamlemit_begin(yaml_emitter_t *em);
int hs_yamlemit_end(yaml_emitter_t *em);

/* Sets up em to write to f (UTF-8, unicode allowed, line width `width`).
   Returns 1, or 0 when out of memory (nothing to delete then). */
int hs_yamlemit_init_file(yaml_emitter_t *em, FILE *f, int width);

#endif
