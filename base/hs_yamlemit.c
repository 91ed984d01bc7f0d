/*
 * hs_yamlemit.c -- helpers over libyaml's emitter (hs_yamlemit.h).
 */
#include "hs_yamlemit.h"

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

static int hs__emit(yaml_emitter_t *em, yaml_event_t *ev)
{
    return yaml_emitter_emit(em, ev);
}

int hs_yamlemit_scalar(yaml_emitter_t *em, const char *s,
                       yaml_scalar_style_t style)
{
    yaml_event_t ev;

    if (!yaml_scalar_event_initialize(&ev, NULL, NULL,
                                      (yaml_char_t *)(uintptr_t)s,
                                      (int)strlen(s), 1, 1, style))
        return 0;
    return hs__emit(em, &ev);
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
