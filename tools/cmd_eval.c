/* neardup eval: every method against labeled pairs or clusters. */
#include "tool.h"
#include "neardup/eval.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage_text[] =
	"usage: neardup eval --db DIR [--store DIR] (--pairs FILE | --clusters FILE|DIR) [OPTIONS]\n"
	"\n"
	"Compare near-duplicate methods on labeled data, all on the database's words.\n"
	"Ids are the documents' unique ids in DIR (for 'neardup index DIR', paths\n"
	"relative to it).  An optional header line is skipped; ids the database does\n"
	"not hold are listed.\n"
	"\n"
	"  --db DIR          Xapian database holding the labeled documents\n"
	"  --store DIR       neardup store signed from it (for the descriptive methods)\n"
	"  --pairs FILE      TSV: id_a, id_b, label (1 duplicate, 0 not)\n"
	"  --clusters F      TSV: id, cluster; or a directory of cluster directories\n"
	"                    (each file's id is cluster/file); every pair is judged\n"
	"  --methods LIST    comma-separated (default: all; see below)\n"
	"  --min-score F     scored methods' candidate floor for the sweep (0.01)\n"
	"  --bits-floor F    descriptive-tolerant+xcheck: candidate pairs share at\n"
	"                    least this bit-set Jaccard (0.05; lower finds more,\n"
	"                    and costs more on a large corpus)\n"
	"  --presence-floor F  ... or share at least this Jaccard of the descriptive\n"
	"                    words they hold at any frequency (0.2; 0: bits only)\n"
	"  --lsh SET:BxR     descriptive-lsh+xcheck: candidates agree on all R MinHashes\n"
	"                    of one of B bands of a set of their words: present (the\n"
	"                    descriptive words they hold), rare (the 12 of those\n"
	"                    rarest in the corpus), words (all) or bits\n"
	"                    (default present:50x3)\n"
	"  --linkage average score each pair by the average-linkage level at which its\n"
	"                    documents join (a missing pair counts 0), so the sweep\n"
	"                    cuts clusters rather than pairs; with --clusters only\n"
	"                    (default: none, each pair by its own score)\n"
	"  --lev-sample N    suggested pairs measured by Levenshtein per method (1000)\n"
	"  --seed N          sampling seed (1)\n"
	"  --test-share F    split the clusters (or pairs' groups): train the learned\n"
	"                    methods on 1-F of them, measure every method on the\n"
	"                    other F (default 0: measure all pairs, no learned methods)\n"
	"  --splits K        K such splits (seeds N..N+K-1; --test-share 0.5 unless\n"
	"                    given): each method's max-F1 averaged over them, with\n"
	"                    its spread -- Hajishirzi et al.'s protocol for the news gold set\n"
	"                    (five halvings), so its figures compare; no Levenshtein\n"
	"                    sample, no plots\n"
	"  --scores FILE     write every scored pair of every method (TSV: id_a,\n"
	"                    id_b, label, score; '#' lines give the documents'\n"
	"                    clusters and each method's positives), for choosing\n"
	"                    thresholds by cross-validation (scripts/calibrate.py);\n"
	"                    not with --splits\n"
	"  --json            one JSON object: truth, then per method every figure\n"
	"  --plots DIR       write precision-recall, F1-threshold and Levenshtein\n"
	"                    plots as SVG (gnuplot) with their data and script\n"
	"  -q, --quiet       no progress\n"
	"  -h, --help        this text\n"
	"\n"
	"Methods: the product's verdict at its points (neardup check --help):\n"
	"verdict-strict, verdict-copy, verdict-story (P and R at the point);\n"
	"descriptive (equal keys), descriptive+xcheck (and Levenshtein <= 8%),\n"
	"shingles (w=10, 7/8), shingles-mod16, sscr (w=5, 0.9), docq4 (0.8),\n"
	"simhash (64 bits, Hamming <= 3), minhash (128, LSH 32x4, 0.8), imatch;\n"
	"tolerant descriptive: descriptive-jaccard, descriptive-hamming,\n"
	"descriptive-tolerant+xcheck, descriptive-tolerant+lev (as check\n"
	"--tolerant 0.5 --point strict decides); randomized sets: descriptive-multi,\n"
	"descriptive-multi+xcheck; learned (need --test-share): svm (an SVM over seven similarities),\n"
	"weights (learned term weights, Hajishirzi et al.).\n"
	"alpha = duplicates missed (1 - recall), beta = false duplicates among those\n"
	"offered (1 - precision), as Ilyinsky et al. name them.\n";

static void progress(const char *method, const char *stage, void *ctx)
{
	tool_progress *p = ctx;
	if (p->tty)
		fprintf(stderr, "\r\033[K%s: %s", method, stage);
}

/* What nd_eval_cut means, for both tables' footnotes. */
static const char cut_note[] = "the best is the lowest score swept, duplicates still missed:\n"
			       " pairs below the candidate floor, --min-score or the method's own, were never generated";

static void print_table(const nd_eval_result *r, size_t n)
{
	int mw = 6, sw = 8; /* widest method name and settings, for aligned columns */
	for (size_t i = 0; i < n; i++) {
		if ((int)strlen(r[i].method) > mw)
			mw = (int)strlen(r[i].method);
		if ((int)strlen(r[i].settings) > sw)
			sw = (int)strlen(r[i].settings);
	}
	printf("\n%-*s %-*s %10s %7s %9s %6s %6s %6s %6s %6s\n", mw, "method", sw, "settings", "candidates",
	       "ceiling", "suggested", "P", "R", "F1", "alpha", "beta");
	for (size_t i = 0; i < n; i++) {
		uint64_t pos = r[i].tp + r[i].fn;
		printf("%-*s %-*s %10llu %7.3f %9llu %6.3f %6.3f %6.3f %6.3f %6.3f\n", mw, r[i].method,
		       sw, r[i].settings, (unsigned long long)r[i].candidates,
		       pos ? (double)r[i].candidate_tp / (double)pos : 0.0,
		       (unsigned long long)r[i].suggested, r[i].precision, r[i].recall, r[i].f1,
		       r[i].alpha, r[i].beta);
	}
	printf("(candidates: pairs the method's index proposed; ceiling: share of all duplicate pairs among them)\n");
	printf("\n%-*s %7s %9s %6s %6s   %-26s %8s %9s\n", mw, "method", "max-F1", "at", "P", "R",
	       "suggested within 8/15/30%", "seconds", "docs/s");
	int any_cut = 0;
	for (size_t i = 0; i < n; i++) {
		char lev[64];
		int cut = nd_eval_cut(&r[i], &r[i].best);
		any_cut |= cut;
		if (r[i].lev_measured)
			snprintf(lev, sizeof(lev), "%3.0f%% %3.0f%% %3.0f%% of %llu", 100 * r[i].within[0],
				 100 * r[i].within[1], 100 * r[i].within[2],
				 (unsigned long long)r[i].lev_measured);
		else
			snprintf(lev, sizeof(lev), "(none suggested)");
		printf("%-*s %6.3f%c %9.4f %6.3f %6.3f   %-26s %8.2f %9.0f\n", mw, r[i].method, r[i].best.f1,
		       cut ? '*' : ' ', r[i].best.threshold, r[i].best.precision, r[i].best.recall, lev,
		       r[i].seconds, r[i].docs_per_s);
	}
	if (any_cut)
		printf("(*: %s)\n", cut_note);
}

static json_t *point_json(const nd_eval_point *p)
{
	return json_pack("{s:f,s:f,s:f,s:f,s:b}", "threshold", p->threshold, "precision", p->precision,
			 "recall", p->recall, "f1", p->f1, "lowest", p->lowest);
}

/* "none", "average" or "single", for both JSON outputs. */
static const char *linkage_name = "none";

static void print_json(const char *truth_path, const nd_truth *t, const nd_eval_result *r, size_t n)
{
	json_t *root = json_object(), *methods = json_array(), *unknown = json_array();
	const char *const *ids;
	size_t nu = nd_truth_unknown(t, &ids);
	for (size_t i = 0; i < nu; i++)
		json_array_append_new(unknown, json_string(ids[i]));
	json_object_set_new(root, "linkage", json_string(linkage_name));
	json_object_set_new(root, "truth",
			    json_pack("{s:s,s:s,s:I,s:I,s:I,s:I,s:o}", "path", truth_path, "kind",
				      nd_truth_kind_of(t) == ND_TRUTH_PAIRS ? "pairs" : "clusters", "documents",
				      (json_int_t)nd_truth_ndocs(t), "groups", (json_int_t)nd_truth_ngroups(t),
				      "positives", (json_int_t)nd_truth_positives(t), "judged",
				      (json_int_t)nd_truth_judged(t), "unknown_ids", unknown));
	for (size_t i = 0; i < n; i++) {
		json_t *m = json_object(), *curve = json_array(), *hist = json_array();
		for (size_t k = 0; k < r[i].ncurve; k++)
			json_array_append_new(curve, point_json(&r[i].curve[k]));
		for (size_t k = 0; k <= ND_EVAL_LEV_BINS; k++)
			json_array_append_new(hist, json_integer((json_int_t)r[i].lev_hist[k]));
		json_object_set_new(m, "method", json_string(r[i].method));
		json_object_set_new(m, "settings", json_string(r[i].settings));
		json_object_set_new(m, "verdict", json_boolean(r[i].verdict));
		json_object_set_new(m, "learned", json_boolean(r[i].learned));
		json_object_set_new(m, "threshold", json_real(r[i].threshold));
		json_object_set_new(m, "candidates", json_integer((json_int_t)r[i].candidates));
		json_object_set_new(m, "candidate_duplicates", json_integer((json_int_t)r[i].candidate_tp));
		json_object_set_new(m, "suggested", json_integer((json_int_t)r[i].suggested));
		json_object_set_new(m, "tp", json_integer((json_int_t)r[i].tp));
		json_object_set_new(m, "fp", json_integer((json_int_t)r[i].fp));
		json_object_set_new(m, "fn", json_integer((json_int_t)r[i].fn));
		json_object_set_new(m, "precision", json_real(r[i].precision));
		json_object_set_new(m, "recall", json_real(r[i].recall));
		json_object_set_new(m, "f1", json_real(r[i].f1));
		json_object_set_new(m, "alpha", json_real(r[i].alpha));
		json_object_set_new(m, "beta", json_real(r[i].beta));
		json_object_set_new(m, "max_f1", point_json(&r[i].best));
		json_object_set_new(m, "candidate_floor", json_real(r[i].floor));
		json_object_set_new(m, "max_f1_cut", json_boolean(nd_eval_cut(&r[i], &r[i].best)));
		json_object_set_new(m, "curve", curve);
		json_object_set_new(m, "levenshtein",
				    json_pack("{s:I,s:f,s:f,s:f,s:f,s:o}", "measured",
					      (json_int_t)r[i].lev_measured, "within_08", r[i].within[0],
					      "within_15", r[i].within[1], "within_30", r[i].within[2],
					      "bin_width", 0.02, "histogram", hist));
		json_object_set_new(m, "seconds", json_real(r[i].seconds));
		json_object_set_new(m, "docs_per_s", json_real(r[i].docs_per_s));
		json_array_append_new(methods, m);
	}
	json_object_set_new(root, "methods", methods);
	json_dumpf(root, stdout, JSON_INDENT(1));
	putchar('\n');
	json_decref(root);
}

/* Data files and a gnuplot script in dir; SVGs when gnuplot is there. */
static int write_plots(const char *dir, const char *title, const nd_eval_result *r, size_t n)
{
	char path[4096];
	FILE *f;
	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		fprintf(stderr, "neardup eval: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/curve-%s.dat", dir, r[i].method);
		if (!(f = fopen(path, "w")))
			goto io;
		fprintf(f, "# threshold precision recall f1\n");
		for (size_t k = 0; k < r[i].ncurve; k++)
			fprintf(f, "%.6f %.6f %.6f %.6f\n", r[i].curve[k].threshold, r[i].curve[k].precision,
				r[i].curve[k].recall, r[i].curve[k].f1);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/levenshtein.dat", dir);
	if (!(f = fopen(path, "w")))
		goto io;
	fprintf(f, "# bin start, then per method the share of measured suggested pairs\nbin");
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %s", r[i].method);
	fputc('\n', f);
	for (size_t b = 0; b <= ND_EVAL_LEV_BINS; b++) {
		if (b < ND_EVAL_LEV_BINS)
			fprintf(f, "%.2f", b * 0.02);
		else
			fprintf(f, ">0.30");
		for (size_t i = 0; i < n; i++)
			fprintf(f, " %.4f", r[i].lev_measured ? (double)r[i].lev_hist[b] / r[i].lev_measured : 0);
		fputc('\n', f);
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/plots.gp", dir);
	if (!(f = fopen(path, "w")))
		goto io;
	fprintf(f, "set terminal svg size 900,600 dynamic\nset key outside right\nset grid\n");
	fprintf(f, "set output 'precision-recall.svg'\nset title 'Precision-recall: %s'\n"
		   "set xlabel 'recall'\nset ylabel 'precision'\nset xrange [0:1]\nset yrange [0:1.02]\nplot ",
		title);
	/* Colours repeat after eight methods: the next eight are dashed. */
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s'curve-%s.dat' using 3:2 with %s lt %zu dt %zu title '%s'", i ? ", " : "",
			r[i].method, r[i].verdict ? "points pt 7 ps 1.2" : "lines lw 2", i + 1, i / 8 + 1,
			r[i].method);
	fprintf(f, "\nset output 'f1-threshold.svg'\nset title 'F1 against threshold: %s'\n"
		   "set xlabel 'threshold (score >= t is a duplicate)'\nset ylabel 'F1'\nset xrange [0:1]\nplot ",
		title);
	int first = 1;
	for (size_t i = 0; i < n; i++) {
		if (r[i].verdict)
			continue;
		fprintf(f, "%s'curve-%s.dat' using 1:4 with lines lw 2 lt %zu dt %zu title '%s'", first ? "" : ", ",
			r[i].method, i + 1, i / 8 + 1, r[i].method);
		first = 0;
	}
	if (first)
		fprintf(f, "0 notitle");
	fprintf(f, "\nset output 'levenshtein.svg'\nset title 'Normalized word Levenshtein of suggested pairs: %s'\n"
		   "set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.8\n"
		   "set xlabel 'distance bin (width 0.02)'\nset ylabel 'share of measured pairs'\n"
		   "set xrange [*:*]\nset yrange [0:*]\nset xtics rotate by -45\nplot ",
		title);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s'levenshtein.dat' using %zu:xtic(1) title columnheader", i ? ", " : "", i + 2);
	fputc('\n', f);
	fclose(f);
	if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
		fprintf(stderr, "neardup eval: gnuplot not found; wrote %s/plots.gp and its data "
				"(apt-get install gnuplot-nox, then: cd %s && gnuplot plots.gp)\n", dir, dir);
		return 0;
	}
	snprintf(path, sizeof(path), "cd '%s' && gnuplot plots.gp", dir);
	if (system(path) != 0) {
		fprintf(stderr, "neardup eval: gnuplot failed on %s/plots.gp\n", dir);
		return -1;
	}
	fprintf(stderr, "plots: %s/precision-recall.svg, f1-threshold.svg, levenshtein.svg\n", dir);
	return 0;
io:
	fprintf(stderr, "neardup eval: %s: %s\n", path, strerror(errno));
	return -1;
}

/* Mean, sample deviation and range of F1 over a result's splits (pt: each
 * split's max-F1, or its figures at the default threshold); P and R
 * there, averaged. */
typedef struct {
	double mean, sd, lo, hi, p, r;
	size_t cut; /* splits whose best is cut by the candidate floor */
} split_stats;

static split_stats stats_of(const nd_eval_result *r, const nd_eval_point *pt)
{
	split_stats s = {0, 0, 1, 0, 0, 0, 0};
	size_t k = r->nsplits;
	for (size_t i = 0; i < k; i++) {
		const nd_eval_point *b = &pt[i];
		s.cut += pt == r->split_best && nd_eval_cut(r, b);
		s.mean += b->f1 / (double)k;
		s.p += b->precision / (double)k;
		s.r += b->recall / (double)k;
		s.lo = b->f1 < s.lo ? b->f1 : s.lo;
		s.hi = b->f1 > s.hi ? b->f1 : s.hi;
	}
	for (size_t i = 0; i < k; i++)
		s.sd += (pt[i].f1 - s.mean) * (pt[i].f1 - s.mean);
	s.sd = k > 1 ? sqrt(s.sd / (double)(k - 1)) : 0;
	return s;
}

static void print_splits(const nd_eval_result *r, size_t n, double share, uint64_t seed, int json)
{
	size_t k = n ? r[0].nsplits : 0;
	if (json) {
		json_t *root = json_object(), *methods = json_array();
		json_object_set_new(root, "linkage", json_string(linkage_name));
		json_object_set_new(root, "splits", json_pack("{s:I,s:f,s:I}", "count", (json_int_t)k,
							      "test_share", share, "first_seed", (json_int_t)seed));
		for (size_t i = 0; i < n; i++) {
			json_t *each = json_array(), *at = json_array();
			for (size_t j = 0; j < k; j++) {
				json_array_append_new(each, point_json(&r[i].split_best[j]));
				json_array_append_new(at, point_json(&r[i].split_point[j]));
			}
			split_stats s = stats_of(&r[i], r[i].split_best), p = stats_of(&r[i], r[i].split_point);
			json_array_append_new(methods,
					      json_pack("{s:s,s:s,s:b,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:I,s:o,s:f,s:f,s:f,s:f,s:f,s:o}",
							"method", r[i].method, "settings", r[i].settings, "learned",
							r[i].learned, "max_f1_mean", s.mean, "max_f1_sd", s.sd,
							"max_f1_min", s.lo, "max_f1_max", s.hi, "precision_mean", s.p,
							"recall_mean", s.r, "candidate_floor", r[i].floor, "cut_splits",
							(json_int_t)s.cut, "max_f1", each, "threshold", r[i].threshold,
							"f1_at_threshold_mean", p.mean, "f1_at_threshold_sd", p.sd,
							"precision_at_threshold_mean", p.p, "recall_at_threshold_mean", p.r,
							"at_threshold", at));
		}
		json_object_set_new(root, "methods", methods);
		json_dumpf(root, stdout, JSON_INDENT(1));
		putchar('\n');
		json_decref(root);
		return;
	}
	int mw = 6;
	for (size_t i = 0; i < n; i++)
		if ((int)strlen(r[i].method) > mw)
			mw = (int)strlen(r[i].method);
	printf("\n%zu splits by group (seeds %llu..%llu): %.0f%% of the groups measured each time, "
	       "learned methods trained on the rest\n", k, (unsigned long long)seed,
	       (unsigned long long)(seed + k - 1), 100 * share);
	printf("%-*s %8s %6s %6s %6s %7s %7s %5s | %7s %6s %6s %6s %6s\n", mw, "method", "max-F1", "sd", "min",
	       "max", "P", "R", "cut", "at", "F1", "sd", "P", "R");
	size_t any_cut = 0;
	for (size_t i = 0; i < n; i++) {
		split_stats s = stats_of(&r[i], r[i].split_best), p = stats_of(&r[i], r[i].split_point);
		any_cut += s.cut;
		printf("%-*s %8.3f %6.3f %6.3f %6.3f %7.3f %7.3f %5zu | %7.4f %6.3f %6.3f %6.3f %6.3f\n", mw,
		       r[i].method, s.mean, s.sd, s.lo, s.hi, s.p, s.r, s.cut, r[i].threshold, p.mean, p.sd, p.p,
		       p.r);
	}
	printf("(max-F1: mean of each split's best F1, sd over the splits; P and R at each best, averaged;\n"
	       " after |: F1, sd, P and R at the method's own threshold 'at', fixed before any split: a\n"
	       " verdict's operating point, as the product decides)\n");
	if (any_cut)
		printf("(cut: splits where %s)\n", cut_note);
}

/* One run's options. */
typedef struct {
	const char *dbpath, *storepath, *truth, *plots, *methods, *scores;
	nd_truth_kind kind;
	nd_eval_options o;
	int json, quiet;
	size_t splits;
} eval_args;

/* The options into e: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, eval_args *e)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},
		{"store", required_argument, NULL, 's'},
		{"pairs", required_argument, NULL, 'p'},
		{"clusters", required_argument, NULL, 'c'},
		{"methods", required_argument, NULL, 'm'},
		{"min-score", required_argument, NULL, 'f'},
		{"bits-floor", required_argument, NULL, 'b'},
		{"presence-floor", required_argument, NULL, 'r'},
		{"lev-sample", required_argument, NULL, 'l'},
		{"linkage", required_argument, NULL, 'L'},
		{"seed", required_argument, NULL, 'S'},
		{"test-share", required_argument, NULL, 'T'},
		{"splits", required_argument, NULL, 'K'},
		{"lsh", required_argument, NULL, 'H'},
		{"scores", required_argument, NULL, 'O'},
		{"json", no_argument, NULL, 'j'},
		{"plots", required_argument, NULL, 'P'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		uint64_t v;
		switch (c) {
		case 'd': e->dbpath = optarg; break;
		case 's': e->storepath = optarg; break;
		case 'p': e->truth = optarg; e->kind = ND_TRUTH_PAIRS; break;
		case 'c': e->truth = optarg; e->kind = ND_TRUTH_CLUSTERS; break;
		case 'm': e->methods = optarg; break;
		case 'f': {
			if (tool_parse_finite(optarg, &e->o.min_score) || !(e->o.min_score > 0 && e->o.min_score <= 1)) {
				return tool_usage("eval", "--min-score needs a number in (0, 1], not '%s'", optarg);
			}
			break;
		}
		case 'b': {
			if (tool_parse_finite(optarg, &e->o.bits_floor) || !(e->o.bits_floor > 0 && e->o.bits_floor <= 1)) {
				return tool_usage("eval", "--bits-floor needs a number in (0, 1], not '%s'", optarg);
			}
			break;
		}
		case 'r': {
			if (tool_parse_finite(optarg, &e->o.presence_floor) || !(e->o.presence_floor >= 0 && e->o.presence_floor <= 1)) {
				return tool_usage("eval", "--presence-floor needs a number in [0, 1], not '%s'",
					optarg);
			}
			break;
		}
		case 'l':
			if (tool_parse_u64(optarg, &v) || v > 10000000) {
				return tool_usage("eval", "--lev-sample needs 0..10000000, not '%s'", optarg);
			}
			e->o.lev_sample = (size_t)v;
			break;
		case 'L':
			if (!strcmp(optarg, "average"))
				e->o.linkage = ND_EVAL_LINK_AVERAGE;
			else if (!strcmp(optarg, "single"))
				e->o.linkage = ND_EVAL_LINK_SINGLE;
			else if (!strcmp(optarg, "none"))
				e->o.linkage = ND_EVAL_LINK_NONE;
			else {
				return tool_usage("eval", "--linkage is none, average or single, not '%s'", optarg);
			}
			linkage_name = optarg;
			break;
		case 'S':
			if (tool_parse_u64(optarg, &v)) {
				return tool_usage("eval", "--seed needs a number, not '%s'", optarg);
			}
			e->o.seed = v;
			break;
		case 'T': {
			if (tool_parse_finite(optarg, &e->o.test_share) || !(e->o.test_share >= 0 && e->o.test_share < 1)) {
				return tool_usage("eval", "--test-share needs a number in [0, 1), not '%s'", optarg);
			}
			break;
		}
		case 'K':
			if (tool_parse_u64(optarg, &v) || v < 1 || v > 1000) {
				return tool_usage("eval", "--splits needs 1..1000, not '%s'", optarg);
			}
			e->splits = (size_t)v;
			break;
		case 'H': {
			char set[16];
			unsigned b, r;
			int used = 0;
			if (sscanf(optarg, "%15[a-z]:%ux%u%n", set, &b, &r, &used) != 3 || optarg[used] ||
			    (strcmp(set, "present") && strcmp(set, "rare") && strcmp(set, "words") && strcmp(set, "bits")) || !b || !r ||
			    b > 1000 || r > 64) {
				fprintf(stderr, "neardup eval: --lsh is SET:BANDSxROWS (SET present, rare, words or bits; "
					"1..1000 bands of 1..64 rows), not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			e->o.lsh_set = !strcmp(set, "present") ? ND_EVAL_LSH_PRESENT : !strcmp(set, "rare") ?
				       ND_EVAL_LSH_RARE : !strcmp(set, "words") ? ND_EVAL_LSH_WORDS : ND_EVAL_LSH_BITS;
			e->o.lsh_bands = b, e->o.lsh_rows = r;
			break;
		}
		case 'j': e->json = 1; break;
		case 'P': e->plots = optarg; break;
		case 'O': e->scores = optarg; break;
		case 'q': e->quiet = 1; break;
		case 'h': fputs(usage_text, stdout); return EXIT_OK;
		default: return tool_usage("eval", NULL);
		}
	}
	if (!e->dbpath || !e->truth || optind != argc) {
		return tool_usage("eval", "%s", !e->dbpath ? "--db is required"
					: !e->truth ? "--pairs or --clusters is required" : "unexpected argument");
	}
	if (e->o.linkage && e->kind == ND_TRUTH_PAIRS) {
		return tool_usage("eval", "--linkage needs --clusters: labeled pairs have no clusters to cut");
	}
	if (e->splits && e->scores) {
		return tool_usage("eval", "--scores writes one measurement; leave it out with --splits");
	}
	if (e->splits && e->plots) {
		return tool_usage("eval", "--plots draws one measurement; leave it out with --splits");
	}
	if (e->splits) {
		if (e->o.test_share == 0)
			e->o.test_share = 0.5;
		e->o.lev_sample = 0; /* only max-F1 is averaged */
		e->o.splits = e->splits;
	}

	return -1;
}

/* The methods to run: the list given, or all (the descriptive ones need a
 * store; the learned ones a training side).  names has room for 32;
 * *list (caller frees) holds the given names. */
static void method_names(const eval_args *e, const char **names, char **list)
{
	size_t nn = 0;
	*list = e->methods ? strdup(e->methods) : NULL;
	if (*list) {
		for (char *tok = strtok(*list, ","); tok && nn < 31; tok = strtok(NULL, ","))
			names[nn++] = tok;
	} else {
		for (const char *const *m = nd_eval_methods(); *m; m++)
			if ((e->storepath || (strncmp(*m, "descriptive", 11) && strncmp(*m, "verdict", 7))) &&
			    (e->o.test_share > 0 || !nd_eval_method_learned(*m)))
				names[nn++] = *m;
	}
	names[nn] = NULL;
}

static void print_truth(const eval_args *e, const nd_truth *t)
{
	const char *const *unknown;
	size_t nu = nd_truth_unknown(t, &unknown);
	printf("ground truth %s (%s): %zu documents in %u %s, %llu duplicate pairs of %llu judged\n",
	       e->truth, nd_truth_kind_of(t) == ND_TRUTH_PAIRS ? "pairs" : "clusters", nd_truth_ndocs(t),
	       nd_truth_ngroups(t), nd_truth_kind_of(t) == ND_TRUTH_PAIRS ? "groups" : "clusters",
	       (unsigned long long)nd_truth_positives(t), (unsigned long long)nd_truth_judged(t));
	if (e->o.linkage != ND_EVAL_LINK_NONE)
		printf("%s linkage: each pair scored by the level at which its documents' "
		       "clusters join\n", linkage_name);
	if (nu) {
		printf("%zu id%s not in %s:", nu, nu == 1 ? "" : "s", e->dbpath);
		for (size_t i = 0; i < nu && i < 10; i++)
			printf(" %s", unknown[i]);
		printf("%s\n", nu > 10 ? " ... (all of them with --json)" : "");
	}
}

int nd_cmd_eval(int argc, char **argv)
{
	eval_args e = {NULL, NULL, NULL, NULL, NULL, NULL, ND_TRUTH_AUTO, ND_EVAL_OPTIONS_INIT, 0, 0, 0};
	FILE *scores = NULL;
	const char *names[32];
	char *list = NULL;
	nd_xdb *db = NULL;
	nd_store *st = NULL;
	nd_truth *t = NULL;
	nd_eval_result *res = NULL;
	size_t nres = 0;
	tool_progress prog;
	int rc, ret;

	if ((ret = parse_args(argc, argv, &e)) >= 0)
		return ret;
	ret = EXIT_ERR;
	method_names(&e, names, &list);
	tool_progress_init(&prog, 0);
	if (e.quiet)
		prog.tty = 0;
	e.o.progress = progress;
	e.o.ctx = &prog;
	if (e.scores && !(e.o.scores = scores = fopen(e.scores, "w"))) {
		fprintf(stderr, "neardup eval: cannot write %s: %s\n", e.scores, strerror(errno));
		goto done;
	}
	if ((rc = nd_xdb_open(&db, e.dbpath, ND_XDB_READ)) < 0) {
		tool_fail("eval", rc, e.dbpath);
		goto done;
	}
	if (e.storepath && (rc = nd_store_open(&st, e.storepath, ND_STORE_READ)) < 0) {
		tool_fail("eval", rc, e.storepath);
		goto done;
	}
	if ((rc = nd_truth_load(&t, db, e.truth, e.kind)) < 0) {
		tool_fail("eval", rc, e.truth);
		goto done;
	}
	if (!e.json)
		print_truth(&e, t);
	if (!nd_truth_ndocs(t)) {
		fprintf(stderr, "neardup eval: %s: none of its ids is in %s\n", e.truth, e.dbpath);
		goto done;
	}
	rc = nd_eval_run(db, st, t, names, &e.o, &res, &nres);
	tool_progress_end(&prog);
	if (rc < 0) {
		tool_fail("eval", rc, e.truth);
		goto done;
	}
	if (e.splits) {
		print_splits(res, nres, e.o.test_share, e.o.seed, e.json);
		ret = EXIT_OK;
		goto done;
	}
	if (!e.json && e.o.test_share > 0 && nres)
		printf("split by group (seed %llu): measured on the test side's %llu duplicate pairs; "
		       "learned methods trained on the rest\n",
		       (unsigned long long)e.o.seed, (unsigned long long)(res[0].tp + res[0].fn));
	if (e.json)
		print_json(e.truth, t, res, nres);
	else
		print_table(res, nres);
	if (e.plots && write_plots(e.plots, e.truth, res, nres) < 0)
		goto done;
	ret = EXIT_OK;
done:
	if (scores && fclose(scores) != 0 && ret == EXIT_OK) {
		fprintf(stderr, "neardup eval: cannot write %s: %s\n", e.scores, strerror(errno));
		ret = EXIT_ERR;
	}
	nd_eval_results_free(res, nres);
	nd_truth_free(t);
	nd_store_close(st);
	nd_xdb_close(db);
	free(list);
	return ret;
}
