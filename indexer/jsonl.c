#include "neardup/indexer.h"
#include "neardup/common.h"

#include <errno.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

struct nd_jsonl {
	FILE *f;
	const char *name;
	size_t max_line;
	char *line;
	size_t line_cap;
	size_t lineno;
	json_t *current;
	char idbuf[32];
};

int nd_jsonl_open(nd_jsonl **out, FILE *f, const char *name, size_t max_line)
{
	nd_jsonl *r = calloc(1, sizeof(*r));
	*out = NULL;
	if (!r)
		return nd_error_set(ND_ENOMEM, "out of memory");
	r->f = f;
	r->name = name;
	r->max_line = max_line;
	*out = r;
	return ND_OK;
}

/* The next line into r->line, holding at most max_line + 2 bytes of it
 * (room for the CR LF): the rest of a longer line is read and dropped, so
 * a file of one endless line costs no memory.  -1 at the end of input. */
static ssize_t read_line(nd_jsonl *r, int *too_long)
{
	size_t len = 0, keep = r->max_line < SIZE_MAX - 2 ? r->max_line + 2 : SIZE_MAX;
	int c = EOF;
	*too_long = 0;
	while ((c = getc_unlocked(r->f)) != EOF) {
		if (len < keep) {
			if (len + 1 >= r->line_cap) {
				size_t cap = r->line_cap ? r->line_cap * 2 : 4096;
				char *p = realloc(r->line, cap);
				if (!p)
					return -2;
				r->line = p, r->line_cap = cap;
			}
			r->line[len++] = (char)c;
		} else
			*too_long = 1;
		if (c == '\n')
			break;
	}
	if (c == EOF && len == 0)
		return -1;
	return (ssize_t)len;
}

static const char *opt_string(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

int nd_jsonl_next(nd_jsonl *r, nd_jsonl_record *rec)
{
	ssize_t n;

	json_decref(r->current);
	r->current = NULL;
	memset(rec, 0, sizeof(*rec));
	for (;;) {
		int too_long;
		errno = 0;
		n = read_line(r, &too_long);
		if (n == -2)
			return nd_error_set(ND_ENOMEM, "%s:%zu: out of memory", r->name, r->lineno + 1);
		if (n < 0) {
			if (ferror(r->f))
				return nd_error_set(ND_EIO, "%s: read error after line %zu: %s",
						    r->name, r->lineno, strerror(errno));
			return 0;
		}
		r->lineno++;
		size_t len = (size_t)n;
		while (len && (r->line[len - 1] == '\n' || r->line[len - 1] == '\r'))
			len--;
		size_t i = 0;
		while (i < len && (r->line[i] == ' ' || r->line[i] == '\t'))
			i++;
		if (i == len && !too_long)
			continue; /* blank line */
		rec->line = r->lineno;
		if (too_long || len > r->max_line)
			return nd_error_set(ND_ETOOBIG, "%s:%zu: line over the limit of %zu bytes",
					    r->name, r->lineno, r->max_line);
		json_error_t jerr;
		json_t *obj = json_loadb(r->line, len, JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES, &jerr);
		if (!obj)
			return nd_error_set(ND_EPARSE, "%s:%zu: column %d: %s", r->name, r->lineno,
					    jerr.column, jerr.text);
		r->current = obj;
		if (!json_is_object(obj))
			return nd_error_set(ND_EPARSE, "%s:%zu: not a JSON object", r->name, r->lineno);
		json_t *id = json_object_get(obj, "id");
		if (json_is_string(id) && json_string_length(id) > 0)
			rec->id = json_string_value(id);
		else if (json_is_integer(id)) {
			snprintf(r->idbuf, sizeof(r->idbuf), "%" JSON_INTEGER_FORMAT, json_integer_value(id));
			rec->id = r->idbuf;
		} else
			return nd_error_set(ND_EPARSE, "%s:%zu: missing or empty \"id\" (string or integer)",
					    r->name, r->lineno);
		if (strlen(rec->id) != (json_is_string(id) ? json_string_length(id) : strlen(rec->id)))
			return nd_error_set(ND_EPARSE, "%s:%zu: \"id\" contains a NUL character",
					    r->name, r->lineno);
		json_t *text = json_object_get(obj, "text");
		if (!json_is_string(text))
			return nd_error_set(ND_EPARSE, "%s:%zu: missing \"text\" string (id %s)",
					    r->name, r->lineno, rec->id);
		rec->text = json_string_value(text);
		rec->text_len = json_string_length(text);
		rec->url = opt_string(obj, "url");
		rec->title = opt_string(obj, "title");
		return 1;
	}
}

void nd_jsonl_close(nd_jsonl *r)
{
	if (!r)
		return;
	json_decref(r->current);
	free(r->line);
	free(r);
}
