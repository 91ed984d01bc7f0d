/* hs_valid.c -- names and addresses (hs_valid.h). */
#include "hs_valid.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "hs_limits.h"

static int hs__fail(const char **why, const char *what)
{
    if (why != NULL)
        *why = what;
    return -1;
}

/* 1 for a byte no name or address may hold: whitespace, control. */
static int hs__bad_byte(unsigned char ch)
{
    return ch <= 0x20 || ch == 0x7f;
}

/* The checks names and addresses share; NULL when text passes them. */
static const char *hs__common(const char *text, size_t max_len)
{
    size_t n;

    if (text == NULL || text[0] == '\0')
        return "is empty";
    if (text[0] == '-')
        return "starts with '-', which a program would read as an option";
    for (n = 0; text[n] != '\0'; n++) {
        unsigned char ch = (unsigned char)text[n];
        if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' ||
            ch == '\v' || ch == '\f')
            return "holds white space";
        if (hs__bad_byte(ch))
            return "holds a control character";
        if (n >= max_len)
            return max_len == HS_LIMIT_NAME_LEN
                       ? "is longer than 128 bytes"
                       : "is longer than 253 characters";
    }
    return NULL;
}

int hs_valid_name(const char *name, const char **why)
{
    const char *w = hs__common(name, HS_LIMIT_NAME_LEN);

    if (w != NULL)
        return hs__fail(why, w);
    return 0;
}

/* 1 when text is an IPv6 literal with a zone, "fe80::1%eth0". */
static int hs__ipv6_zone(const char *text)
{
    const char *pct = strchr(text, '%');
    char buf[INET6_ADDRSTRLEN];
    struct in6_addr a6;
    size_t n = pct != NULL ? (size_t)(pct - text) : 0;
    const char *z;

    if (pct == NULL || n == 0 || n >= sizeof buf || pct[1] == '\0')
        return 0;
    memcpy(buf, text, n);
    buf[n] = '\0';
    if (inet_pton(AF_INET6, buf, &a6) != 1)
        return 0;
    if (pct[1] == '-')
        return 0;
    for (z = pct + 1; *z != '\0'; z++) {
        char ch = *z;
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
              (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' ||
              ch == '.'))
            return 0;
    }
    return 1;
}

/* NULL when text is a host name per RFC 1123, else why not. */
static const char *hs__hostname(const char *text)
{
    size_t label = 0, total = strlen(text);
    const char *p;
    char prev = '.';
    int digits_only = 1;

    if (total > 0 && text[total - 1] == '.')
        total--; /* the root's final dot */
    if (total == 0)
        return "is not a host name";
    for (p = text; (size_t)(p - text) < total; p++) {
        char ch = *p;
        if (ch == '.') {
            if (label == 0)
                return "has an empty label (two dots, or a leading dot)";
            if (prev == '-')
                return "has a label that ends with '-'";
            label = 0;
            digits_only = 1;
        } else if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                   (ch >= '0' && ch <= '9') || ch == '-') {
            if (label == 0 && ch == '-')
                return "has a label that starts with '-'";
            if (!(ch >= '0' && ch <= '9'))
                digits_only = 0;
            if (++label > HS_LIMIT_HOST_LABEL_LEN)
                return "has a label longer than 63 characters";
        } else {
            return "is neither an IP address nor a host name (letters, "
                   "digits, '-' and '.' only)";
        }
        prev = ch;
    }
    if (prev == '-')
        return "has a label that ends with '-'";
    /* RFC 1123 2.1: a name never has the form of a dotted number; "1.2.3"
       or "10.0.0.256" is a mistyped IP address (and inet_aton would read
       "1234" as 0.0.4.210). */
    if (digits_only)
        return "is not a valid IP address (and a host name's last label "
               "is not all digits)";
    return NULL;
}

int hs_valid_addr(const char *addr, const char **why)
{
    const char *w = hs__common(addr, HS_LIMIT_HOST_LEN);
    struct in_addr a4;
    struct in6_addr a6;

    if (w != NULL)
        return hs__fail(why, w);
    if (inet_pton(AF_INET, addr, &a4) == 1 ||
        inet_pton(AF_INET6, addr, &a6) == 1 || hs__ipv6_zone(addr))
        return 0;
    if ((w = hs__hostname(addr)) != NULL)
        return hs__fail(why, w);
    return 0;
}

char *hs_valid_quote(const char *text, char *buf, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)(text ? text : "");
    size_t o = 0;
    int cut = 0;

    if (len == 0)
        return buf;
    for (; *p != '\0'; p++) {
        char e[4];
        size_t n = 0;
        if (*p < 0x20 || *p == 0x7f) {
            e[n++] = '\\';
            e[n++] = 'x';
            e[n++] = hex[*p >> 4];
            e[n++] = hex[*p & 15];
        } else if (*p == '\\') {
            e[n++] = '\\';
            e[n++] = '\\';
        } else {
            e[n++] = (char)*p;
        }
        if (o + n > len - 1) {
            cut = 1;
            break;
        }
        memcpy(buf + o, e, n);
        o += n;
    }
    if (cut && len >= 4) {
        if (o > len - 4)
            o = len - 4;
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
    return buf;
}

const char *hs_ex(const char *text)
{
    static _Thread_local char pool[8][HS_EXCERPT_LEN + 4];
    static _Thread_local unsigned next;
    char *buf = pool[next++ % 8];
    const unsigned char *p = (const unsigned char *)(text ? text : "");
    size_t n = 0;

    /* letters, digits and the punctuation of names, quantities and
       paths; the first other character (a '$' of a password hash, a
       quote, a control character) ends the excerpt */
    while (p[n] != '\0' && n < HS_EXCERPT_LEN &&
           ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') ||
            (p[n] >= '0' && p[n] <= '9') || strchr("_.-+:/@,=% ()[]{}#*<>!?~^", p[n])))
        n++;
    memcpy(buf, p, n);
    if (p[n] != '\0')
        memcpy(buf + n, "...", 4);
    else
        buf[n] = '\0';
    return buf;
}
