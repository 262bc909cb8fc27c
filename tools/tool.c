#include "tool.h"
#include "neardup/common.h"
#include "neardup/descriptor.h"
#include "neardup/window.h"

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

void tool_sign_progress(nd_docid done, nd_docid last, void *ctx)
{
	tool_progress *p = ctx;
	p->total = last;
	double el = tool_now() - p->start;
	tool_progress_show(p, done, "docid %u of %u, %.0f docs/s", done, last, el > 0 ? done / el : 0.0);
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
	if (!s || *s < '0' || *s > '9') /* strtoull would take " 5", "+5" and "-5" */
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
	case ND_VERIFIED_PASSAGES: return "passages";
	case ND_REFUSED_VALUES: return "values";
	case ND_REFUSED_RENAMED: return "renamed";
	case ND_REFUSED_SIGNATURE: return "signature";
	case ND_REFUSED_THREAD: return "thread";
	case ND_REFUSED_FILLINGS: return "fillings";
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

int tool_cmp_docid(const void *a, const void *b)
{
	nd_docid x = *(const nd_docid *)a, y = *(const nd_docid *)b;
	return (x > y) - (x < y);
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

int tool_window_option(const char *cmd, int opt, const char *arg, tool_window *w)
{
	uint64_t v;
	if (opt == 'W') {
		w->given = 1;
		if (!strcmp(arg, "none")) {
			w->none = 1;
			return 1;
		}
		if (nd_duration_parse(arg, &w->seconds) < 0) {
			tool_usage(cmd, "--window needs a duration such as 24h, 90m or 7d (or 'none'), not '%s'", arg);
			return -1;
		}
		return 1;
	}
	if (opt == 'D') {
		w->given = w->slot_given = 1;
		if (!strcmp(arg, "arrival"))
			w->slot = ND_WINDOW_ARRIVAL;
		else if (tool_parse_u64(arg, &v) || v >= 0xffff) {
			tool_usage(cmd, "--date-slot needs a value slot number (0..65534) or 'arrival', not '%s'", arg);
			return -1;
		} else
			w->slot = (int)v;
		return 1;
	}
	return 0;
}

int tool_window_apply(const char *cmd, nd_store *st, const tool_window *w)
{
	nd_window now;
	int rc;
	if (!w->given)
		return 0;
	if ((rc = nd_window_get(st, &now)) < 0)
		return tool_fail(cmd, rc, nd_store_path(st));
	if (w->none)
		now.seconds = 0;
	else if (w->seconds)
		now.seconds = w->seconds;
	if (w->slot_given)
		now.slot = w->slot;
	if (!w->none && !now.seconds)
		return tool_usage(cmd, "--date-slot needs --window D on a store without a window");
	if ((rc = nd_window_set(st, &now)) < 0)
		return tool_fail(cmd, rc, nd_store_path(st));
	return 0;
}

void tool_duration_str(uint64_t s, char *out, size_t n)
{
	if (s % (7 * 86400) == 0)
		snprintf(out, n, "%lluw", (unsigned long long)(s / (7 * 86400)));
	else if (s % 86400 == 0)
		snprintf(out, n, "%llud", (unsigned long long)(s / 86400));
	else if (s % 3600 == 0)
		snprintf(out, n, "%lluh", (unsigned long long)(s / 3600));
	else if (s % 60 == 0)
		snprintf(out, n, "%llum", (unsigned long long)(s / 60));
	else
		snprintf(out, n, "%llus", (unsigned long long)s);
}

static void date_str(uint64_t t, char *out, size_t n)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&tt, &tm) || !strftime(out, n, "%Y-%m-%d %H:%M:%SZ", &tm))
		snprintf(out, n, "%llu", (unsigned long long)t);
}

void tool_window_say(const char *cmd, nd_store *st, uint64_t expired, uint64_t undated)
{
	nd_window w;
	nd_store_txn *txn;
	uint64_t clock, from, dated = 0;
	char dur[32], a[40], b[40], src[32];
	if (nd_window_get(st, &w) < 0 || !w.seconds || nd_window_clock(st, &clock, &from) < 0)
		return;
	if (nd_store_read_begin(st, &txn) == ND_OK) {
		nd_store_dates_count(txn, &dated);
		nd_store_txn_end(txn);
	}
	tool_duration_str(w.seconds, dur, sizeof(dur));
	date_str(from, a, sizeof(a));
	date_str(clock, b, sizeof(b));
	if (w.slot == ND_WINDOW_ARRIVAL)
		snprintf(src, sizeof(src), "by arrival");
	else
		snprintf(src, sizeof(src), "by value slot %d", w.slot);
	tool_say("window %s %s: %llu records dated within %s .. %s; %llu expired in this run\n", dur, src,
		 (unsigned long long)dated, a, b, (unsigned long long)expired);
	if (undated)
		fprintf(stderr, "neardup %s: warning: %llu documents have no date (or one past tomorrow) in value "
			"slot %d: they are kept and never expire\n", cmd, (unsigned long long)undated, w.slot);
}
