#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "json/scan.h"

/* bytes per read; the fuzz build makes it small (-DSCAN_BLOCK=4096) */
#ifndef SCAN_BLOCK
#define SCAN_BLOCK (4u << 20)
#endif

/* The fast paths' pieces, inlined whatever the compiler's budget says:
 * scan_text_valid's walk is written once for two classifiers (SSE2 and
 * byte at a time), each compiled with the other's work left out. */
#ifdef __GNUC__
#define FAST_INLINE inline __attribute__((always_inline))
#else
#define FAST_INLINE inline
#endif

/* The first byte in [p, end) that ends plain string content: '"', '\\' or a
 * control character.  Kernel names run to kilobytes, so on x86-64 look at
 * sixteen bytes at a time (SSE2 is part of the x86-64 baseline). */
static const unsigned char *string_run_end(const unsigned char *p, const unsigned char *end)
{
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"');
	const __m128i backslash = _mm_set1_epi8('\\');
	const __m128i space = _mm_set1_epi8(0x20);
	const __m128i sign = _mm_set1_epi8((char)0x80);

	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		/* unsigned v < 0x20, by flipping the sign bits for a signed compare */
		__m128i ctl = _mm_cmplt_epi8(_mm_xor_si128(v, sign), _mm_xor_si128(space, sign));
		__m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote),
							_mm_cmpeq_epi8(v, backslash)), ctl);
		int mask = _mm_movemask_epi8(hit);
		if (mask != 0)
			return p + __builtin_ctz((unsigned)mask);
		p += 16;
	}
#endif
	while (p < end && *p >= 0x20 && *p != '"' && *p != '\\')
		p++;
	return p;
}

int scan_init(struct scan *s, scan_read_fn read, void *ctx, size_t max_value)
{
	struct buf empty = BUF_INIT;

	memset(s, 0, sizeof *s);
	s->read = read;
	s->ctx = ctx;
	s->max_value = max_value;
	s->stack = empty;
	s->buf = malloc(SCAN_BLOCK);
	return s->buf ? 0 : SCAN_NOMEM;
}

void scan_free(struct scan *s)
{
	free(s->buf);
	s->buf = NULL;
	buf_release(&s->stack);
}

void scan_reset(struct scan *s)
{
	s->pos = s->len = 0;
	s->base = 0;
	s->eof = 0;
	s->err_offset = 0;
	s->err[0] = '\0';
	buf_reset(&s->stack);
}

uint64_t scan_offset(const struct scan *s)
{
	return s->base + s->pos;
}

int scan_fail(struct scan *s, int status, const char *msg)
{
	s->err_offset = scan_offset(s);
	snprintf(s->err, sizeof s->err, "%s", msg);
	return status;
}

/* 1 when bytes are available, 0 at the end of input, SCAN_READ on error. */
static int refill(struct scan *s)
{
	long got;

	if (s->pos < s->len)
		return 1;
	if (s->eof)
		return 0;
	s->base += s->len;
	s->pos = s->len = 0;
	got = s->read(s->ctx, s->buf, SCAN_BLOCK);
	if (got < 0)
		return scan_fail(s, SCAN_READ, "read error");
	if (got == 0) {
		s->eof = 1;
		return 0;
	}
	s->len = (size_t)got;
	return 1;
}

static inline int is_space(int c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static int peek_slow(struct scan *s);

static inline int peek(struct scan *s)
{
	/* fast path: the next byte is there and is not whitespace */
	if (s->pos < s->len && !is_space(s->buf[s->pos]))
		return s->buf[s->pos];
	return peek_slow(s);
}

int scan_peek(struct scan *s)
{
	return peek(s);
}

static int peek_slow(struct scan *s)
{
	for (;;) {
		int rc = refill(s);
		if (rc <= 0)
			return rc == 0 ? -1 : rc;
		while (s->pos < s->len && is_space(s->buf[s->pos]))
			s->pos++;
		if (s->pos < s->len)
			return s->buf[s->pos];
	}
}

void scan_skip(struct scan *s)
{
	s->pos++;
}

/* The n bytes appended are always the last n consumed, so a value too large
 * is reported at the first byte over the limit, wherever reads ended. */
static int out_add_slow(struct scan *s, struct buf *out, const void *p, size_t n)
{
	if (out->len + n > s->max_value) {
		size_t room = out->len < s->max_value ? s->max_value - out->len : 0;
		int rc = scan_fail(s, SCAN_TOO_BIG, "value too large");
		s->err_offset = scan_offset(s) - n + room;
		return rc;
	}
	if (buf_add(out, p, n) != 0)
		return scan_fail(s, SCAN_NOMEM, "out of memory");
	return SCAN_OK;
}

/* Appending is the inner loop of decoding: copy in place while the buffer
 * has room, and leave growth and the size limit to the slow path. */
static inline int out_add(struct scan *s, struct buf *out, const void *p, size_t n)
{
	if (out->len + n < out->cap && out->len + n <= s->max_value) {
		memcpy(out->p + out->len, p, n);
		out->len += n;
		out->p[out->len] = '\0';
		return SCAN_OK;
	}
	return out_add_slow(s, out, p, n);
}

/* The next raw byte (no whitespace skipping), consumed; -1 at the end. */
static int take_byte(struct scan *s)
{
	int rc = refill(s);

	if (rc <= 0)
		return rc == 0 ? -1 : rc;
	return s->buf[s->pos++];
}

static int truncated(struct scan *s, int c)
{
	if (c == -1)
		return scan_fail(s, SCAN_EOF, "unexpected end of input (truncated JSON)");
	return c; /* SCAN_READ, already recorded */
}

static int is_hex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int scan_escape(struct scan *s, struct buf *out)
{
	char text[6];
	size_t n = 1;
	int c = take_byte(s);

	if (c < 0)
		return truncated(s, c);
	text[0] = (char)c;
	switch (c) {
	case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
		break;
	case 'u':
		for (n = 1; n < 5; n++) {
			c = take_byte(s);
			if (c < 0)
				return truncated(s, c);
			if (!is_hex(c)) {
				s->pos--;
				return scan_fail(s, SCAN_SYNTAX, "invalid \\u escape (expected 4 hex digits)");
			}
			text[n] = (char)c;
		}
		break;
	default:
		s->pos--;
		return scan_fail(s, SCAN_SYNTAX, "invalid escape in string");
	}
	return out_add(s, out, text, n);
}

int scan_string(struct scan *s, struct buf *out)
{
	int c = peek(s);
	int rc;

	if (c != '"') {
		if (c < 0)
			return truncated(s, c);
		return scan_fail(s, SCAN_SYNTAX, "expected a string");
	}
	s->pos++;
	if ((rc = out_add(s, out, "\"", 1)) != SCAN_OK)
		return rc;
	for (;;) {
		const unsigned char *p, *q, *end;
		if ((rc = refill(s)) <= 0)
			return truncated(s, rc == 0 ? -1 : rc);
		p = s->buf + s->pos;
		end = s->buf + s->len;
		q = string_run_end(p, end);
		s->pos = (size_t)(q - s->buf);
		if (q > p && (rc = out_add(s, out, p, (size_t)(q - p))) != SCAN_OK)
			return rc;
		if (q == end)
			continue;
		if (*q == '"') {
			s->pos++;
			return out_add(s, out, "\"", 1);
		}
		if (*q == '\\') {
			s->pos++;
			if ((rc = out_add(s, out, "\\", 1)) != SCAN_OK ||
			    (rc = scan_escape(s, out)) != SCAN_OK)
				return rc;
			continue;
		}
		return scan_fail(s, SCAN_SYNTAX, "control character in string (must be escaped)");
	}
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* Copy a run of digits; *count says whether there was any. */
static int copy_digits(struct scan *s, struct buf *out, int *count)
{
	int rc;

	*count = 0;
	for (;;) {
		size_t start;
		if ((rc = refill(s)) < 0)
			return rc;
		if (rc == 0)
			return SCAN_OK;
		start = s->pos;
		while (s->pos < s->len && is_digit(s->buf[s->pos]))
			s->pos++;
		*count |= s->pos > start;
		if (s->pos > start && (rc = out_add(s, out, s->buf + start, s->pos - start)) != SCAN_OK)
			return rc;
		if (s->pos < s->len)
			return SCAN_OK;
	}
}

/* The next byte without consuming it and without skipping whitespace;
 * -1 at the end of input. */
static int look(struct scan *s)
{
	int rc = refill(s);

	if (rc <= 0)
		return rc == 0 ? -1 : rc;
	return s->buf[s->pos];
}

static int scan_number(struct scan *s, struct buf *out)
{
	int c, rc, ndigits;

	c = look(s);
	if (c == '-') {
		s->pos++;
		if ((rc = out_add(s, out, "-", 1)) != SCAN_OK)
			return rc;
		c = look(s);
	}
	if (c == '0') {
		s->pos++;
		if ((rc = out_add(s, out, "0", 1)) != SCAN_OK)
			return rc;
		if (is_digit(look(s)))
			return scan_fail(s, SCAN_SYNTAX, "invalid number (leading zero)");
	} else if (is_digit(c)) {
		if ((rc = copy_digits(s, out, &ndigits)) != SCAN_OK)
			return rc;
	} else {
		if (c < -1)
			return c;
		return c == -1 ? truncated(s, -1)
			       : scan_fail(s, SCAN_SYNTAX, "invalid number");
	}
	c = look(s);
	if (c == '.') {
		s->pos++;
		if ((rc = out_add(s, out, ".", 1)) != SCAN_OK ||
		    (rc = copy_digits(s, out, &ndigits)) != SCAN_OK)
			return rc;
		if (ndigits == 0)
			return look(s) == -1 ? truncated(s, -1)
				: scan_fail(s, SCAN_SYNTAX, "invalid number (no digit after '.')");
		c = look(s);
	}
	if (c == 'e' || c == 'E') {
		char e = (char)c;
		s->pos++;
		if ((rc = out_add(s, out, &e, 1)) != SCAN_OK)
			return rc;
		c = look(s);
		if (c == '+' || c == '-') {
			char sign = (char)c;
			s->pos++;
			if ((rc = out_add(s, out, &sign, 1)) != SCAN_OK)
				return rc;
		}
		if ((rc = copy_digits(s, out, &ndigits)) != SCAN_OK)
			return rc;
		if (ndigits == 0)
			return look(s) == -1 ? truncated(s, -1)
				: scan_fail(s, SCAN_SYNTAX, "invalid number (no digit in exponent)");
		c = look(s);
	}
	if (c < -1)
		return c;
	return SCAN_OK;
}

static int scan_literal(struct scan *s, struct buf *out)
{
	static const char *const words[] = { "true", "false", "null" };
	const char *word = NULL;
	int first = look(s);
	size_t i, n;

	for (i = 0; i < 3; i++)
		if (words[i][0] == first)
			word = words[i];
	if (word == NULL)
		return scan_fail(s, SCAN_SYNTAX, "expected a value");
	n = strlen(word);
	for (i = 0; i < n; i++) {
		int c = look(s);
		if (c != word[i])
			return c == -1 ? truncated(s, -1)
				: c < -1 ? c : scan_fail(s, SCAN_SYNTAX, "invalid literal");
		s->pos++;
	}
	return out_add(s, out, word, n);
}

enum want {
	WANT_VALUE,          /* after ':' or ',' in an array, or at the start */
	WANT_VALUE_OR_CLOSE, /* after '[' */
	WANT_KEY,            /* after ',' in an object */
	WANT_KEY_OR_CLOSE,   /* after '{' */
	WANT_COLON,
	WANT_COMMA_OR_CLOSE
};

static int push(struct scan *s, char kind)
{
	if (s->stack.len >= SCAN_MAX_DEPTH)
		return scan_fail(s, SCAN_SYNTAX, "nested deeper than " SCAN_MAX_DEPTH_TEXT
				 " levels (refused: later stages tokenize with jsmn, whose cost "
				 "grows with the square of the depth)");
	if (buf_addch(&s->stack, kind) != 0)
		return scan_fail(s, SCAN_NOMEM, "out of memory");
	return SCAN_OK;
}

/* Append [from, to) to out within max_value; -1 when it does not fit or
 * memory runs out (the fast path then leaves the value to the slow one). */
static inline int fast_copy(const struct scan *s, struct buf *out, const unsigned char *from,
			    const unsigned char *to)
{
	size_t n = (size_t)(to - from);

	if (out->len + n > s->max_value)
		return -1;
	if (out->len + n < out->cap) { /* the terminating NUL is set at the end */
		memcpy(out->p + out->len, from, n);
		out->len += n;
		return 0;
	}
	return buf_add(out, from, n);
}

/* Just past a valid escape starting at q[0] == '\\', or NULL when it is
 * invalid or runs past end. */
static const unsigned char *fast_escape(const unsigned char *q, const unsigned char *end)
{
	int i;

	if (end - q < 2)
		return NULL;
	switch (q[1]) {
	case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
		return q + 2;
	case 'u':
		if (end - q < 6)
			return NULL;
		for (i = 2; i < 6; i++)
			if (!is_hex(q[i]))
				return NULL;
		return q + 6;
	default:
		return NULL;
	}
}

/* The first byte at or after p that is not a digit, or end: sixteen bytes
 * at a time (a Kineto timestamp has 13 to 16 digits before its point). */
static inline const unsigned char *digits_end(const unsigned char *p, const unsigned char *end)
{
#ifdef __SSE2__
	const __m128i zero = _mm_set1_epi8('0');
	const __m128i ten = _mm_set1_epi8((char)(10 ^ 0x80));
	const __m128i sign = _mm_set1_epi8((char)0x80);

	while (end - p >= 16) {
		__m128i v = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), zero);
		/* unsigned v - '0' < 10, by flipping the sign bits for a signed compare */
		int digits = _mm_movemask_epi8(_mm_cmplt_epi8(_mm_xor_si128(v, sign), ten));
		if (digits != 0xffff)
			return p + __builtin_ctz((unsigned)~digits);
		p += 16;
	}
#endif
	while (p < end && is_digit(*p))
		p++;
	return p;
}

/* Just past a valid number starting at p, or NULL when it is invalid or
 * may continue past end (the slow path then decides). */
static FAST_INLINE const unsigned char *fast_number(const unsigned char *p, const unsigned char *end)
{
	if (p < end && *p == '-')
		p++;
	if (p == end)
		return NULL;
	if (*p == '0') {
		p++;
	} else if (is_digit(*p)) {
		p = digits_end(p + 1, end);
	} else {
		return NULL;
	}
	if (p < end && *p == '.') {
		const unsigned char *digits = ++p;
		p = digits_end(p, end);
		if (p == digits)
			return NULL;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		const unsigned char *digits;
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		digits = p;
		while (p < end && is_digit(*p))
			p++;
		if (p == digits)
			return NULL;
	}
	/* a digit here is a leading-zero error; the end may hide more digits */
	if (p == end || is_digit(*p))
		return NULL;
	return p;
}


#define FAST_MAX_DEPTH 64  /* one bit per level in a uint64_t */
/* Input bytes the fast path looks at: its output room is reserved for them
 * up front, so a larger bound only costs memory; longer values (rare: a
 * Kineto event is a few hundred bytes) take the slow path. */
#define FAST_MAX_SPAN (256u << 10)

static inline const unsigned char *fast_space(const unsigned char *p, const unsigned char *end)
{
	while (p < end && is_space(*p))
		p++;
	return p;
}

/* Just past the closing quote of the string whose opening quote is p[0],
 * or NULL when it is invalid (a control byte, a bad escape) or runs past
 * end. */
static inline const unsigned char *fast_string(const unsigned char *p, const unsigned char *end)
{
	for (p++;;) {
		const unsigned char *q = string_run_end(p, end);
		if (q == end)
			return NULL;
		if (*q == '"')
			return q + 1;
		if (*q != '\\' || (p = fast_escape(q, end)) == NULL)
			return NULL;
	}
}

/* Copy n bytes of input at from to o; a token of 16 bytes or fewer in one
 * 16-byte move (the output has 16 bytes of slack, the input is read only
 * up to end), one of 17 to 32 bytes (a timestamp with its fraction) in two
 * that overlap, within the token. */
static inline unsigned char *fast_put(unsigned char *o, const unsigned char *from, size_t n,
				      const unsigned char *end)
{
#ifdef __SSE2__
	if (n <= 16 && end - from >= 16) {
		_mm_storeu_si128((__m128i *)(void *)o,
				 _mm_loadu_si128((const __m128i *)(const void *)from));
		return o + n;
	}
	if (n > 16 && n <= 32) {
		__m128i head = _mm_loadu_si128((const __m128i *)(const void *)from);
		__m128i tail = _mm_loadu_si128((const __m128i *)(const void *)(from + n - 16));
		_mm_storeu_si128((__m128i *)(void *)o, head);
		_mm_storeu_si128((__m128i *)(void *)(o + n - 16), tail);
		return o + n;
	}
#else
	(void)end;
#endif
	memcpy(o, from, n);
	return o + n;
}

/* The fast paths' grammar, written as the shape of JSON (a member is a
 * name, ':', a value, then ',' or the close) so that the branches follow
 * the text.  From p, after whitespace, one value that ends before end:
 * returns just past it, or NULL when it met anything else (an error, the
 * end, nesting deeper than FAST_MAX_DEPTH).  It accepts only what
 * scan_value accepts.  With copy set it writes the value's bytes without
 * whitespace from *o on (room for end - p + 16 bytes: the output is never
 * longer than the input) and leaves *o past them.  Both callers copy;
 * scan_text_valid, which only checks, walks bit masks instead (below). */
static FAST_INLINE const unsigned char *fast_walk(const unsigned char *p, const unsigned char *end,
						  unsigned char **out, const int copy)
{
	const unsigned char *from;
	unsigned char *o = copy ? *out : NULL;
	uint64_t objects = 0; /* bit d set: level d + 1 is an object */
	unsigned depth = 0;
	int c;

	p = fast_space(p, end);
value:
	if (p == end)
		return NULL;
	c = *p;
	if (c == '"') {
		from = p;
		if ((p = fast_string(p, end)) == NULL)
			return NULL;
		if (copy)
			o = fast_put(o, from, (size_t)(p - from), end);
		goto after_value;
	}
	if (c == '-' || is_digit(c)) {
		from = p;
		if ((p = fast_number(p, end)) == NULL)
			return NULL;
		if (copy)
			o = fast_put(o, from, (size_t)(p - from), end);
		goto after_value;
	}
	if (c == '{' || c == '[') {
		if (depth == FAST_MAX_DEPTH)
			return NULL;
		if (copy)
			*o++ = (unsigned char)c;
		p = fast_space(p + 1, end);
		if (p == end)
			return NULL;
		if (c == '{') {
			objects |= (uint64_t)1 << depth++;
			if (*p != '}')
				goto key;
		} else {
			objects &= ~((uint64_t)1 << depth++);
			if (*p != ']')
				goto value;
		}
		if (copy)
			*o++ = *p;
		p++;
		depth--;
		goto after_value;
	}
	{
		static const char *const words[] = { "true", "false", "null" };
		size_t i, n = 0;
		for (i = 0; i < 3 && n == 0; i++)
			if (words[i][0] == c)
				n = strlen(words[i]);
		if (n == 0 || (size_t)(end - p) < n || memcmp(p, words[i - 1], n) != 0)
			return NULL;
		if (copy) {
			memcpy(o, p, n);
			o += n;
		}
		p += n;
	}
after_value:
	if (depth == 0) {
		if (copy)
			*out = o;
		return p;
	}
	p = fast_space(p, end);
	if (p == end)
		return NULL;
	c = *p;
	if (c == ',') {
		if (copy)
			*o++ = ',';
		p = fast_space(p + 1, end);
		if (objects >> (depth - 1) & 1)
			goto key;
		goto value;
	}
	if ((c != '}' && c != ']') || (c == '}') != (int)(objects >> (depth - 1) & 1))
		return NULL;
	if (copy)
		*o++ = (unsigned char)c;
	p++;
	depth--;
	goto after_value;
key:
	if (p == end || *p != '"')
		return NULL;
	from = p;
	if ((p = fast_string(p, end)) == NULL)
		return NULL;
	if (copy)
		o = fast_put(o, from, (size_t)(p - from), end);
	p = fast_space(p, end);
	if (p == end || *p != ':')
		return NULL;
	if (copy)
		*o++ = ':';
	p = fast_space(p + 1, end);
	goto value;
}

/* scan_value's common case, on the bytes already in the block, copying
 * each token as it is met into room reserved beforehand.  It appends the
 * same bytes scan_value would.  Returns 1 when it scanned the value; 0
 * when fast_walk gave up or the size limit or memory stood in the way,
 * having consumed and appended nothing: the slow path then scans the
 * value again and explains any error exactly. */
static int scan_value_fast(struct scan *s, struct buf *out)
{
	const unsigned char *p = s->buf + s->pos, *end;
	unsigned char *o;
	size_t span = s->len - s->pos;

	if (s->slow_only || s->stack.len + FAST_MAX_DEPTH >= SCAN_MAX_DEPTH ||
	    out->len >= s->max_value)
		return 0;
	/* The output is never longer than the input consumed: reading no more
	 * than the limit allows keeps it within max_value and the room. */
	if (span > s->max_value - out->len)
		span = s->max_value - out->len;
	if (span > FAST_MAX_SPAN)
		span = FAST_MAX_SPAN;
	end = p + span;
	if (buf_grow(out, span + 16) != 0)
		return 0;
	o = (unsigned char *)out->p + out->len;
	p = fast_walk(p, end, &o, 1);
	if (p == NULL) {
		out->p[out->len] = '\0';
		return 0;
	}
	out->len = (size_t)(o - (unsigned char *)out->p);
	out->p[out->len] = '\0';
	s->pos = (size_t)(p - s->buf);
	return 1;
}

int scan_value_into(struct scan *s, void *dst, size_t room, size_t *n)
{
	const unsigned char *p = s->buf + s->pos;
	unsigned char *o = dst;
	size_t span = s->len - s->pos;

	if (s->slow_only || s->stack.len + FAST_MAX_DEPTH >= SCAN_MAX_DEPTH || room <= 16)
		return 0;
	/* as scan_value_fast: input read bounds the output */
	if (span > s->max_value)
		span = s->max_value;
	if (span > room - 16)
		span = room - 16;
	p = fast_walk(p, p + span, &o, 1);
	if (p == NULL)
		return 0;
	*n = (size_t)(o - (unsigned char *)dst);
	s->pos = (size_t)(p - s->buf);
	return 1;
}

/* ---- scan_text_valid: one pass of bit masks per 64-byte block ----
 * The bytes of a block are classified at once (sixteen at a time with
 * SSE2) into bit masks; string extents follow from the unescaped quotes by
 * a prefix XOR, so string content (the bulk of an event line) is checked
 * by mask operations alone: no control byte inside, every escape valid
 * (one backslash at a time: they are rare).  Eight blocks at a time go to
 * an array of token masks; then the grammar is walked over the tokens
 * only: structural bytes outside strings, opening quotes and the first
 * byte of each number or literal (checked there, up to the next token).
 * Why it accepts only valid text: up to the first byte where a text stops
 * being a prefix of valid JSON, the masks say what a byte-at-a-time reader
 * would (in a string or not, escaped or not); that byte is then checked as
 * such (a control byte, a bad escape, a token out of place, a scalar run
 * that is not one number or literal) and rejected.  Past it the masks may
 * be wrong, but the text is rejected anyway. */

/* Bit i of each mask describes byte i of a 64-byte block.  Two masks
 * tell four classes apart: quote (first only), structural (both), space
 * or control (second only), any other byte (neither).  "Structural" is
 * a superset, cheap to compute: { } [ ] , : and also \ ^ _ | ~ DEL, which
 * are never valid outside strings: there they become tokens of their own
 * that the walk rejects, as it would have rejected the scalar holding
 * them; inside strings the class does not matter. */
struct block_masks {
	uint64_t quote_or_structural;
	uint64_t structural_or_low;
	int special;                   /* the block holds a backslash or a control byte */
};

static int is_structural(unsigned c)
{
	return ((c | 0x20) >= 0x7b && (c | 0x20) <= 0x7f) || c == ',' || c == ':';
}

/* The masks a byte at a time: what builds without SSE2 use. */
static void classify_portable(const unsigned char *p, struct block_masks *m)
{
	unsigned i;

	m->quote_or_structural = m->structural_or_low = 0;
	m->special = 0;
	for (i = 0; i < 64; i++) {
		uint64_t bit = (uint64_t)1 << i;
		if (p[i] == '"' || is_structural(p[i]))
			m->quote_or_structural |= bit;
		if (p[i] <= 0x20 || is_structural(p[i]))
			m->structural_or_low |= bit;
		m->special |= p[i] < 0x20 || p[i] == '\\';
	}
}

/* The masks of backslashes and control bytes, for a block that has any. */
static void special_portable(const unsigned char *p, uint64_t *backslash, uint64_t *control)
{
	unsigned i;

	*backslash = *control = 0;
	for (i = 0; i < 64; i++) {
		*backslash |= (uint64_t)(p[i] == '\\') << i;
		*control |= (uint64_t)(p[i] < 0x20) << i;
	}
}

#ifdef __SSE2__
static inline uint64_t mask16(__m128i v, unsigned k)
{
	return (uint64_t)(unsigned)_mm_movemask_epi8(v) << (16 * k);
}

static FAST_INLINE void classify_sse2(const unsigned char *p, struct block_masks *m)
{
	const __m128i quote = _mm_set1_epi8('"');
	const __m128i backslash = _mm_set1_epi8('\\');
	const __m128i space = _mm_set1_epi8(' ');
	const __m128i below_brackets = _mm_set1_epi8('z');
	const __m128i comma = _mm_set1_epi8(',');
	const __m128i colon = _mm_set1_epi8(':');
	__m128i backslashes = _mm_setzero_si128(), least = _mm_set1_epi8((char)0xff);
	uint64_t qs = 0, sl = 0;
	unsigned k;

	for (k = 0; k < 4; k++) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
		/* v | 0x20 in 0x7b..0x7f, a signed compare (0x80 and up are
		 * negative): [ \ ] ^ _ { | } ~ DEL */
		__m128i st = _mm_or_si128(_mm_cmpgt_epi8(_mm_or_si128(v, space), below_brackets),
					  _mm_or_si128(_mm_cmpeq_epi8(v, comma),
						       _mm_cmpeq_epi8(v, colon)));
		/* unsigned v <= 0x20: min(v, 0x20) == v */
		__m128i low = _mm_cmpeq_epi8(_mm_min_epu8(v, space), v);
		least = _mm_min_epu8(least, v);
		backslashes = _mm_or_si128(backslashes, _mm_cmpeq_epi8(v, backslash));
		qs |= mask16(_mm_or_si128(_mm_cmpeq_epi8(v, quote), st), k);
		sl |= mask16(_mm_or_si128(low, st), k);
	}
	m->quote_or_structural = qs;
	m->structural_or_low = sl;
	/* a control byte: some least byte below 0x20 */
	m->special = _mm_movemask_epi8(_mm_or_si128(backslashes, _mm_cmpeq_epi8(
		_mm_min_epu8(least, _mm_set1_epi8(0x1f)), least))) != 0;
}

static void special_sse2(const unsigned char *p, uint64_t *backslash, uint64_t *control)
{
	const __m128i bs = _mm_set1_epi8('\\');
	const __m128i below_space = _mm_set1_epi8(0x1f);
	unsigned k;

	*backslash = *control = 0;
	for (k = 0; k < 4; k++) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
		*backslash |= mask16(_mm_cmpeq_epi8(v, bs), k);
		*control |= mask16(_mm_cmpeq_epi8(_mm_min_epu8(v, below_space), v), k);
	}
}
#endif

static FAST_INLINE void classify(const unsigned char *p, struct block_masks *m, const int portable)
{
#ifdef __SSE2__
	if (!portable) {
		classify_sse2(p, m);
		return;
	}
#else
	(void)portable;
#endif
	classify_portable(p, m);
}

static void special_masks(const unsigned char *p, uint64_t *backslash, uint64_t *control,
			  const int portable)
{
#ifdef __SSE2__
	if (!portable) {
		special_sse2(p, backslash, control);
		return;
	}
#else
	(void)portable;
#endif
	special_portable(p, backslash, control);
}

/* Blocks classified per call of next_chunk: a Kineto event line (a few
 * hundred bytes) takes one call. */
#define CHUNK_BLOCKS 8

/* Where the classification of a text stands, and the tokens of the chunk
 * the walk is in. */
struct text_blocks {
	const unsigned char *text, *end;
	size_t next;               /* offset of the first byte not classified */
	uint64_t in_string;        /* all ones: the last block ended in a string */
	uint64_t escaped;          /* 1: the next block's first byte is escaped */
	uint64_t scalar;           /* 1: the last block ended on a scalar byte */
	uint64_t block_space;      /* the last block's whitespace outside strings */
	uint64_t space;            /* nonzero: the text has whitespace outside strings */
	int bad;                   /* a block held an error */
	unsigned count;            /* blocks in tokens[] */
	uint64_t tokens[CHUNK_BLOCKS]; /* per block, its tokens (bit i: byte i) */
};

static inline uint64_t prefix_xor(uint64_t x)
{
	x ^= x << 1;
	x ^= x << 2;
	x ^= x << 4;
	x ^= x << 8;
	x ^= x << 16;
	x ^= x << 32;
	return x;
}

/* The index of the lowest set bit of x, which is not 0. */
static inline size_t lowest_bit(uint64_t x)
{
#ifdef __GNUC__
	return (size_t)__builtin_ctzll(x);
#else
	size_t i = 0;
	while ((x & 1) == 0) {
		x >>= 1;
		i++;
	}
	return i;
#endif
}

/* Escapes and control bytes of a block that has any (its bytes at from,
 * shifted right by shift; base: the text byte of bit 0): 0 on an error,
 * else 1 with *escaped the bytes escaped by a backslash. */
static int check_special(struct text_blocks *b, const unsigned char *from, unsigned shift,
			 const unsigned char *base, uint64_t *escaped, uint64_t *control,
			 const int portable)
{
	uint64_t backslash, starts;

	special_masks(from, &backslash, control, portable);
	backslash >>= shift;
	*control >>= shift;
	/* a backslash not itself escaped escapes the next byte */
	starts = backslash & ~*escaped;
	b->escaped = 0;
	while (starts != 0) {
		size_t i = lowest_bit(starts);
		if (fast_escape(base + i, b->end) == NULL)
			return 0;
		starts &= starts - 1;
		if (i == 63) {
			b->escaped = 1;
		} else {
			*escaped |= (uint64_t)2 << i;
			starts &= ~((uint64_t)2 << i);
		}
	}
	return 1;
}

/* The tokens of one block: its 64 bytes at from, shifted right by shift
 * (the text's last bytes), the text byte of bit 0 at base.  Checks what
 * masks can check; on an error sets b->bad. */
static FAST_INLINE uint64_t block_tokens(struct text_blocks *b, const unsigned char *from,
					 unsigned shift, const unsigned char *base,
					 const int portable)
{
	struct block_masks m;
	uint64_t escaped = b->escaped, control = 0, quotes, structural, other, in, outside;

	classify(from, &m, portable);
	m.quote_or_structural >>= shift;
	m.structural_or_low >>= shift;
	if ((m.special || escaped != 0) &&
	    !check_special(b, from, shift, base, &escaped, &control, portable)) {
		b->bad = 1;
		return 0;
	}
	quotes = m.quote_or_structural & ~m.structural_or_low & ~escaped;
	structural = m.quote_or_structural & m.structural_or_low;
	/* in: from an opening quote up to its closing one, excluded */
	in = prefix_xor(quotes) ^ b->in_string;
	b->in_string = 0 - (in >> 63);
	outside = ~(in | quotes);
	if (control != 0) {
		uint64_t loose;
		if ((control & in) != 0) {
			b->bad = 1;
			return 0;
		}
		/* outside strings the only control bytes allowed are whitespace */
		for (loose = control & outside; loose != 0; loose &= loose - 1) {
			unsigned char c = base[lowest_bit(loose)];
			if (c != '\t' && c != '\n' && c != '\r') {
				b->bad = 1;
				return 0;
			}
		}
	}
	/* low bytes that are not structural: whitespace (control bytes
	 * outside strings were refused above) */
	b->block_space = m.structural_or_low & ~m.quote_or_structural & outside;
	other = ~(m.quote_or_structural | m.structural_or_low) & outside & (~(uint64_t)0 >> shift);
	structural = (structural & outside) | (quotes & in) | (other & ~(other << 1 | b->scalar));
	b->scalar = other >> 63;
	return structural;
}

/* Classify the next blocks of the text (CHUNK_BLOCKS at most) into
 * b->tokens: their number, 0 at the end of the text or on an error
 * (b->bad set). */
static FAST_INLINE unsigned next_chunk(struct text_blocks *b, const int portable)
{
	size_t len = (size_t)(b->end - b->text);
	unsigned n = 0;

	while (n < CHUNK_BLOCKS && b->next < len) {
		const unsigned char *base = b->text + b->next;
		size_t left = len - b->next;
		if (left >= 64) {
			b->tokens[n] = block_tokens(b, base, 0, base, portable);
			b->next += 64;
			b->space |= b->block_space;
		} else if (len >= 64) {
			/* the last 64 bytes, shifted so that bit 0 is the first new one */
			b->tokens[n] = block_tokens(b, b->end - 64, (unsigned)(64 - left), base, portable);
			b->next = len;
			b->space |= b->block_space;
		} else {
			/* a short text, padded with spaces: nothing to check in them */
			unsigned char pad[64];
			memset(pad, ' ', sizeof pad);
			memcpy(pad, b->text, len);
			b->tokens[n] = block_tokens(b, pad, 0, base, portable);
			b->next = len;
			b->space |= b->block_space & (((uint64_t)1 << len) - 1);
		}
		if (b->bad)
			return 0;
		n++;
	}
	/* a string still open at the end is truncated */
	if (n == 0 && b->in_string != 0)
		b->bad = 1;
	b->count = n;
	return n;
}

/* next_chunk, once per classifier, out of line: the walk that calls it
 * stays small enough to keep its state in registers. */
#ifdef __GNUC__
__attribute__((noinline))
#endif
static unsigned next_chunk_sse2(struct text_blocks *b)
{
	return next_chunk(b, 0);
}

#ifdef __GNUC__
__attribute__((noinline))
#endif
static unsigned next_chunk_portable(struct text_blocks *b)
{
	return next_chunk(b, 1);
}

/* What next_token returns at the end of the text or on an error: a byte
 * that no rule of the grammar accepts. */
static const unsigned char no_token = '\0';

/* The next token of the text, or &no_token.  The walk keeps the current
 * block's tokens, the text byte of its bit 0 and its index in registers. */
static FAST_INLINE const unsigned char *next_token(struct text_blocks *b, uint64_t *tokens,
						   const unsigned char **base, unsigned *block,
						   const int portable)
{
	const unsigned char *p;

	while (*tokens == 0) {
		if (++*block < b->count) {
			*base += 64; /* blocks are consecutive */
		} else {
			*base = b->text + b->next;
			if ((portable ? next_chunk_portable(b) : next_chunk_sse2(b)) == 0)
				return &no_token;
			*block = 0;
		}
		*tokens = b->tokens[*block];
	}
	p = *base + lowest_bit(*tokens);
	*tokens &= *tokens - 1;
	return p;
}

/* What may follow a number or literal directly: the byte after it must
 * end its run of scalar bytes, and anything else is an error there. */
static inline int ends_scalar(const unsigned char *p, const unsigned char *end)
{
	return p == end || is_space(*p) || *p == ',' || *p == '}' || *p == ']';
}

/* 1 when the bytes from s up to the next token, next (its scalar run and
 * any whitespace after it), are one valid number.  The common numbers of
 * a trace (an integer, a decimal fraction, up to 32 bytes with nothing
 * after them: a timestamp has 17) are checked at once on a digit mask
 * (of the 32 bytes from s, or the text's last 32); the rest by
 * fast_number, which also rejects a number that ends the text. */
static FAST_INLINE int number_ok(const unsigned char *s, const unsigned char *next,
				 const unsigned char *text, const unsigned char *end,
				 const int portable)
{
	const unsigned char *after;

#ifdef __SSE2__
	size_t n = (size_t)(next - s);
	if (!portable && next != &no_token && n <= 32 && end - text >= 32) {
		const __m128i zero = _mm_set1_epi8('0');
		const __m128i ten = _mm_set1_epi8((char)(10 ^ 0x80));
		const __m128i sign = _mm_set1_epi8((char)0x80);
		const unsigned char *w = end - s >= 32 ? s : end - 32;
		/* unsigned byte - '0' < 10, by flipping the sign bits for a signed compare */
		__m128i lo = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)w), zero);
		__m128i hi = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)(w + 16)), zero);
		uint64_t digits = ((uint64_t)(unsigned)_mm_movemask_epi8(
					   _mm_cmplt_epi8(_mm_xor_si128(lo, sign), ten)) |
				   (uint64_t)(unsigned)_mm_movemask_epi8(
					   _mm_cmplt_epi8(_mm_xor_si128(hi, sign), ten)) << 16) >>
				  (s - w);
		unsigned first = s[0] == '-'; /* the first digit */
		uint64_t body = ((((uint64_t)1 << n) - 1) & ~(uint64_t)first);
		uint64_t other = body & ~digits;
		/* no leading zero: the first digit is not 0, or no digit follows it */
		if (body != 0 && (s[first] != '0' || ((body & digits) >> (first + 1) & 1) == 0)) {
			if (other == 0)
				return 1;
			/* one '.' with digits both sides */
			if ((other & (other - 1)) == 0 && s[lowest_bit(other)] == '.' &&
			    (other >> first & 1) == 0 && other < ((uint64_t)1 << (n - 1)))
				return 1;
		}
	}
#else
	(void)next;
	(void)portable;
	(void)text;
#endif
	after = fast_number(s, end);
	return after != NULL && ends_scalar(after, end);
}

/* What text_valid captures for scan_text_valid_members (capture set). */
struct captures {
	const struct scan_want *want;
	struct scan_span *value;
	unsigned left;             /* bit i: name i not found yet */
	int container;             /* a wanted member's value was an object or array */
};

/* The index of the wanted name that the key from its opening quote q up
 * to the colon at colon is, or -1 (also for whitespace before the colon:
 * the text then has some, and the caller is told so anyway).  Names are
 * compared packed into a word: an event has ten keys or so. */
static inline int wanted_key(const struct captures *cap, const unsigned char *q,
			     const unsigned char *colon, const unsigned char *end)
{
	const struct scan_want *w = cap->want;
	size_t n = (size_t)(colon - q) - 2;
	uint64_t name = 0;
	unsigned left;

	if (n > w->longest || (w->lengths >> n & 1) == 0 || colon[-1] != '"')
		return -1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (end - q > 9) {
		memcpy(&name, q + 1, 8);
		name &= n == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * n)) - 1;
	} else
#endif
	{
		size_t j;
		for (j = 0; j < n; j++)
			name |= (uint64_t)q[1 + j] << (8 * j);
	}
	for (left = cap->left; left != 0; left &= left - 1) {
		unsigned i = (unsigned)lowest_bit(left);
		if (w->name[i] == name && w->len[i] == n)
			return (int)i;
	}
	return -1;
}

/* fast_walk's grammar (same verdicts, same depth bound) over the tokens
 * next_token hands out: strings were checked by the masks, numbers and
 * literals are checked here at their first byte.  With capture set, the
 * values of the wanted members of the outermost object are noted on the
 * way: a scalar's raw text runs from its first byte to the next token. */
static FAST_INLINE int text_valid(const unsigned char *text, size_t len, const int portable,
				  const int capture, struct captures *cap)
{
	struct text_blocks b;
	const unsigned char *p, *end = text + len, *base = text, *vstart = NULL;
	uint64_t tokens = 0, objects = 0; /* objects: bit d set: level d + 1 is an object */
	unsigned depth = 0, block = 0;
	int c, pending = -1;       /* capture: the wanted member whose value is next */

	b.text = text;
	b.end = end;
	b.next = 0;
	b.in_string = b.escaped = b.scalar = b.space = 0;
	b.bad = 0;
	b.count = 0;
	p = next_token(&b, &tokens, &base, &block, portable);
value:
	c = *p;
	if (c == '"')
		goto after_value;
	if (c == '-' || is_digit(c)) {
		const unsigned char *number = p;
		p = next_token(&b, &tokens, &base, &block, portable);
		if (!number_ok(number, p, text, end, portable))
			return 0;
		goto next_after_value;
	}
	if (c == '{' || c == '[') {
		if (depth == FAST_MAX_DEPTH)
			return 0;
		if (capture && pending >= 0) {
			cap->container = 1;
			pending = -1;
		}
		p = next_token(&b, &tokens, &base, &block, portable);
		if (c == '{') {
			objects |= (uint64_t)1 << depth++;
			if (*p != '}')
				goto key;
		} else {
			objects &= ~((uint64_t)1 << depth++);
			if (*p != ']')
				goto value;
		}
		depth--;
		goto after_value;
	}
	{
		const char *word = c == 't' ? "true" : c == 'f' ? "false" : c == 'n' ? "null" : NULL;
		size_t n = word == NULL ? 0 : strlen(word);
		if (n == 0 || (size_t)(end - p) < n || memcmp(p, word, n) != 0 ||
		    !ends_scalar(p + n, end))
			return 0;
	}
after_value:
	p = next_token(&b, &tokens, &base, &block, portable);
next_after_value:
	if (capture && pending >= 0 && p != &no_token) {
		cap->value[pending].p = (const char *)vstart;
		cap->value[pending].len = (size_t)(p - vstart);
		cap->left &= ~(1u << pending);
		pending = -1;
	}
	if (depth == 0) {
		if (p != &no_token || b.bad)
			return 0;
		return capture && (b.space != 0 || cap->container) ? 2 : 1;
	}
	c = *p;
	if (c == ',') {
		p = next_token(&b, &tokens, &base, &block, portable);
		if (objects >> (depth - 1) & 1)
			goto key;
		goto value;
	}
	if ((c != '}' && c != ']') || (c == '}') != (int)(objects >> (depth - 1) & 1))
		return 0;
	depth--;
	goto after_value;
key:
	{
		const unsigned char *q = p;
		if (*q != '"' || *(p = next_token(&b, &tokens, &base, &block, portable)) != ':')
			return 0;
		if (capture && depth == 1 && cap->left != 0)
			pending = wanted_key(cap, q, p, end);
	}
	p = next_token(&b, &tokens, &base, &block, portable);
	vstart = p;
	goto value;
}

int scan_text_valid(const void *text, size_t len)
{
	return text_valid(text, len, 0, 0, NULL);
}

int scan_want_init(struct scan_want *w, const struct scan_member *names, unsigned n)
{
	unsigned i;
	size_t j;

	memset(w, 0, sizeof *w);
	if (n > SCAN_WANT_MAX)
		return -1;
	for (i = 0; i < n; i++) {
		if (names[i].len > 8)
			return -1;
		/* byte j in bits 8j..8j+7, as wanted_key packs a key */
		for (j = 0; j < names[i].len; j++)
			w->name[i] |= (uint64_t)(unsigned char)names[i].name[j] << (8 * j);
		w->len[i] = names[i].len;
		w->lengths |= 1u << names[i].len;
		if (names[i].len > w->longest)
			w->longest = names[i].len;
	}
	w->n = n;
	return 0;
}

int scan_text_valid_members(const void *text, size_t len, const struct scan_want *want,
			    struct scan_span *value)
{
	struct captures cap;
	unsigned i;

	for (i = 0; i < want->n; i++) {
		value[i].p = NULL;
		value[i].len = 0;
	}
	cap.want = want;
	cap.value = value;
	cap.left = want->n == 0 ? 0 : (1u << want->n) - 1;
	cap.container = 0;
	return text_valid(text, len, 0, 1, &cap);
}

/* One value, iteratively (no recursion on the C stack): a small pushdown
 * automaton over the non-whitespace bytes. */
int scan_value(struct scan *s, struct buf *out)
{
	enum want want = WANT_VALUE;
	size_t depth0 = s->stack.len;
	int rc;

	if (scan_value_fast(s, out))
		return SCAN_OK;

	for (;;) {
		int c = peek(s);
		char byte;
		if (c < 0)
			return truncated(s, c);
		byte = (char)c;
		switch (want) {
		case WANT_VALUE_OR_CLOSE:
			if (c == ']')
				goto close;
			/* fall through */
		case WANT_VALUE:
			if (c == '{' || c == '[') {
				if ((rc = push(s, byte)) != SCAN_OK)
					return rc; /* at the bracket that goes too deep */
				s->pos++;
				if ((rc = out_add(s, out, &byte, 1)) != SCAN_OK)
					return rc;
				want = c == '{' ? WANT_KEY_OR_CLOSE : WANT_VALUE_OR_CLOSE;
				continue;
			}
			if (c == '"')
				rc = scan_string(s, out);
			else if (c == '-' || is_digit(c))
				rc = scan_number(s, out);
			else
				rc = scan_literal(s, out);
			if (rc != SCAN_OK)
				return rc;
			goto after_value;
		case WANT_KEY_OR_CLOSE:
			if (c == '}')
				goto close;
			/* fall through */
		case WANT_KEY:
			if (c != '"')
				return scan_fail(s, SCAN_SYNTAX, want == WANT_KEY ?
					"expected a member name after ','" :
					"expected a member name or '}'");
			if ((rc = scan_string(s, out)) != SCAN_OK)
				return rc;
			want = WANT_COLON;
			continue;
		case WANT_COLON:
			if (c != ':')
				return scan_fail(s, SCAN_SYNTAX, "expected ':' after a member name");
			s->pos++;
			if ((rc = out_add(s, out, ":", 1)) != SCAN_OK)
				return rc;
			want = WANT_VALUE;
			continue;
		case WANT_COMMA_OR_CLOSE:
			if (c == ',') {
				s->pos++;
				if ((rc = out_add(s, out, ",", 1)) != SCAN_OK)
					return rc;
				want = s->stack.p[s->stack.len - 1] == '{' ? WANT_KEY : WANT_VALUE;
				continue;
			}
			if (c == '}' || c == ']')
				goto close;
			return scan_fail(s, SCAN_SYNTAX,
				s->stack.p[s->stack.len - 1] == '{' ?
				"expected ',' or '}' after a member" :
				"expected ',' or ']' after an element");
		}
close:
		if ((c == '}') != (s->stack.p[s->stack.len - 1] == '{'))
			return scan_fail(s, SCAN_SYNTAX, "mismatched closing bracket");
		s->pos++;
		buf_setlen(&s->stack, s->stack.len - 1);
		if ((rc = out_add(s, out, &byte, 1)) != SCAN_OK)
			return rc;
after_value:
		if (s->stack.len == depth0)
			return SCAN_OK;
		want = WANT_COMMA_OR_CLOSE;
	}
}
