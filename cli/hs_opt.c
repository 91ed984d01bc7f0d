/* hs_opt.c -- the table-driven option parser and help (see hs_opt.h). */
#include "hs_opt.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hs_suggest.h"
#include "hs_units.h"

/* The option of the groups named by a long name of len bytes, or by a
   short letter (len 0); its group in *g. */
static const hs_opt_t *hs__opt_find(const hs_opt_group_t *groups,
                                    size_t n_groups, const char *name,
                                    size_t len, char letter, size_t *g)
{
    size_t k;
    const hs_opt_t *o;

    for (k = 0; k < n_groups; k++)
        for (o = groups[k].opts; o->name != NULL; o++) {
            if (len > 0 ? strlen(o->name) == len
                              && strncmp(o->name, name, len) == 0
                        : o->short_name != 0 && o->short_name == letter) {
                *g = k;
                return o;
            }
        }
    return NULL;
}

/* Stores v in an unsigned field of size bytes. */
static void hs__opt_store_u(void *dst, size_t size, uint64_t v)
{
    switch (size) {
    case 1: *(uint8_t *)dst = (uint8_t)v; break;
    case 2: *(uint16_t *)dst = (uint16_t)v; break;
    case 4: *(uint32_t *)dst = (uint32_t)v; break;
    default: *(uint64_t *)dst = v; break;
    }
}

static void hs__opt_store_i(void *dst, size_t size, int64_t v)
{
    switch (size) {
    case 1: *(int8_t *)dst = (int8_t)v; break;
    case 2: *(int16_t *)dst = (int16_t)v; break;
    case 4: *(int32_t *)dst = (int32_t)v; break;
    default: *(int64_t *)dst = v; break;
    }
}

/* A whole number: 0 with *v, or -1 (sign, junk, overflow). */
static int hs__opt_u64(const char *t, uint64_t *v)
{
    char *end;
    unsigned long long x;

    if (*t == '\0' || *t == '-' || *t == ' ' || *t == '\t')
        return -1;
    errno = 0;
    x = strtoull(t, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *v = x;
    return 0;
}

static int hs__opt_i64(const char *t, int64_t *v)
{
    char *end;
    long long x;

    if (*t == '\0' || *t == ' ' || *t == '\t')
        return -1;
    errno = 0;
    x = strtoll(t, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *v = x;
    return 0;
}

int hs_opt_double(const char *t, double *v)
{
    char *end;
    double x;

    if (*t == '\0')
        return -1;
    errno = 0;
    x = strtod(t, &end);
    if (errno != 0 || end == t || *end != '\0' || !isfinite(x))
        return -1;
    *v = x;
    return 0;
}

/* "a, b or c" of an enum's choices into buf. */
static const char *hs__opt_choices(const hs_opt_t *o, char *buf, size_t len)
{
    size_t k, n = 0, at = 0;

    buf[0] = '\0';
    while (o->choices[n] != NULL)
        n++;
    for (k = 0; k < n && at < len; k++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s",
                               k == 0 ? "" : (k + 1 == n ? " or " : ", "),
                               o->choices[k]);
    return buf;
}

/* Reads text as the number option o (U64, I64 or DOUBLE) into dst.
   HS_OK, or HS_ERR_USAGE. */
static hs_err_t hs__opt_number(const hs_opt_t *o, const char *shown,
                               const char *text, void *dst, hs_error_t *err)
{
    uint64_t u;
    int64_t i;
    double d;

    switch (o->kind) {
    case HS_OPT_U64:
        if (hs__opt_u64(text, &u) != 0 || u < o->u_lo || u > o->u_hi) {
            if (o->u_hi == UINT64_MAX)
                return hs_error_setf(err, HS_ERR_USAGE, "%s: '%s' is not a "
                                     "whole number >= %" PRIu64, shown, text,
                                     o->u_lo);
            return hs_error_setf(err, HS_ERR_USAGE, "%s: '%s' is not a whole "
                                 "number in %" PRIu64 "..%" PRIu64, shown,
                                 text, o->u_lo, o->u_hi);
        }
        hs__opt_store_u(dst, o->size, u);
        break;
    case HS_OPT_I64:
        if (hs__opt_i64(text, &i) != 0 || i < o->i_lo || i > o->i_hi)
            return hs_error_setf(err, HS_ERR_USAGE, "%s: '%s' is not a whole "
                                 "number in %" PRId64 "..%" PRId64, shown,
                                 text, o->i_lo, o->i_hi);
        hs__opt_store_i(dst, o->size, i);
        break;
    default:
        if (hs_opt_double(text, &d) != 0
            || !(d >= o->d_lo && d <= o->d_hi)) {
            if (o->d_hi == DBL_MAX)
                return hs_error_setf(err, HS_ERR_USAGE, "%s: '%s' is not a "
                                     "number >= %g", shown, text, o->d_lo);
            return hs_error_setf(err, HS_ERR_USAGE, "%s: '%s' is not a number "
                                 "in [%g, %g]", shown, text, o->d_lo,
                                 o->d_hi);
        }
        *(double *)dst = d;
        break;
    }
    return HS_OK;
}

/* Reads text as the quantity option o (TIME, BYTES or BANDWIDTH, each
   with its unit) into dst.  HS_OK, or HS_ERR_USAGE. */
static hs_err_t hs__opt_quantity(const hs_opt_t *o, const char *shown,
                                 const char *text, void *dst,
                                 hs_error_t *err)
{
    uint64_t u;
    int64_t i;
    double d;

    switch (o->kind) {
    case HS_OPT_TIME:
        if (hs_parse_time_ns(text, &i) != 0 || i < o->i_lo
            || i > o->i_hi) {
            char lo[64], hi[64];

            hs_fmt_time(o->i_lo, lo, sizeof lo);
            hs_fmt_time(o->i_hi, hi, sizeof hi);
            if (o->i_hi == INT64_MAX)
                return hs_error_setf(err, HS_ERR_USAGE, "%s: '%s' is not a "
                                     "duration with its unit (e.g. 120s) of "
                                     "at least %s", shown, text, lo);
            return hs_error_setf(err, HS_ERR_USAGE, "%s: '%s' is not a "
                                 "duration with its unit (e.g. 120s) in "
                                 "%s..%s", shown, text, lo, hi);
        }
        *(int64_t *)dst = i;
        break;
    case HS_OPT_BYTES:
        if (hs_parse_bytes(text, &u) != 0 || u < o->u_lo || u > o->u_hi)
            return hs_error_setf(err, HS_ERR_USAGE, "%s: '%s' is not a size "
                                 "with its unit in %" PRIu64 "..%" PRIu64
                                 " B, e.g. 350MB", shown, text, o->u_lo,
                                 o->u_hi);
        *(uint64_t *)dst = u;
        break;
    default:
        if (hs_parse_bandwidth(text, &d) != 0
            || !(d >= o->d_lo && d <= o->d_hi))
            return hs_error_setf(err, HS_ERR_USAGE, "%s: '%s' is not a "
                                 "bandwidth with its unit in [%g, %g] B/s, "
                                 "e.g. 25Gbps", shown, text, o->d_lo,
                                 o->d_hi);
        *(double *)dst = d;
        break;
    }
    return HS_OK;
}

/* Reads text as option o's value into base.  HS_OK, or HS_ERR_USAGE. */
static hs_err_t hs__opt_value(const hs_opt_t *o, const char *shown,
                              const char *text, void *base, hs_error_t *err)
{
    void *dst = (char *)base + o->off;
    size_t k;
    hs_err_t rc;
    char buf[256], hint[HS_SUGGEST_HINT_LEN];

    switch (o->kind) {
    case HS_OPT_FLAG:
        *(int *)dst = 1;
        break;
    case HS_OPT_U64:
    case HS_OPT_I64:
    case HS_OPT_DOUBLE:
        if ((rc = hs__opt_number(o, shown, text, dst, err)) != HS_OK)
            return rc;
        break;
    case HS_OPT_PATH:
        if (*text == '\0')
            return hs_error_setf(err, HS_ERR_USAGE, "%s: an empty name",
                                 shown);
        /* fall through */
    case HS_OPT_STRING:
        *(const char **)dst = text;
        break;
    case HS_OPT_ENUM:
        for (k = 0; o->choices[k] != NULL; k++)
            if (strcmp(o->choices[k], text) == 0)
                break;
        if (o->choices[k] == NULL)
            return hs_error_setf(err, HS_ERR_USAGE, "%s: '%s' is not %s%s",
                                 shown, text,
                                 hs__opt_choices(o, buf, sizeof buf),
                                 hs_suggest_hint_list(text, o->choices, hint,
                                                      sizeof hint));
        hs__opt_store_i(dst, o->size, o->values ? o->values[k] : (int)k);
        break;
    case HS_OPT_TIME:
    case HS_OPT_BYTES:
    case HS_OPT_BANDWIDTH:
        if ((rc = hs__opt_quantity(o, shown, text, dst, err)) != HS_OK)
            return rc;
        break;
    case HS_OPT_CUSTOM:
        if (o->parse(text, base) != 0)
            return hs_error_setf(err, HS_ERR_USAGE, "%s: '%s' is not %s",
                                 shown, text, o->valid ? o->valid
                                                       : "valid");
        break;
    }
    if (o->has_seen)
        *(int *)((char *)base + o->seen_off) = 1;
    return HS_OK;
}

/* "unknown option '--x'", with the nearest long option (or --help) when
   one is close: the text is a[0..len). */
static hs_err_t hs__opt_unknown(const hs_opt_group_t *groups,
                                size_t n_groups, const char *a, size_t len,
                                hs_error_t *err)
{
    char word[HS_SUGGEST_MAX_LEN + 1], names[HS_SUGGEST_MAX_LEN + 3];
    char hint[HS_SUGGEST_HINT_LEN];
    hs_suggest_t sg;
    const hs_opt_t *o;
    size_t k, skip = a[1] == '-' ? 2 : 1;

    hint[0] = '\0';
    /* "-step" and "--step" are both compared by their name */
    if (len > skip && len - skip <= HS_SUGGEST_MAX_LEN) {
        memcpy(word, a + skip, len - skip);
        word[len - skip] = '\0';
        hs_suggest_init(&sg, word);
        for (k = 0; k < n_groups; k++)
            for (o = groups[k].opts; o->name != NULL; o++)
                hs_suggest_add(&sg, o->name);
        hs_suggest_add(&sg, "help");
        if (sg.best != NULL) {
            snprintf(names, sizeof names, "--%s", sg.best);
            sg.best = names;
            hs_suggest_hint(&sg, hint, sizeof hint);
        }
    }
    return hs_error_setf(err, HS_ERR_USAGE, "unknown option '%.*s'%s",
                         (int)len, a, hint);
}

hs_err_t hs_opt_parse(const hs_opt_cmd_t *cmd, const hs_opt_group_t *groups,
                      size_t n_groups, int argc, char **argv,
                      const char **pos, size_t pos_cap, size_t *n_pos,
                      int *help, hs_error_t *err)
{
    size_t max = cmd->max_pos < pos_cap ? cmd->max_pos : pos_cap;
    int i, only_pos = 0;

    *n_pos = 0;
    *help = 0;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL, *name;
        const hs_opt_t *o;
        size_t g = 0, len;
        char shown[80];

        if (only_pos || a[0] != '-' || a[1] == '\0') {
            if (*n_pos >= max) {
                if (max == 0)
                    return hs_error_setf(err, HS_ERR_USAGE, "unexpected "
                                         "argument '%s'", a);
                return hs_error_setf(err, HS_ERR_USAGE, "%s %s only (got "
                                     "'%s' too)", max == 1 ? "one" : "fewer",
                                     cmd->pos_name ? cmd->pos_name
                                                   : "argument", a);
            }
            pos[(*n_pos)++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_pos = 1;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            *help = 1;
            return HS_OK;
        }
        if (a[1] == '-') {
            name = a + 2;
            v = strchr(name, '=');
            len = v != NULL ? (size_t)(v - name) : strlen(name);
            if (v != NULL)
                v++;
            o = len > 0 ? hs__opt_find(groups, n_groups, name, len, 0, &g)
                        : NULL;
        } else {
            o = a[2] == '\0' ? hs__opt_find(groups, n_groups, NULL, 0, a[1],
                                            &g)
                             : NULL;
        }
        if (o == NULL)
            return hs__opt_unknown(groups, n_groups, a,
                                   v != NULL ? (size_t)(v - 1 - a)
                                             : strlen(a),
                                   err);
        if (a[1] == '-')
            snprintf(shown, sizeof shown, "--%s", o->name);
        else
            snprintf(shown, sizeof shown, "-%c", o->short_name);
        if (o->kind == HS_OPT_FLAG) {
            if (v != NULL)
                return hs_error_setf(err, HS_ERR_USAGE, "%s takes no value "
                                     "(got '%s')", shown, v);
        } else if (v == NULL) {
            if (i + 1 >= argc)
                return hs_error_setf(err, HS_ERR_USAGE, "%s needs a value%s%s%s",
                                     shown, o->metavar ? " (" : "",
                                     o->metavar ? o->metavar : "",
                                     o->metavar ? ")" : "");
            v = argv[++i];
        }
        if (hs__opt_value(o, shown, v, groups[g].base, err) != HS_OK)
            return HS_ERR_USAGE;
    }
    return HS_OK;
}

/* "  -o, --output OUT" of o into buf; its length. */
static size_t hs__opt_left(const hs_opt_t *o, char *buf, size_t len)
{
    int n;

    if (o->short_name != 0)
        n = snprintf(buf, len, "  -%c, --%s%s%s", o->short_name, o->name,
                     o->metavar ? " " : "", o->metavar ? o->metavar : "");
    else
        n = snprintf(buf, len, "  --%s%s%s", o->name,
                     o->metavar ? " " : "", o->metavar ? o->metavar : "");
    return n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
}

/* One option line: left part, then the help's lines at column col. */
static void hs__opt_line(FILE *f, const char *left, size_t n, size_t col,
                         const char *help)
{
    const char *p = help ? help : "";

    fputs(left, f);
    if (n + 2 > col) {
        fputc('\n', f);
        n = 0;
    }
    for (;;) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);

        fprintf(f, "%*s%.*s\n", (int)(col - n), "", (int)l, p);
        if (nl == NULL)
            break;
        p = nl + 1;
        n = 0;
    }
}

void hs_opt_help(const hs_opt_cmd_t *cmd, const hs_opt_group_t *groups,
                 size_t n_groups, FILE *f)
{
    static const hs_opt_t help = {.name = "help", .kind = HS_OPT_FLAG,
                                  .help = "this text"};
    char left[128];
    size_t k, n, col = 0;
    const hs_opt_t *o;

    for (k = 0; k < n_groups; k++)
        for (o = groups[k].opts; o->name != NULL; o++) {
            n = hs__opt_left(o, left, sizeof left) + 2;
            if (n > col && n <= 24)
                col = n;
        }
    if (col < 16)
        col = 16;
    fputs(cmd->usage, f);
    if (cmd->about != NULL)
        fprintf(f, "\n%s", cmd->about);
    fputs("\noptions:\n", f);
    for (k = 0; k < n_groups; k++)
        for (o = groups[k].opts; o->name != NULL; o++) {
            n = hs__opt_left(o, left, sizeof left);
            hs__opt_line(f, left, n, col, o->help);
        }
    n = hs__opt_left(&help, left, sizeof left);
    hs__opt_line(f, left, n, col, help.help);
    if (cmd->after != NULL)
        fprintf(f, "\n%s", cmd->after);
}

/* Manual pages (roff, man(7) macros) and bash completion: written from
   the same tables as --help, so the three cannot disagree. */

/* Text of len bytes as roff: '\' as \e, '-' as \- (a minus sign, so an
   option copied from the page works), a leading '.' or '\'' guarded. */
static void hs__opt_roff_span(FILE *f, const char *t, size_t len, int bol)
{
    size_t k;

    for (k = 0; k < len; k++) {
        if (bol && (t[k] == '.' || t[k] == '\''))
            fputs("\\&", f);
        bol = 0;
        if (t[k] == '\\')
            fputs("\\e", f);
        else if (t[k] == '-')
            fputs("\\-", f);
        else
            fputc(t[k], f);
    }
}

/* The paragraphs of text[0..len) as roff (see hs_opt_man_text). */
static void hs__opt_man_textn(FILE *f, const char *text, size_t len)
{
    const char *p = text, *stop = text + len, *end, *q;
    int first = 1;

    while (p < stop) {
        int indented = 0;

        while (p < stop && *p == '\n')
            p++;
        if (p >= stop)
            break;
        /* a paragraph runs to a blank line */
        for (end = p; end < stop; end++)
            if (*end == '\n' && end + 1 < stop && end[1] == '\n')
                break;
        for (q = p; q < end;) {
            const char *nl = memchr(q, '\n', (size_t)(end - q));

            if (*q == ' ' || *q == '\t')
                indented = 1;
            q = nl ? nl + 1 : end;
        }
        if (!first)
            fputs(".PP\n", f);
        first = 0;
        /* lists and tables keep their layout; prose is filled */
        if (indented)
            fputs(".nf\n", f);
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

            hs__opt_roff_span(f, p, l, 1);
            fputc('\n', f);
            p += l + (nl ? 1 : 0);
        }
        if (indented)
            fputs(".fi\n", f);
    }
}

void hs_opt_man_text(FILE *f, const char *text)
{
    hs__opt_man_textn(f, text, strlen(text));
}

/* "-o, --output OUT" of o in bold and italics, without a line end. */
static void hs__opt_man_left(const hs_opt_t *o, FILE *f)
{
    if (o->short_name != 0)
        fprintf(f, "\\fB\\-%c\\fR, ", o->short_name);
    fputs("\\fB\\-\\-", f);
    hs__opt_roff_span(f, o->name, strlen(o->name), 0);
    fputs("\\fR", f);
    if (o->metavar != NULL) {
        fputs(" \\fI", f);
        hs__opt_roff_span(f, o->metavar, strlen(o->metavar), 0);
        fputs("\\fR", f);
    }
    fputc('\n', f);
}

/* The page's title line: .TH NAME 1 "" "hetsim VERSION" "hetsim manual". */
void hs_opt_man_head(FILE *f, const char *page, const char *version)
{
    char up[128];
    size_t k;

    for (k = 0; page[k] != '\0' && k + 1 < sizeof up; k++)
        up[k] = (char)(page[k] >= 'a' && page[k] <= 'z' ? page[k] - 32
                                                         : page[k]);
    up[k] = '\0';
    fputs(".TH ", f);
    hs__opt_roff_span(f, up, strlen(up), 0);
    fprintf(f, " 1 \"\" \"hetsim %s\" \"hetsim manual\"\n", version);
    fputs(".nh\n.ad l\n", f);     /* no hyphenation, ragged right */
}

void hs_opt_man(const hs_opt_cmd_t *cmd, const char *summary,
                const char *version, const hs_opt_group_t *groups,
                size_t n_groups, FILE *f)
{
    char page[128];
    const char *p, *after;
    size_t k;
    int notes = 0;
    const hs_opt_t *o;

    snprintf(page, sizeof page, "hetsim-%s", cmd->name);
    hs_opt_man_head(f, page, version);
    fputs(".SH NAME\n", f);
    hs__opt_roff_span(f, page, strlen(page), 1);
    fputs(" \\- ", f);
    hs__opt_roff_span(f, summary, strlen(summary), 0);
    /* the synopsis: cmd->usage less its "usage: " and that indent */
    fputs("\n.SH SYNOPSIS\n.nf\n", f);
    for (p = cmd->usage; *p != '\0';) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);

        if (strncmp(p, "usage: ", 7) == 0 || strncmp(p, "       ", 7) == 0) {
            p += 7;
            l -= l >= 7 ? 7 : l;
        }
        hs__opt_roff_span(f, p, l, 1);
        fputc('\n', f);
        p += l + (nl ? 1 : 0);
    }
    fputs(".fi\n", f);
    if (cmd->about != NULL) {
        fputs(".SH DESCRIPTION\n", f);
        hs_opt_man_text(f, cmd->about);
    }
    fputs(".SH OPTIONS\n", f);
    for (k = 0; k < n_groups; k++)
        for (o = groups[k].opts; o->name != NULL; o++) {
            fputs(".TP\n", f);
            hs__opt_man_left(o, f);
            hs_opt_man_text(f, o->help ? o->help : "");
        }
    fputs(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nthis text\n", f);
    /* the closing text: "exit status:" and "environment:" paragraphs get
       their sections, others are notes */
    for (after = cmd->after; after != NULL && *after != '\0';) {
        const char *end = strstr(after, "\n\n");
        size_t l = end ? (size_t)(end - after) : strlen(after), skip = 0;

        if (strncmp(after, "exit status:", 12) == 0) {
            fputs(".SH \"EXIT STATUS\"\n", f);
            skip = 12;
        } else if (strncmp(after, "environment:", 12) == 0) {
            fputs(".SH ENVIRONMENT\n", f);
            skip = 12;
        } else {
            fputs(notes++ ? ".PP\n" : ".SH NOTES\n", f);
        }
        while (skip < l && after[skip] == ' ')
            skip++;
        hs__opt_man_textn(f, after + skip, l - skip);
        after += l;
        while (*after == '\n')
            after++;
    }
    fputs(".SH \"SEE ALSO\"\n.BR hetsim (1)\n", f);
}

/* s as a bash single-quoted word's inside ('\'' for a quote). */
static void hs__opt_shq(FILE *f, const char *s)
{
    for (; *s != '\0'; s++) {
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    }
}

void hs_opt_complete_bash(const hs_opt_cmd_t *cmd,
                          const hs_opt_group_t *groups, size_t n_groups,
                          FILE *f)
{
    size_t k, c, n_none = 0;
    const hs_opt_t *o;

    fprintf(f, "    %s)\n        opts='", cmd->name);
    for (k = 0; k < n_groups; k++)
        for (o = groups[k].opts; o->name != NULL; o++) {
            hs__opt_shq(f, "--");
            hs__opt_shq(f, o->name);
            fputc(' ', f);
            if (o->short_name != 0)
                fprintf(f, "-%c ", o->short_name);
        }
    fputs("--help -h'\n        case $prev in\n", f);
    /* a value from a set: its names; a file: file names */
    for (k = 0; k < n_groups; k++)
        for (o = groups[k].opts; o->name != NULL; o++) {
            if (o->kind != HS_OPT_ENUM && o->kind != HS_OPT_PATH)
                continue;
            fputs("        --", f);
            hs__opt_shq(f, o->name);
            if (o->short_name != 0)
                fprintf(f, "|-%c", o->short_name);
            if (o->kind == HS_OPT_PATH) {
                fputs(") _hetsim_files; return ;;\n", f);
                continue;
            }
            fputs(") COMPREPLY=($(compgen -W '", f);
            for (c = 0; o->choices[c] != NULL; c++) {
                if (c > 0)
                    fputc(' ', f);
                hs__opt_shq(f, o->choices[c]);
            }
            fputs("' -- \"$cur\")); return ;;\n", f);
        }
    /* any other value: nothing to offer */
    for (k = 0; k < n_groups; k++)
        for (o = groups[k].opts; o->name != NULL; o++) {
            if (o->kind == HS_OPT_FLAG || o->kind == HS_OPT_ENUM
                || o->kind == HS_OPT_PATH)
                continue;
            fputs(n_none++ == 0 ? "        " : "|", f);
            fputs("--", f);
            hs__opt_shq(f, o->name);
            if (o->short_name != 0)
                fprintf(f, "|-%c", o->short_name);
        }
    if (n_none > 0)
        fputs(") COMPREPLY=(); return ;;\n", f);
    fputs("        esac ;;\n", f);
}
