/*
 * hs_yamlemit.c -- helpers over libyaml's emitter (hs_yamlemit.h).
 */
#include "hs_yamlemit.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int hs__emit(yaml_emitter_t *em, yaml_event_t *ev)
{
    return yaml_emitter_emit(em, ev);
}

/* The bytes of the UTF-8 character at s that a YAML file can hold (1-4),
   or 0 where s holds none: a stray or missing continuation byte (the
   terminating NUL is one), an overlong form, a surrogate or a code point
   past U+10FFFF (libyaml's emitter refuses the first kinds, its reader
   the others). */
static size_t hs__utf8_char(const unsigned char *s)
{
    unsigned c = s[0], v;
    size_t n, k;

    if (c < 0x80)
        return 1;
    n = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
                            : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0)
        return 0;
    v = c & (0x7Fu >> n);
    for (k = 1; k < n; k++) {
        if ((s[k] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[k] & 0x3Fu);
    }
    if ((n == 2 && v < 0x80) || (n == 3 && v < 0x800) ||
        (n == 4 && v < 0x10000) || (v >= 0xD800 && v <= 0xDFFF) ||
        v > 0x10FFFF)
        return 0;
    return n;
}

/* The length of s's valid UTF-8 prefix (len: all of it). */
static size_t hs__utf8_valid(const char *s, size_t len)
{
    size_t i = 0, n;

    while (i < len && (n = hs__utf8_char((const unsigned char *)s + i)) > 0)
        i += n;
    return i;
}

/* A malloc'ed copy of s (len bytes) with each byte that starts no valid
   UTF-8 character replaced by U+FFFD; NULL when out of memory. */
static char *hs__utf8_fix(const char *s, size_t len)
{
    char *o = malloc(3 * len + 1);
    size_t i = 0, j = 0, n;

    if (o == NULL)
        return NULL;
    while (i < len) {
        n = hs__utf8_char((const unsigned char *)s + i);
        if (n > 0) {
            memcpy(o + j, s + i, n);
            i += n;
            j += n;
        } else {
            memcpy(o + j, "\xEF\xBF\xBD", 3);
            i++;
            j += 3;
        }
    }
    o[j] = '\0';
    return o;
}

int hs_yamlemit_scalar(yaml_emitter_t *em, const char *s,
                       yaml_scalar_style_t style)
{
    yaml_event_t ev;
    size_t len = strlen(s);
    char *fix = NULL;
    int ok;

    if (hs__utf8_valid(s, len) < len) {
        if ((fix = hs__utf8_fix(s, len)) == NULL)
            return 0;
        s = fix;
        len = strlen(fix);
    }
    ok = yaml_scalar_event_initialize(&ev, NULL, NULL,
                                      (yaml_char_t *)(uintptr_t)s, (int)len,
                                      1, 1, style);
    free(fix);  /* the event holds its own copy */
    return ok && hs__emit(em, &ev);
}

int hs_yamlemit_map_start(yaml_emitter_t *em, int flow)
{
    yaml_event_t ev;

    if (!yaml_mapping_start_event_initialize(
            &ev, NULL, NULL, 1,
            flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE))
        return 0;
    return hs__emit(em, &ev);
}

int hs_yamlemit_seq_start(yaml_emitter_t *em, int flow)
{
    yaml_event_t ev;

    if (!yaml_sequence_start_event_initialize(
            &ev, NULL, NULL, 1,
            flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE))
        return 0;
    return hs__emit(em, &ev);
}

int hs_yamlemit_map_end(yaml_emitter_t *em)
{
    yaml_event_t ev;

    yaml_mapping_end_event_initialize(&ev);
    return hs__emit(em, &ev);
}

int hs_yamlemit_seq_end(yaml_emitter_t *em)
{
    yaml_event_t ev;

    yaml_sequence_end_event_initialize(&ev);
    return hs__emit(em, &ev);
}

int hs_yamlemit_kv(yaml_emitter_t *em, const char *k, const char *v)
{
    return hs_yamlemit_scalar(em, k, YAML_PLAIN_SCALAR_STYLE) &&
           hs_yamlemit_scalar(em, v, YAML_PLAIN_SCALAR_STYLE);
}

int hs_yamlemit_time(yaml_emitter_t *em, int64_t ns)
{
    char b[32];

    snprintf(b, sizeof b, "%" PRId64 "ns", ns);
    return hs_yamlemit_scalar(em, b, YAML_PLAIN_SCALAR_STYLE);
}

int hs_yamlemit_begin(yaml_emitter_t *em)
{
    yaml_event_t ev;

    if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) ||
        !hs__emit(em, &ev))
        return 0;
    return yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) &&
           hs__emit(em, &ev);
}

int hs_yamlemit_end(yaml_emitter_t *em)
{
    yaml_event_t ev;

    if (!yaml_document_end_event_initialize(&ev, 1) || !hs__emit(em, &ev))
        return 0;
    if (!yaml_stream_end_event_initialize(&ev) || !hs__emit(em, &ev))
        return 0;
    return yaml_emitter_flush(em);
}

static int hs__write_handler(void *data, unsigned char *buf, size_t size)
{
    return fwrite(buf, 1, size, data) == size;
}

int hs_yamlemit_init_file(yaml_emitter_t *em, FILE *f, int width)
{
    if (!yaml_emitter_initialize(em))
        return 0;
    yaml_emitter_set_output(em, hs__write_handler, f);
    yaml_emitter_set_unicode(em, 1);
    yaml_emitter_set_width(em, width);
    return 1;
}
