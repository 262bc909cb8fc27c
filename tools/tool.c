#include "tool.h"
#include "neardup/common.h"
#include "neardup/descriptor.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

int tool_fail(const char *cmd, int rc, const char *what)
{
	const char *detail = nd_error_last(), *text = strchr(nd_strerror(rc), ':');
	/* The words, not the code's name ("ND_EFULL: disk ..." -> "disk ..."):
	 * the name is for --json and the library's callers. */
	fprintf(stderr, "neardup %s: %s: %s\n", cmd, what, text ? text + 2 : nd_strerror(rc));
	if (detail && *detail)
		fprintf(stderr, "  %s\n", detail);
	return EXIT_ERR;
}

void tool_links_warn(const char *cmd, nd_store *st)
{
	nd_store_txn *txn;
	int state;
	if (!st || nd_store_read_begin(st, &txn) < 0)
		return;
	state = nd_store_links_state(txn);
	nd_store_txn_end(txn);
	if (state == ND_LINKS_REBUILD)
		fprintf(stderr, "neardup %s: warning: store %s: its links are to be made again (signed with "
			"--no-links, or a signing was killed before it linked): until a writer makes them "
			"('neardup update'), only verified equal-key groups fold\n", cmd, nd_store_path(st));
}

int tool_usage(const char *cmd, const char *fmt, ...)
{
	if (fmt) {
		va_list ap;
		fprintf(stderr, "neardup %s: ", cmd);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fprintf(stderr, "Try 'neardup %s --help'.\n", cmd);
	return EXIT_USAGE;
}

double tool_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int tool_quiet;

void tool_say(const char *fmt, ...)
{
	va_list ap;
	if (tool_quiet)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

void tool_progress_init(tool_progress *p, uint64_t total)
{
	p->tty = isatty(STDERR_FILENO) && !tool_quiet;
	p->start = tool_now();
	p->last = 0;
	p->total = total;
}

void tool_progress_show(tool_progress *p, uint64_t done, const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	double now;

	if (!p->tty)
		return;
	now = tool_now();
	if (now - p->last < 0.1)
		return;
	p->last = now;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->total) {
		int width = 30, fill = (int)((double)done / (double)p->total * width);
		if (fill > width)
			fill = width;
		fprintf(stderr, "\r[%.*s%*s] %3d%% %s\033[K", fill,
			"##############################", width - fill, "",
			(int)(100.0 * (double)done / (double)p->total), msg);
	} else
		fprintf(stderr, "\r%s\033[K", msg);
}

void tool_progress_end(tool_progress *p)
{
	if (p->tty && p->last > 0)
		fprintf(stderr, "\r\033[K");
}

double tool_peak_rss_mb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024.0;
}

int tool_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!s || !*s || *s == '-')
		return -1;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int tool_parse_finite(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	/* NaN passes every "v < lo || v > hi" test, and an infinity is no
	 * fraction either. */
	if (end == s || *end || errno == ERANGE || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int tool_parse_content(const char *s, nd_content *out)
{
	if (!strcmp(s, "main"))
		*out = ND_CONTENT_MAIN;
	else if (!strcmp(s, "full"))
		*out = ND_CONTENT_FULL;
	else
		return -1;
	return 0;
}

int tool_parse_point(const char *cmd, const char *s, nd_point *out)
{
	if (nd_point_parse(s, out) == ND_OK)
		return 0;
	tool_usage(cmd, "--point is strict, copy or story, not '%s'", s);
	return -1;
}

const char *tool_how_name(nd_verify_how how)
{
	switch (how) {
	case ND_VERIFIED_LEVENSHTEIN: return "levenshtein";
	case ND_VERIFIED_SHINGLES: return "shingles";
	case ND_VERIFIED_RESEMBLANCE: return "resemblance";
	case ND_VERIFIED_CONTAINMENT: return "containment";
	case ND_REFUSED_VALUES: return "values";
	case ND_VERIFIED_REPRESENTATIVE: return "representative";
	default: return "none";
	}
}

int tool_read_input(const char *path, size_t max, char **data, size_t *len)
{
	int fd = 0, rc;
	if (strcmp(path, "-") && (rc = nd_input_open(path, &fd)) < 0)
		return rc;
	rc = nd_input_read(fd, strcmp(path, "-") ? path : "standard input", max, data, len);
	if (fd)
		close(fd);
	return rc;
}

unsigned tool_default_jobs(void)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	return cores < 1 ? 1 : cores > ND_SIGN_MAX_JOBS ? ND_SIGN_MAX_JOBS : (unsigned)cores;
}

int tool_parse_jobs(const char *cmd, const char *s, unsigned *out)
{
	uint64_t v;
	if (tool_parse_u64(s, &v) || v == 0 || v > ND_SIGN_MAX_JOBS) {
		tool_usage(cmd, "--jobs needs 1..%d, not '%s'", ND_SIGN_MAX_JOBS, s);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}
