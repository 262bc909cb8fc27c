/* neardup: a document's word sequence for verification, without text.
 *
 * `neardup index` keeps each document's words as 32-bit ids (nd_word_id of
 * the folded tokens, 4 bytes a word) in value slot ND_SLOT_WORDS, so
 * verification never re-reads or re-tokenizes text and a replaced
 * document never has a stale sequence.  They are the text's own words
 * (nd_word_ids_own): not those of lines it quotes after '>' or below
 * "-----Original Message-----", a mail's reply quoting what it answers;
 * the quote is searchable all the same.  For databases built by others the
 * sequence is rebuilt from the positional index: every unprefixed term's
 * positions (slow: one position-list lookup per distinct word).  Without
 * positions, the document data's text is tokenized: omega's "sample="
 * field (omindex keeps only the first 512 bytes, so this is partial), or
 * the whole data when it is not "name=value" lines. */
#ifndef ND_WORDS_H
#define ND_WORDS_H

#include "neardup/common.h"
#include "neardup/xdb.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ND_SLOT_WORDS 0x6e77u /* "nw" */
/* The whole page's word ids when ND_SLOT_WORDS holds its main content. */
#define ND_SLOT_FULL_WORDS 0x6e78u /* "nx" */
/* An 8-byte hash of the indexed text (the word ids of ND_SLOT_WORDS and
 * ND_SLOT_FULL_WORDS), which signing mixes into each record's
 * fingerprint: a re-indexed document whose words changed where no
 * descriptive word counts is a change all the same, to hooks and to
 * 'neardup update' alike (read as one value stream, not text by text).
 * Databases built by others have none; there the fingerprint is the
 * length and the descriptive words' counts. */
#define ND_SLOT_TEXT_HASH 0x6e68u /* "nh" */
/* Where neardup before store format 6 kept them, with ids that lack
 * ND_WORD_DIGIT: never read (such a database's sequences are rebuilt from
 * positions until it is indexed again), never given to collapse ids. */
#define ND_SLOT_WORDS_V1 0x6e64u /* "nd" */
#define ND_SLOT_FULL_WORDS_V1 0x6e66u /* "nf" */

typedef enum {
	ND_WORDS_STORED = 1,    /* from the value slot */
	ND_WORDS_POSITIONS = 2, /* rebuilt from the positional index */
	ND_WORDS_DATA = 3,      /* tokenized from the document data (may be partial) */
} nd_words_source;

/* The word ids of document docid in position order.  *out is malloc'd
 * (caller frees; NULL when *n is 0).  source (may be NULL) says where they
 * came from.  ND_ENOTFOUND when the document is missing or has no stored
 * sequence, no positions and no text in its data. */
ND_EXTERN int nd_words_get(nd_xdb *db, nd_docid docid, uint32_t **out, size_t *n,
			   nd_words_source *source);

#ifdef __cplusplus
}
#endif
#endif
