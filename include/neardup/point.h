/* neardup: what "duplicate" means -- the verdict's named points. */
#ifndef ND_POINT_H
#define ND_POINT_H

#include "neardup/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What "duplicate" means: the verdict's named operating points.  Every
 * path (check, hooks, update, collapsing, clusters, eval's verdict-*
 * methods) decides by the same point, so what eval measures at a point is
 * what users get.  The resemblance thresholds were chosen by
 * leave-one-set-out cross-validation over the labeled sets
 * (scripts/calibrate.py; README "What a duplicate is").
 *
 *   strict  practically the same text: normalized word Levenshtein <=
 *           max_distance (0.08, Ilyinsky et al.'s expert bound); pairs longer than
 *           max_exact_words by 10-shingle bag resemblance >= min_resemblance
 *   copy    the default: the same main text, whatever the template, with
 *           small edits, a cut or an added comment thread: strict, or word
 *           3-shingle bag resemblance >= ND_POINT_COPY_RESEMBLANCE (but
 *           not a text of fewer than ND_CONTAIN_MIN_WORDS words of its own
 *           held as containment holds a copy in one over
 *           ND_CONTAIN_MAX_RATIO times as long, by words and by weight:
 *           a part of it, as a letter's functions of its members), or the
 *           lighter text (by its shingles' weights: >= ND_CONTAIN_MIN_WORDS
 *           words besides its site's template, the other at most
 *           ND_CONTAIN_MAX_RATIO times as long) keeping
 *           ND_POINT_COPY_CONTAINMENT of its 3-shingles in the other;
 *           either measure also with a site template's rotating parts
 *           (teasers few of its pages show, short runs of a page's own
 *           text between its template's) weighed as that template; clusters
 *           are accepted pairs split where they chain: a centre (the most
 *           linked) and the documents that are copies of it
 *   story   the same story retold or heavily edited: strict, or 3-shingle bag
 *           resemblance >= ND_POINT_STORY_RESEMBLANCE; clusters join by
 *           average linkage at that cut, a pair never proposed counting 0
 *           except between large tentative clusters (nd_linkage_complete)
 *
 * At every point a pair is refused (ND_REFUSED_VALUES) when the texts hold
 * other values in the same places -- a word with a digit whose two words
 * before and one after are the same in both, with another value there --
 * at least ND_VALUES_MIN times and ND_VALUES_PER_100 times per 100 words
 * of the shorter text: two fillings of one template (prices, dates,
 * amounts) are not copies, however many of their words agree, while a
 * long text's next version, with a few years or version numbers moved
 * on, still is, and so is a short one with one date moved on.  Among
 * documents of a store, two changes are enough when one is a number in
 * both titles (the first six words) that no other text's title holds
 * (a page's edited copies count as the page):
 * "Django 1.4.14 release notes" and "Django 1.6.6 release notes" are two
 * releases' notes, while a site's release or name heading its pages is
 * many titles' and moves on in a copy made for the next release.  Values
 * are told from words by the id alone (ND_WORD_DIGIT).
 *
 * At strict and copy a pair is refused as well (ND_REFUSED_RENAMED) when it
 * is one template about two named things: a word the one text repeats
 * stands, in two places or more, where the other has one other word it
 * repeats, and neither is repeated in the other but where its own text
 * has it too (subgid(5) and subuid(5), a product page for another
 * product, llvm-tblgen(1) renamed from clang-tblgen(1), which says "LLVM"
 * itself).  An edited version keeps its words: its edits are words it does
 * not repeat, or ones the other still holds.  Not at story: a story
 * retold says "said" where it said "says".
 *
 * At copy a pair that resemblance alone accepts, under 0.6, is refused too
 * (ND_REFUSED_SIGNATURE) when both documents are keyed and their
 * descriptive signatures share under half their bits: two fillings of one
 * template whose own words are a fifth of each share as many shingles as
 * an edited version, and cross many more of the thresholds that small
 * edits leave alone.  Not where containment could accept the pair, nor
 * where discounting common text (another site's template) brought it up;
 * only where the bits are known: documents of a store, and check's input.
 * A collection of a few hundred documents chooses a descriptive set that
 * holds its templates' words, and the signatures then agree: copy also
 * refuses such a pair under 0.65 (ND_REFUSED_FILLINGS) by its own text,
 * as the store counted it, when what the two share three or more other
 * texts hold too, and what each has of its own (a fifth of its samples or
 * more) is held by no other text, or barely.  Two versions of one text
 * differ otherwise: what the one lacks of the other is the text as it
 * was, which the text's other versions hold.  Only for documents of a
 * store signed since the count was kept (and check's input against it).
 *
 * At strict and copy two mails of one thread of a notmuch or mu database are
 * refused (ND_REFUSED_THREAD) unless their words are the same: a reply
 * quotes the mail it answers and adds its own text, and is not its copy.
 * A mail resent as it was is still a copy; two texts compared alone, or
 * check's input, have no thread. */
typedef enum {
	ND_POINT_COPY = 0,
	ND_POINT_STRICT = 1,
	ND_POINT_STORY = 2,
} nd_point;

#define ND_POINT_COPY_RESEMBLANCE 0.5
#define ND_POINT_STORY_RESEMBLANCE 0.08
#define ND_POINT_COPY_CONTAINMENT 0.8
#define ND_CONTAIN_MIN_WORDS 50
#define ND_CONTAIN_MAX_RATIO 1.5
#define ND_VALUES_PER_100 1
#define ND_VALUES_MIN 2

/* "strict", "copy", "story"; NULL for a value out of range. */
ND_EXTERN const char *nd_point_name(nd_point p);
/* ND_EINVAL (the message lists the names) for an unknown name. */
ND_EXTERN int nd_point_parse(const char *name, nd_point *out);
/* The 3-shingle bag resemblance a point accepts at (strict: 1, nothing
 * beyond Levenshtein), and the average-linkage cut its clusters use. */
ND_EXTERN double nd_point_resemblance(nd_point p);

#ifdef __cplusplus
}
#endif
#endif
