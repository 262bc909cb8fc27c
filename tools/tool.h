/* Shared helpers for the neardup subcommands (public API only). */
#ifndef ND_TOOL_H
#define ND_TOOL_H

#include <stdint.h>
#include <stdio.h>

#include "neardup/indexer.h"
#include "neardup/store.h"
#include "neardup/verify.h"

/* Exit codes: ok / error / usage. */
enum { EXIT_OK = 0, EXIT_ERR = 1, EXIT_USAGE = 2 };

int nd_cmd_index(int argc, char **argv);
int nd_cmd_build(int argc, char **argv);
int nd_cmd_sign(int argc, char **argv);
int nd_cmd_clusters(int argc, char **argv);
int nd_cmd_check(int argc, char **argv);
int nd_cmd_update(int argc, char **argv);
int nd_cmd_search(int argc, char **argv);
int nd_cmd_fsck(int argc, char **argv);
int nd_cmd_eval(int argc, char **argv);

/* A usage error: "neardup CMD: MESSAGE" (when fmt is not NULL) and a hint
 * to read --help, on stderr; returns EXIT_USAGE. */
int tool_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print "neardup <cmd>: <what>: <nd_strerror>\n  <detail>" to stderr; returns EXIT_ERR. */
int tool_fail(const char *cmd, int rc, const char *what);

/* A warning on stderr when st's links are to be rebuilt (collapsing and
 * copy clusters fall back on verified equal-key groups until then). */
void tool_links_warn(const char *cmd, nd_store *st);

/* Progress line on stderr, only when stderr is a terminal; throttled. */
typedef struct {
	int tty;
	double start, last;
	uint64_t total;   /* 0 = unknown */
} tool_progress;

/* Lines of text for the documents of a cluster a command did not compare
 * (check, update; their JSON lists ND_CHECK_CLUSTER_LISTED), then a count
 * of the rest. */
#define TOOL_CLUSTER_SHOWN 16

/* -q: no progress and no summaries (data and errors still print). */
extern int tool_quiet;
/* A summary line on stdout, unless -q. */
void tool_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void tool_progress_init(tool_progress *p, uint64_t total);
void tool_progress_show(tool_progress *p, uint64_t done, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void tool_progress_end(tool_progress *p);
/* nd_sign_options.progress for a tool_progress (ctx): docids and rate. */
void tool_sign_progress(nd_docid done, nd_docid last, void *ctx);
double tool_now(void);

/* Peak resident set size of this process in MiB. */
double tool_peak_rss_mb(void);

/* Parse an unsigned decimal option; returns 0 on success. */
int tool_parse_u64(const char *s, uint64_t *out);
/* qsort and bsearch order of docids. */
int tool_cmp_docid(const void *a, const void *b);
/* --jobs: the number of cores by default, 1..ND_SIGN_MAX_JOBS. */
unsigned tool_default_jobs(void);
/* Parse --jobs for cmd; 0 on success, else prints why and returns -1. */
int tool_parse_jobs(const char *cmd, const char *s, unsigned *out);
/* Read a whole input, a regular file or "-" for standard input, of at most
 * max bytes, into *data (caller frees); an nd_error with its detail set. */
int tool_read_input(const char *path, size_t max, char **data, size_t *len);
/* Parse a finite floating-point option (no NaN or infinity); 0 on success. */
int tool_parse_finite(const char *s, double *out);
int nd_cmd_text(int argc, char **argv);
/* "main" or "full" (--content); -1 otherwise. */
int tool_parse_content(const char *s, nd_content *out);
/* --point: strict, copy or story; on error prints "neardup CMD: ..." and
 * returns -1. */
int tool_parse_point(const char *cmd, const char *s, nd_point *out);
/* --window DURATION|none and --date-slot N|arrival, for the writers (sign,
 * update): parsed here, then set on the store (nd_window_set) when given.
 * --date-slot alone keeps the store's window length; --window alone its
 * date source (arrival for a store without one). */
typedef struct {
	int given;          /* --window or --date-slot */
	int none;           /* --window none */
	uint64_t seconds;   /* 0: not given */
	int slot_given, slot;
} tool_window;
#define TOOL_WINDOW_HELP \
	"  --window D         a feed window: keep only the documents dated within D\n" \
	"                     (90s, 15m, 24h, 7d, 2w) of the newest, and let older\n" \
	"                     ones leave the store (they stay in the database and\n" \
	"                     are not signed again); remembered by the store, so\n" \
	"                     hooks and later runs keep it; 'none' removes it\n" \
	"  --date-slot N      date documents by Xapian value slot N: notmuch's 0,\n" \
	"                     omindex's 0, mu's 4, or any slot of sortable_serialise'd\n" \
	"                     or decimal seconds, or YYYYMMDD[hhmm[ss]]; 'arrival'\n" \
	"                     (the default) dates them when the store first sees them\n"
/* 1 when opt was a window option (parsed into w); -1 after a usage error. */
int tool_window_option(const char *cmd, int opt, const char *arg, tool_window *w);
/* Set what was given on st; 0, or EXIT_ERR or EXIT_USAGE (said). */
int tool_window_apply(const char *cmd, nd_store *st, const tool_window *w);
/* "window 24h by value slot 0: N records dated <from> .. <clock>; E expired" */
void tool_window_say(const char *cmd, nd_store *st, uint64_t expired, uint64_t undated);
/* A duration as written: 24h, 90m, 7d, 45s. */
void tool_duration_str(uint64_t seconds, char *out, size_t n);

/* The verdict's reason, as printed: "levenshtein", "shingles", "resemblance",
 * "containment", "passages"; "values" for a pair refused for its values,
 * "renamed" for one refused as the same template about another name,
 * "signature" for one whose descriptive signatures disagree, "thread" for
 * two mails of one thread, "fillings" for two fillings of one template
 * by their own text. */
const char *tool_how_name(nd_verify_how how);
/* The --point paragraph every deciding command's --help shows. */
#define TOOL_POINT_HELP \
	"  --point P          what counts as a duplicate (default copy): strict, word\n" \
	"                     Levenshtein <= --max-distance (practically the same\n" \
	"                     text); copy, that or word 3-shingle resemblance >= 0.5\n" \
	"                     (the same main text in another template, or edited),\n" \
	"                     or the shorter text's 3-shingles kept >= 0.8 in the\n" \
	"                     longer (cut short, a comment thread added; a short\n" \
	"                     text so held in one over 1.5 times as long is a part\n" \
	"                     of it, not a copy), shingles that many documents hold\n" \
	"                     weighing little (a template, a licence, a footer)\n" \
	"                     unless shared as 7 passages or more, or lost as\n" \
	"                     edits lose text (the new words then weigh as the\n" \
	"                     lost did); story,\n" \
	"                     resemblance >= 0.08 (the same story).\n" \
	"                     At every point a pair is refused ('values') when other\n" \
	"                     numbers stand in the same places, twice or more and\n" \
	"                     once per 100 words or more (two fillings of one\n" \
	"                     template), or twice with one in the title that no\n" \
	"                     other text's title holds (two releases' notes); at\n" \
	"                     strict and copy also ('renamed') when a\n" \
	"                     word the one repeats stands, in two places or more,\n" \
	"                     where the other has another it repeats, neither\n" \
	"                     repeated in the other but where its own text has it\n" \
	"                     too, unless the two begin with the same 16 words\n" \
	"                     (one template about two named things: two\n" \
	"                     commands' pages); at copy also\n" \
	"                     ('signature') when resemblance under 0.6 accepts a\n" \
	"                     pair whose descriptive signatures share under half\n" \
	"                     their bits (two fillings of one template, a fifth of\n" \
	"                     each its own words), and ('fillings') when\n" \
	"                     resemblance under 0.65 accepts a pair whose shared\n" \
	"                     text three or more other documents hold while what\n" \
	"                     each has of its own (a fifth or more) no other does\n" \
	"                     (the same, in a collection too small for the\n" \
	"                     signatures to tell)\n"

#endif
