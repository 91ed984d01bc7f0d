/*
 * hs_valid.h -- validating names and addresses read from scenarios before
 * they reach an external command line.
 *
 * hetsim starts programs from argv arrays, never through a shell, so shell
 * syntax in a value is harmless; what is not harmless is a value that the
 * program itself reads as an option ("-oProxyCommand=..." given to ssh as
 * its host) or one that splits or corrupts a line of a report or a CSV
 * (whitespace, control characters).  So a name or an address is checked
 * once, at load, with the file:line:col of the value, and refused there:
 *
 *   a name     (a device, a device type, a profile): 1..HS_LIMIT_NAME_LEN
 *              bytes, not starting with '-', no whitespace and no control
 *              character (bytes 0x00-0x20 and 0x7f); other bytes, UTF-8
 *              included, are allowed;
 *   an address an IPv4 or IPv6 literal as inet_pton reads it (an IPv6
 *              literal may carry a zone, "fe80::1%eth0"), or a host name
 *              per RFC 1123: dot-separated labels of 1..63 letters, digits
 *              and hyphens, none starting or ending with '-', at most 253
 *              characters in all, with an optional final dot.
 */
#ifndef HS_VALID_H
#define HS_VALID_H

#include <stddef.h>

/*
 * 0 when name is a valid name; else -1, and *why (when why is not NULL)
 * points to a static phrase saying what is wrong, written to follow the
 * quoted value ("'-x' starts with '-'...").
 */
int hs_valid_name(const char *name, const char **why);

/* 0 when addr is an IP literal or an RFC 1123 host name; else -1 and *why
   as hs_valid_name. */
int hs_valid_addr(const char *addr, const char **why);

/*
 * text made safe to print inside quotes in a message: control characters
 * and DEL as \xNN, a backslash doubled, cut to fit buf (always NUL-
 * terminated; "..." marks a cut).  Returns buf.  So a refused value cannot
 * move the cursor or recolour the terminal it is reported to.
 */
char *hs_valid_quote(const char *text, char *buf, size_t len);

/* The longest excerpt of input an error message quotes, in bytes before
   escaping. */
#define HS_EXCERPT_LEN 40

/*
 * A short, printable excerpt of text read from an input, for an error
 * message: its first HS_EXCERPT_LEN characters at most, and only up to
 * the first that is not a letter, a digit or the punctuation of names,
 * quantities and paths ("..." marks a cut).  So a message never carries
 * more of a file than names the mistake: a path typed in the wrong place
 * (/etc/shadow as a profile) shows "root:...", never a password hash, and
 * nothing quoted can move the cursor or recolour the terminal.  Returns
 * one of 8 thread-local buffers used in turn: valid until the 8th next
 * call in the same thread, enough for one message's arguments.
 */
const char *hs_ex(const char *text);

#endif
