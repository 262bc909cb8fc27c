#include "indexer/jsonl.h"
#include "neardup/common.h"

#include <errno.h>
#include <stdlib.h>
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
		errno = 0;
		n = getline(&r->line, &r->line_cap, r->f);
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
		if (i == len)
			continue; /* blank line */
		rec->line = r->lineno;
		if (len > r->max_line)
			return nd_error_set(ND_ETOOBIG, "%s:%zu: line of %zu bytes is over the limit of %zu",
					    r->name, r->lineno, len, r->max_line);
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
