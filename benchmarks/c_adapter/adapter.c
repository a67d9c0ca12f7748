/*
 * A small compiled fairvec adapter for the benchmarks (issue 20, section 3).
 *
 * Written from docs/adapter-protocol.md, docs/accumulated.md and the specs alone:
 *   stake: bytes, floats, dice, limbo, crash, mines, plinko, keno, wheel, roulette, diamonds,
 *     cards, shuffle, video_poker;
 *   bustabit: previous_hash, crash_v2, crash_v2_outcome, crash_v1, crash_v1_outcome,
 *     chain_check, chain_position, games;
 *   tenhou: mt19937, seed, rnd, shuffle, dice, tile, deal, seat_order, commitment, hand_wall,
 *     wall_tiles, game;
 * every variant of each (the hello in main lists them).
 * Hello options: "lone_surrogates": "marked" (cJSON never sees a lone surrogate) and
 * "accumulate": true (accumulated vectors computed here, docs/accumulated.md).
 *
 * C11, OpenSSL's libcrypto (SHA-256, SHA-512) and cJSON (requests). Build: see Makefile / README.md.
 *
 * If the environment variable FAIRVEC_C_ADAPTER_FIRST_REQUEST names a file, the adapter
 * appends to it the wall-clock time (seconds since the epoch) at which it read its first
 * request line: benchmarks/compiled_targets.py measures the runner's start-up with it.
 */
#define _GNU_SOURCE /* memmem */
#define OPENSSL_SUPPRESS_DEPRECATED 1 /* SHA256_Init & co.: the fast low-level calls */

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <openssl/sha.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ buffers */

typedef struct {
    char *p;
    size_t n, cap;
} Buf;

static void buf_grow(Buf *b, size_t extra) {
    if (b->n + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + extra + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(70);
    }
    b->p = p;
    b->cap = cap;
}
static void buf_put(Buf *b, const void *s, size_t n) {
    buf_grow(b, n);
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}
static void buf_puts(Buf *b, const char *s) { buf_put(b, s, strlen(s)); }
static void buf_putc(Buf *b, char c) { buf_put(b, &c, 1); }

static const char HEX[] = "0123456789abcdef";

static void buf_hex(Buf *b, const uint8_t *d, size_t n) {
    buf_grow(b, 2 * n);
    for (size_t i = 0; i < n; i++) {
        b->p[b->n++] = HEX[d[i] >> 4];
        b->p[b->n++] = HEX[d[i] & 15];
    }
    b->p[b->n] = 0;
}

/* decimal, two digits a division (the tenhou outputs are long lists of 32-bit words) */
static void buf_u64(Buf *b, uint64_t v) {
    static const char PAIRS[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";
    char t[24];
    int k = 24;
    while (v >= 100) {
        const char *d = PAIRS + 2 * (v % 100);
        v /= 100;
        t[--k] = d[1], t[--k] = d[0];
    }
    if (v >= 10) t[--k] = PAIRS[2 * v + 1], t[--k] = PAIRS[2 * v];
    else t[--k] = (char)('0' + v);
    buf_put(b, t + k, (size_t)(24 - k));
}

/* A string as JSON.stringify writes it: " and \ escaped, controls below U+0020 as
 * \b \t \n \f \r or \u00xx, everything else as is (UTF-8). */
static void buf_jstr(Buf *b, const char *s, size_t n) {
    buf_grow(b, n + 2);
    b->p[b->n++] = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') {
            buf_grow(b, 1);
            b->p[b->n++] = (char)c;
            continue;
        }
        char e[7];
        switch (c) {
        case '"': strcpy(e, "\\\""); break;
        case '\\': strcpy(e, "\\\\"); break;
        case '\b': strcpy(e, "\\b"); break;
        case '\t': strcpy(e, "\\t"); break;
        case '\n': strcpy(e, "\\n"); break;
        case '\f': strcpy(e, "\\f"); break;
        case '\r': strcpy(e, "\\r"); break;
        default:
            e[0] = '\\', e[1] = 'u', e[2] = '0', e[3] = '0', e[4] = HEX[c >> 4], e[5] = HEX[c & 15], e[6] = 0;
        }
        buf_puts(b, e);
    }
    buf_putc(b, '"');
}

/* A double as ECMAScript's Number.prototype.toString writes it (shortest round trip; where
 * two 16- or 17-digit texts read back as x, the correctly rounded one, which is the closer). */
static int rt_ok(double x, int p, char *tmp, size_t tn) {
    snprintf(tmp, tn, "%.*e", p - 1, x);
    return strtod(tmp, NULL) == x;
}
static void buf_num(Buf *b, double x) {
    if (x == 0) {
        buf_putc(b, '0'); /* -0 too */
        return;
    }
    if (x < 0) {
        buf_putc(b, '-');
        x = -x;
    }
    if (x < 9007199254740992.0 && x == floor(x)) {
        buf_u64(b, (uint64_t)x);
        return;
    }
    char tmp[48];
    /* At most 15 digits, the correctly rounded 15 digits are the shortest ones with their
     * trailing zeros stripped (a double has more than 15 digits of precision, so a decimal
     * of 15 digits or fewer that reads back as x is x rounded to 15 digits). Else 16 or 17. */
    int p = rt_ok(x, 15, tmp, sizeof tmp) ? 15 : rt_ok(x, 16, tmp, sizeof tmp) ? 16 : 17;
    if (p == 17) snprintf(tmp, sizeof tmp, "%.*e", p - 1, x);
    char dg[24];
    int k = 0;
    char *q = tmp;
    for (; *q && *q != 'e'; q++)
        if (*q >= '0' && *q <= '9') dg[k++] = *q;
    while (k > 1 && dg[k - 1] == '0') k--;
    int n = atoi(q + 1) + 1; /* x = 0.d1d2...dk * 10^n */
    if (k <= n && n <= 21) {
        buf_put(b, dg, (size_t)k);
        for (int i = k; i < n; i++) buf_putc(b, '0');
    } else if (0 < n && n <= 21) {
        buf_put(b, dg, (size_t)n);
        buf_putc(b, '.');
        buf_put(b, dg + n, (size_t)(k - n));
    } else if (-6 < n && n <= 0) {
        buf_puts(b, "0.");
        for (int i = 0; i < -n; i++) buf_putc(b, '0');
        buf_put(b, dg, (size_t)k);
    } else {
        buf_putc(b, dg[0]);
        if (k > 1) {
            buf_putc(b, '.');
            buf_put(b, dg + 1, (size_t)(k - 1));
        }
        char e[16];
        snprintf(e, sizeof e, "e%c%d", n - 1 >= 0 ? '+' : '-', abs(n - 1));
        buf_puts(b, e);
    }
}

/* ------------------------------------------------------------------ hashes */

/* SHA-256 in one call through the low-level interface: OpenSSL 3's SHA256() fetches the
 * digest under a lock on every call (a fifth of the adapter's time on a full tier). */
static void sha256(const void *d, size_t n, uint8_t out[32]) {
    SHA256_CTX c;
    SHA256_Init(&c);
    SHA256_Update(&c, d, n);
    SHA256_Final(out, &c);
}

static void hmac_sha256(const void *key, size_t klen, const void *msg, size_t mlen, uint8_t out[32]) {
    uint8_t k[64] = {0}, pad[64], inner[32];
    if (klen > 64) sha256(key, klen, k);
    else memcpy(k, key, klen);
    SHA256_CTX c;
    for (int i = 0; i < 64; i++) pad[i] = k[i] ^ 0x36;
    SHA256_Init(&c);
    SHA256_Update(&c, pad, 64);
    SHA256_Update(&c, msg, mlen);
    SHA256_Final(inner, &c);
    for (int i = 0; i < 64; i++) pad[i] = k[i] ^ 0x5c;
    SHA256_Init(&c);
    SHA256_Update(&c, pad, 64);
    SHA256_Update(&c, inner, 32);
    SHA256_Final(out, &c);
}

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}
static int is_hex64(const char *s, size_t n) {
    if (n != 64) return 0;
    for (size_t i = 0; i < n; i++)
        if (hexval((unsigned char)s[i]) < 0) return 0;
    return 1;
}
static void unhex32(const char *s, uint8_t out[32]) {
    for (int i = 0; i < 32; i++) out[i] = (uint8_t)(hexval(s[2 * i]) << 4 | hexval(s[2 * i + 1]));
}

/* ------------------------------------------------------------------ inputs and schemas */

enum { K_MISSING, K_STR, K_NUM, K_BOOL, K_ARR, K_OTHER };
typedef struct {
    int kind;
    const char *s; /* K_STR: UTF-8 text (decoded when it was marked) */
    size_t len;
    int lone; /* K_STR: held a lone surrogate */
    double num;       /* K_NUM; K_BOOL: 1 or 0 */
    const cJSON *arr; /* K_ARR */
    Buf own;          /* storage for decoded or generated text */
    cJSON *owned;     /* a generated array (accumulated vectors), freed with the case */
} Val;

/* T_INTS: an array of integers; T_STRS: an array of strings */
enum { T_STR, T_INT, T_FLOATS, T_BOOL, T_INTS, T_STRS };
typedef struct {
    const char *name;
    int type;
    double min, max;       /* T_INT; T_FLOATS: each item's */
    const char *range_err; /* T_INT: minimum, maximum or enum; T_STR: enum; T_FLOATS: an item's */
    const char *hex_err;   /* T_STR: pattern ^[0-9a-f]{64}$ with this code, or NULL */
    const int *ienum;      /* T_INT: the enum, 0-terminated, or NULL */
    const char *const *senum; /* T_STR: the enum, NULL-terminated, or NULL */
    int max_items;         /* T_FLOATS, T_INTS, T_STRS: maxItems (and minItems), with */
    const char *max_items_err; /* this code (NULL: no bound on the count) */
    int min_items;
    int optional; /* not in the schema's required: the default def when absent */
    double def;
} Field;

#define MAXF 8
typedef struct Algo Algo;
typedef const char *(*ComputeFn)(const Algo *, int variant, Val *v, Buf *out);
struct Algo {
    const char *id;
    int nf;
    Field f[MAXF]; /* in the order of the schema's properties (= its required order here) */
    int nvar;
    const char *var[4];
    ComputeFn compute;
};

static int is_integer(const Val *x) { return x->kind == K_NUM && isfinite(x->num) && x->num == floor(x->num); }

/* step 4: the JSON type, array items included */
static int json_integer(const cJSON *c) {
    return cJSON_IsNumber(c) && isfinite(c->valuedouble) && c->valuedouble == floor(c->valuedouble);
}
static int type_ok(const Field *f, const Val *x) {
    if (f->type == T_STR) return x->kind == K_STR;
    if (f->type == T_INT) return is_integer(x);
    if (f->type == T_BOOL) return x->kind == K_BOOL;
    if (x->kind != K_ARR) return 0;
    for (const cJSON *c = x->arr->child; c; c = c->next)
        if (f->type == T_FLOATS ? !cJSON_IsNumber(c) : f->type == T_INTS ? !json_integer(c) : !cJSON_IsString(c))
            return 0;
    return 1;
}

static int str_in(const Val *x, const char *const *list) {
    for (; *list; list++)
        if (strlen(*list) == x->len && memcmp(*list, x->s, x->len) == 0) return 1;
    return 0;
}

/* step 6 for one field: its own constraints (enum, minimum, maximum, maxItems, pattern),
 * then its items' in index order */
static const char *constraint_err(const Field *f, const Val *x) {
    if (f->type == T_INT) {
        if (f->ienum) {
            for (const int *e = f->ienum; *e; e++)
                if (x->num == *e) return NULL;
            return f->range_err;
        }
        return x->num < f->min || x->num > f->max ? f->range_err : NULL;
    }
    if (f->type == T_STR) {
        if (f->senum && !str_in(x, f->senum)) return f->range_err;
        if (f->hex_err && !is_hex64(x->s, x->len)) return f->hex_err;
        return NULL;
    }
    if (f->type == T_BOOL) return NULL;
    int n = cJSON_GetArraySize(x->arr);
    if (f->max_items_err && (n < f->min_items || n > f->max_items)) return f->max_items_err;
    if (f->type == T_STRS || !f->range_err) return NULL;
    for (const cJSON *c = x->arr->child; c; c = c->next)
        if (c->valuedouble < f->min || c->valuedouble > f->max) return f->range_err;
    return NULL;
}

static void take_string(Val *v, const char *s);

/* step 5 for an array of strings: an item (marked) holding a lone surrogate */
static int items_lone(const Val *x) {
    static Val t;
    for (const cJSON *c = x->arr->child; c; c = c->next) {
        take_string(&t, c->valuestring);
        if (t.lone) return 1;
    }
    return 0;
}

/* the order of docs/spec-format.md "Input errors", steps 3 to 6 (1 and 2 are the caller's) */
static const char *check_vals(const Algo *a, Val *v) {
    for (int i = 0; i < a->nf; i++)
        if (v[i].kind == K_MISSING && !a->f[i].optional) return "missing-field";
    for (int i = 0; i < a->nf; i++)
        if (v[i].kind != K_MISSING && !type_ok(&a->f[i], &v[i])) return "wrong-type";
    for (int i = 0; i < a->nf; i++)
        if ((a->f[i].type == T_STR && v[i].lone) || (a->f[i].type == T_STRS && items_lone(&v[i])))
            return "not-unicode-text";
    for (int i = 0; i < a->nf; i++) {
        const char *err = v[i].kind == K_MISSING ? NULL : constraint_err(&a->f[i], &v[i]);
        if (err) return err;
    }
    for (int i = 0; i < a->nf; i++) /* an absent optional field takes its default */
        if (v[i].kind == K_MISSING) v[i].kind = a->f[i].type == T_BOOL ? K_BOOL : K_NUM, v[i].num = a->f[i].def;
    return NULL;
}

static void utf8_put(Buf *b, uint32_t c) {
    char t[4];
    size_t n;
    if (c < 0x80) t[0] = (char)c, n = 1;
    else if (c < 0x800) t[0] = (char)(0xC0 | c >> 6), t[1] = (char)(0x80 | (c & 63)), n = 2;
    else if (c < 0x10000)
        t[0] = (char)(0xE0 | c >> 12), t[1] = (char)(0x80 | ((c >> 6) & 63)), t[2] = (char)(0x80 | (c & 63)), n = 3;
    else
        t[0] = (char)(0xF0 | c >> 18), t[1] = (char)(0x80 | ((c >> 12) & 63)), t[2] = (char)(0x80 | ((c >> 6) & 63)),
        t[3] = (char)(0x80 | (c & 63)), n = 4;
    buf_put(b, t, n);
}

/* A string of a request: marked (U+FFFF then UTF-16 code units in hex) or as it is. */
static void take_string(Val *v, const char *s) {
    v->kind = K_STR;
    v->lone = 0;
    size_t n = strlen(s);
    if (n < 3 || memcmp(s, "\xEF\xBF\xBF", 3) != 0) {
        v->s = s;
        v->len = n;
        return;
    }
    v->own.n = 0;
    buf_grow(&v->own, n);
    const char *h = s + 3;
    size_t units = (n - 3) / 4;
    for (size_t i = 0; i < units; i++) {
        uint32_t u = 0;
        for (int j = 0; j < 4; j++) u = u << 4 | (uint32_t)hexval(h[4 * i + j]);
        if (u >= 0xD800 && u < 0xDC00 && i + 1 < units) {
            uint32_t w = 0;
            for (int j = 0; j < 4; j++) w = w << 4 | (uint32_t)hexval(h[4 * (i + 1) + j]);
            if (w >= 0xDC00 && w < 0xE000) {
                utf8_put(&v->own, 0x10000 + ((u - 0xD800) << 10) + (w - 0xDC00));
                i++;
                continue;
            }
        }
        if (u >= 0xD800 && u < 0xE000) {
            v->lone = 1;
            continue;
        }
        utf8_put(&v->own, u);
    }
    v->s = v->own.p ? v->own.p : "";
    v->len = v->own.n;
}

static int field_index(const Algo *a, const char *name) {
    for (int i = 0; i < a->nf; i++)
        if (strcmp(a->f[i].name, name) == 0) return i;
    return -1;
}

static const char *read_input(const Algo *a, const cJSON *in, Val *v) {
    if (!cJSON_IsObject(in)) return "wrong-type";
    for (int i = 0; i < a->nf; i++) v[i].kind = K_MISSING;
    for (const cJSON *c = in->child; c; c = c->next)
        if (field_index(a, c->string) < 0) return "unknown-field";
    for (const cJSON *c = in->child; c; c = c->next) {
        Val *x = &v[field_index(a, c->string)];
        if (cJSON_IsString(c)) take_string(x, c->valuestring);
        else if (cJSON_IsNumber(c)) x->kind = K_NUM, x->num = c->valuedouble;
        else if (cJSON_IsBool(c)) x->kind = K_BOOL, x->num = cJSON_IsTrue(c);
        else if (cJSON_IsArray(c)) x->kind = K_ARR, x->arr = c;
        else x->kind = K_OTHER;
    }
    return check_vals(a, v);
}

/* ------------------------------------------------------------------ the algorithms */

static void stake_round(const Val *v, uint64_t nonce, uint64_t round, uint8_t out[32], Buf *msg) {
    msg->n = 0;
    buf_put(msg, v[1].s, v[1].len);
    buf_putc(msg, ':');
    buf_u64(msg, nonce);
    buf_putc(msg, ':');
    buf_u64(msg, round);
    hmac_sha256(v[0].s, v[0].len, msg->p, msg->n, out);
}

static Buf g_msg;

static const char *c_bytes(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a, (void)variant;
    uint8_t h[32];
    stake_round(v, (uint64_t)v[2].num, (uint64_t)v[3].num, h, &g_msg);
    buf_puts(out, "{\"bytes\":\"");
    buf_hex(out, h, 32);
    buf_puts(out, "\",\"message\":");
    buf_jstr(out, g_msg.p, g_msg.n);
    buf_putc(out, '}');
    return NULL;
}

static const char *c_floats(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a, (void)variant;
    uint64_t nonce = (uint64_t)v[2].num, cursor = (uint64_t)v[3].num;
    int count = (int)v[4].num;
    uint64_t round = cursor / 32;
    int off = (int)(cursor % 32);
    uint8_t h[32];
    stake_round(v, nonce, round, h, &g_msg);
    buf_puts(out, "{\"floats\":[");
    for (int i = 0; i < count; i++) {
        uint32_t k = 0;
        for (int j = 0; j < 4; j++) {
            if (off == 32) {
                stake_round(v, nonce, ++round, h, &g_msg);
                off = 0;
            }
            k = k << 8 | h[off++];
        }
        if (i) buf_putc(out, ',');
        buf_num(out, (double)k / 4294967296.0);
    }
    buf_puts(out, "]}");
    return NULL;
}

/* x.toFixed(2) for 0 <= x < 1e21: the n with n / 100 - x closest to zero, the larger on a
 * tie, computed exactly (x * 100 needs at most 58 significant bits: exact in x87's long
 * double, whose significand has 64). */
static uint64_t to_fixed2_units(double x) {
    long double y = (long double)x * 100.0L;
    long double n = floorl(y);
    if (y - n >= 0.5L) n += 1.0L;
    return (uint64_t)n;
}

static const char *c_dice(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a;
    uint8_t h[32];
    stake_round(v, (uint64_t)v[2].num, 0, h, &g_msg);
    uint32_t k = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
    double f = (double)k / 4294967296.0;
    uint64_t units;
    double result;
    char text[32];
    if (variant == 0) { /* truncate: floor(f * 10001) / 100; its toFixed(2) is the integer's digits */
        units = (uint64_t)floor(f * 10001.0);
        result = (double)units / 100.0;
        snprintf(text, sizeof text, "%llu.%02llu", (unsigned long long)(units / 100), (unsigned long long)(units % 100));
    } else { /* round: text = (f * 10001 / 100).toFixed(2), result = Number(text) */
        units = to_fixed2_units(f * 10001.0 / 100.0);
        snprintf(text, sizeof text, "%llu.%02llu", (unsigned long long)(units / 100), (unsigned long long)(units % 100));
        result = strtod(text, NULL);
    }
    buf_puts(out, "{\"float\":");
    buf_num(out, f);
    buf_puts(out, ",\"result\":");
    buf_num(out, result);
    buf_puts(out, ",\"text\":\"");
    buf_puts(out, text);
    buf_puts(out, "\"}");
    return NULL;
}

/* ---- stake, the games: each reads the first floats of its bet (stake.floats, cursor 0) */

/* the first n floats of a bet: 8 per round, from bytes 4i .. 4i + 3 of round i / 8 */
static void game_floats(const Val *v, int n, double *f) {
    uint64_t nonce = (uint64_t)v[2].num;
    uint8_t h[32];
    for (int i = 0; i < n; i++) {
        if (i % 8 == 0) stake_round(v, nonce, (uint64_t)(i / 8), h, &g_msg);
        const uint8_t *b = h + 4 * (i % 8);
        uint32_t k = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
        f[i] = (double)k / 4294967296.0;
    }
}

static void put_floats(Buf *out, const double *f, int n) {
    buf_putc(out, '[');
    for (int i = 0; i < n; i++) {
        if (i) buf_putc(out, ',');
        buf_num(out, f[i]);
    }
    buf_putc(out, ']');
}

static void put_ints(Buf *out, const int *x, int n, int plus) {
    buf_putc(out, '[');
    for (int i = 0; i < n; i++) {
        if (i) buf_putc(out, ',');
        buf_u64(out, (uint64_t)(x[i] + plus));
    }
    buf_putc(out, ']');
}

static void sort_ints(int *x, int n) {
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && x[j - 1] > x[j]; j--) {
            int t = x[j];
            x[j] = x[j - 1], x[j - 1] = t;
        }
}

/* text with two decimals for units hundredths (what toFixed(2) writes) */
static void put_fixed2(Buf *out, uint64_t units) {
    char t[32];
    snprintf(t, sizeof t, "\"%llu.%02llu\"", (unsigned long long)(units / 100), (unsigned long long)(units % 100));
    buf_puts(out, t);
}

/* A multiplier x >= 0 to the hundredth: truncate, max(1, floor(x * 100) / 100) (its text is
 * the same hundredths); round, text = max(1, x).toFixed(2) and the number read back from it. */
static double hundredths(double x, int round, uint64_t *units) {
    if (round) {
        *units = to_fixed2_units(x < 1 ? 1.0 : x);
        return (double)*units / 100.0; /* = Number(text): the double nearest units / 100 */
    }
    double m = floor(x * 100.0) / 100.0;
    if (m < 1) m = 1;
    *units = to_fixed2_units(m);
    return m;
}

static const char *c_limbo(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a;
    double f;
    game_floats(v, 1, &f);
    double k = floor(f * 16777216.0);
    double x = 16777216.0 / (k + 1) * 0.99; /* divide, then multiply */
    uint64_t units;
    double m = hundredths(x, variant == 1, &units);
    buf_puts(out, "{\"float\":");
    buf_num(out, f);
    buf_puts(out, ",\"multiplier\":");
    buf_num(out, m);
    buf_puts(out, ",\"scaled\":");
    buf_u64(out, (uint64_t)k);
    buf_puts(out, ",\"text\":");
    put_fixed2(out, units);
    buf_putc(out, '}');
    return NULL;
}

/* Stake's Crash: HMAC keyed with the game hash's text over the salt's UTF-8 bytes */
static const char *c_stake_crash(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a;
    uint8_t h[32];
    hmac_sha256(v[0].s, 64, v[1].s, v[1].len, h);
    uint32_t n = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
    double x = 4294967296.0 / ((double)n + 1) * 0.99;
    if (x < 1) x = 1;
    uint64_t units;
    double c = hundredths(x, variant == 1, &units);
    buf_puts(out, "{\"crash_point\":");
    buf_num(out, c);
    buf_puts(out, ",\"hmac\":\"");
    buf_hex(out, h, 32);
    buf_puts(out, "\",\"number\":");
    buf_u64(out, n);
    buf_puts(out, ",\"text\":");
    put_fixed2(out, units);
    buf_putc(out, '}');
    return NULL;
}

/* stake.shuffle: for each float, the position floor(f * m) of the m items left;
 * pick-and-remove splices the item out, swap-from-end moves the last item into its place */
static void shuffle_picks(const double *f, int n, int size, int swap_from_end, int *index, int *pick) {
    static int items[1000];
    for (int i = 0; i < size; i++) items[i] = i;
    for (int i = 0; i < n; i++) {
        int m = size - i, k = (int)floor(f[i] * m);
        index[i] = k;
        pick[i] = items[k];
        if (swap_from_end) items[k] = items[m - 1];
        else memmove(items + k, items + k + 1, (size_t)(m - k - 1) * sizeof *items);
    }
}

static const char *c_shuffle(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a;
    static double f[1000];
    static int index[1000], pick[1000];
    int n = cJSON_GetArraySize(v[0].arr), size = (int)v[1].num;
    /* the algorithm's own checks (step check_floats): the count first, then [0, 1) */
    if (n > size) return "too-many-floats";
    int i = 0;
    for (const cJSON *c = v[0].arr->child; c; c = c->next, i++) {
        if (c->valuedouble >= 1) return "float-out-of-range";
        f[i] = c->valuedouble;
    }
    shuffle_picks(f, n, size, variant == 1, index, pick);
    buf_puts(out, "{\"indices\":");
    put_ints(out, index, n, 0);
    buf_puts(out, ",\"picks\":");
    put_ints(out, pick, n, 0);
    buf_putc(out, '}');
    return NULL;
}

static const char *c_mines(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a;
    double f[24];
    int n = (int)v[3].num, index[24], mines[24], cells[24];
    game_floats(v, n, f);
    shuffle_picks(f, n, 25, variant == 1, index, mines);
    memcpy(cells, mines, sizeof cells);
    sort_ints(cells, n);
    buf_puts(out, "{\"cells\":");
    put_ints(out, cells, n, 0);
    buf_puts(out, ",\"floats\":");
    put_floats(out, f, n);
    buf_puts(out, ",\"mines\":");
    put_ints(out, mines, n, 0);
    buf_putc(out, '}');
    return NULL;
}

static const char *c_plinko(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a, (void)variant;
    double f[16];
    int n = (int)v[3].num, dir[16], slot = 0;
    game_floats(v, n, f);
    for (int i = 0; i < n; i++) slot += dir[i] = (int)floor(f[i] * 2);
    buf_puts(out, "{\"directions\":");
    put_ints(out, dir, n, 0);
    buf_puts(out, ",\"floats\":");
    put_floats(out, f, n);
    buf_puts(out, ",\"slot\":");
    buf_u64(out, (uint64_t)slot);
    buf_putc(out, '}');
    return NULL;
}

static const char *c_keno(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a;
    double f[10];
    int index[10], hits[10], squares[10];
    game_floats(v, 10, f);
    shuffle_picks(f, 10, 40, variant == 1, index, hits);
    memcpy(squares, hits, sizeof squares);
    sort_ints(squares, 10);
    buf_puts(out, "{\"floats\":");
    put_floats(out, f, 10);
    buf_puts(out, ",\"hits\":"); /* squares are numbered from 1: the pick plus 1 */
    put_ints(out, hits, 10, 1);
    buf_puts(out, ",\"squares\":");
    put_ints(out, squares, 10, 1);
    buf_putc(out, '}');
    return NULL;
}

/* Wheel's payout of a segment (step wheel_payouts) */
static double wheel_payout(int segments, const char *risk, int seg) {
    static const double LOW[10] = {1.5, 1.2, 1.2, 1.2, 0, 1.2, 1.2, 1.2, 1.2, 0};
    static const double M10[] = {0, 1.9, 0, 1.5, 0, 2, 0, 1.5, 0, 3};
    static const double M20[] = {1.5, 0, 2, 0, 2, 0, 2, 0, 1.5, 0, 3, 0, 1.8, 0, 2, 0, 2, 0, 2, 0};
    static const double M30[] = {1.5, 0, 1.5, 0, 2, 0, 1.5, 0, 2, 0, 2,   0, 1.5, 0, 3,
                                 0,   1.5, 0, 2, 0, 2, 0, 1.7, 0, 4, 0, 1.5, 0, 2, 0};
    static const double M40[] = {2, 0, 3, 0, 2, 0, 1.5, 0, 3, 0, 1.5, 0, 1.5, 0, 2,   0, 1.5, 0, 3, 0,
                                 1.5, 0, 2, 0, 2, 0, 1.6, 0, 2, 0, 1.5, 0, 3, 0, 1.5, 0, 2, 0, 1.5, 0};
    static const double M50[] = {2, 0, 1.5, 0, 2, 0, 1.5, 0, 3, 0, 1.5, 0, 1.5, 0, 2, 0, 1.5,
                                 0, 3, 0, 1.5, 0, 2, 0, 1.5, 0, 2, 0, 2, 0, 1.5, 0, 3, 0,
                                 1.5, 0, 2, 0, 1.5, 0, 1.5, 0, 5, 0, 1.5, 0, 2, 0, 1.5, 0};
    static const double *const MEDIUM[5] = {M10, M20, M30, M40, M50};
    static const double HIGH_LAST[5] = {9.9, 19.8, 29.7, 39.6, 49.5};
    if (risk[0] == 'l') return LOW[seg % 10];
    if (risk[0] == 'm') return MEDIUM[segments / 10 - 1][seg];
    return seg == segments - 1 ? HIGH_LAST[segments / 10 - 1] : 0;
}

static const char *c_wheel(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a, (void)variant;
    double f;
    game_floats(v, 1, &f);
    int segments = (int)v[3].num, seg = (int)floor(f * segments);
    buf_puts(out, "{\"float\":");
    buf_num(out, f);
    buf_puts(out, ",\"multiplier\":");
    buf_num(out, wheel_payout(segments, v[4].s, seg));
    buf_puts(out, ",\"segment\":");
    buf_u64(out, (uint64_t)seg);
    buf_putc(out, '}');
    return NULL;
}

static const char *c_roulette(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a, (void)variant;
    double f;
    game_floats(v, 1, &f);
    buf_puts(out, "{\"float\":");
    buf_num(out, f);
    buf_puts(out, ",\"pocket\":");
    buf_u64(out, (uint64_t)floor(f * 37));
    buf_putc(out, '}');
    return NULL;
}

static const char *c_diamonds(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a, (void)variant;
    static const char *const GEMS[7] = {"green", "purple", "yellow", "red", "cyan", "orange", "blue"};
    double f[5];
    game_floats(v, 5, f);
    buf_puts(out, "{\"floats\":");
    put_floats(out, f, 5);
    buf_puts(out, ",\"gems\":[");
    for (int i = 0; i < 5; i++) {
        if (i) buf_putc(out, ',');
        buf_putc(out, '"');
        buf_puts(out, GEMS[(int)floor(f[i] * 7)]);
        buf_putc(out, '"');
    }
    buf_puts(out, "]}");
    return NULL;
}

/* a deck index as text: rank-major, RANKS[i / 4] then SUITS[i % 4] (♦ ♥ ♠ ♣, UTF-8) */
static void put_card(Buf *out, int i) {
    static const char *const RANKS[13] = {"2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"};
    static const char *const SUITS[4] = {"\xE2\x99\xA6", "\xE2\x99\xA5", "\xE2\x99\xA0", "\xE2\x99\xA3"};
    buf_putc(out, '"');
    buf_puts(out, RANKS[i / 4]);
    buf_puts(out, SUITS[i % 4]);
    buf_putc(out, '"');
}

static void put_cards(Buf *out, const int *idx, int n) {
    buf_putc(out, '[');
    for (int i = 0; i < n; i++) {
        if (i) buf_putc(out, ',');
        put_card(out, idx[i]);
    }
    buf_putc(out, ']');
}

/* unlimited decks: every card is floor(f * 52), no removal */
static const char *c_cards(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a, (void)variant;
    double f[52];
    int n = (int)v[3].num, idx[52];
    game_floats(v, n, f);
    for (int i = 0; i < n; i++) idx[i] = (int)floor(f[i] * 52);
    buf_puts(out, "{\"cards\":");
    put_cards(out, idx, n);
    buf_puts(out, ",\"floats\":");
    put_floats(out, f, n);
    buf_puts(out, ",\"indices\":");
    put_ints(out, idx, n, 0);
    buf_putc(out, '}');
    return NULL;
}

/* one deck: ten cards by stake.shuffle; cards 1 to 5 the hand, 6 to 10 the draws */
static const char *c_video_poker(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a;
    double f[10];
    int index[10], idx[10];
    game_floats(v, 10, f);
    shuffle_picks(f, 10, 52, variant == 1, index, idx);
    buf_puts(out, "{\"cards\":");
    put_cards(out, idx, 10);
    buf_puts(out, ",\"draws\":");
    put_cards(out, idx + 5, 5);
    buf_puts(out, ",\"floats\":");
    put_floats(out, f, 10);
    buf_puts(out, ",\"hand\":");
    put_cards(out, idx, 5);
    buf_puts(out, ",\"indices\":");
    put_ints(out, idx, 10, 0);
    buf_putc(out, '}');
    return NULL;
}

static const char *c_previous_hash(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a;
    uint8_t h[32], raw[32];
    if (variant == 0) {
        unhex32(v[0].s, raw);
        sha256(raw, 32, h);
    } else {
        sha256(v[0].s, 64, h);
    }
    buf_puts(out, "{\"previous_hash\":\"");
    buf_hex(out, h, 32);
    buf_puts(out, "\"}");
    return NULL;
}

/* parseFloat(x.toPrecision(9)) for 0 <= x < 1: nine significant digits of x's exact
 * binary value (glibc prints it exactly), a tie going up. */
static double to_precision9(double x) {
    if (x == 0) return 0;
    char t[128];
    snprintf(t, sizeof t, "%.80e", x);
    long long d = 0;
    int k = 0;
    char *q = t;
    for (; *q && *q != 'e'; q++) {
        if (*q < '0' || *q > '9') continue;
        if (k < 9) d = d * 10 + (*q - '0');
        else if (k == 9 && *q >= '5') d += 1;
        k++;
    }
    int e = atoi(q + 1);
    if (d == 1000000000LL) d = 100000000LL, e += 1;
    char r[64];
    snprintf(r, sizeof r, "%llde%d", d, e - 8);
    return strtod(r, NULL);
}

/* ---- bustabit: the crash points, the chain */

/* r = the first 13 hex digits (52 bits) of the HMAC */
static uint64_t first_52_bits(const uint8_t h[32]) {
    uint64_t r = 0;
    for (int i = 0; i < 6; i++) r = r << 8 | h[i];
    return r << 4 | h[6] >> 4;
}

/* v2's crash point for r, in bustabit's (bcgame 0) or BC.Game's reading; *x gets X as the
 * division uses it. INFINITY where bcgame rounds X to 1 (written "Infinity"). */
static double v2_crash(uint64_t r, int bcgame, double *x) {
    *x = (double)r / 4503599627370496.0;
    if (bcgame) *x = to_precision9(*x);
    double den = 1.0 - *x;
    if (den == 0) return INFINITY;
    double c = floor(99.0 / den) / 100.0;
    return c < 1 ? 1.0 : c;
}

static void put_v2(Buf *out, const uint8_t h[32], int with_hmac, int bcgame) {
    uint64_t r = first_52_bits(h);
    double x, c = v2_crash(r, bcgame, &x);
    buf_puts(out, "{\"crash\":");
    if (isinf(c)) buf_puts(out, "\"Infinity\"");
    else buf_num(out, c);
    if (with_hmac) {
        buf_puts(out, ",\"hmac\":\"");
        buf_hex(out, h, 32);
        buf_putc(out, '"');
    }
    buf_puts(out, ",\"r\":");
    buf_u64(out, r);
    buf_puts(out, ",\"x\":");
    buf_num(out, x);
    buf_putc(out, '}');
}

static const char *c_crash_v2_outcome(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a;
    uint8_t h[32];
    unhex32(v[0].s, h);
    put_v2(out, h, 0, variant == 1);
    return NULL;
}

static const char *c_crash_v2(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a;
    uint8_t msg[32], h[32];
    unhex32(v[0].s, msg);
    hmac_sha256(v[1].s, v[1].len, msg, 32, h);
    put_v2(out, h, 1, variant == 1);
    return NULL;
}

/* v1: instant when the whole 256-bit HMAC is divisible by the modulus (101 bustabit, 33
 * roobet); else floor((100 * 2^52 - r) / (2^52 - r)) / 100, each operation a double (the
 * subtraction 100 * 2^52 - r rounds: it is above 2^53). */
static void put_v1(Buf *out, const uint8_t h[32], int with_hmac, int roobet) {
    unsigned mod = roobet ? 33 : 101, rem = 0;
    for (int i = 0; i < 32; i++) rem = (rem * 256 + h[i]) % mod;
    uint64_t r = first_52_bits(h);
    double crash;
    if (rem == 0) {
        crash = roobet ? 1.0 : 0.0;
    } else {
        const double e = 4503599627370496.0;
        double num = 100.0 * e - (double)r; /* rounded to a double here, as in JavaScript */
        crash = floor(num / (e - (double)r)) / 100.0;
    }
    buf_puts(out, "{\"crash\":");
    buf_num(out, crash);
    if (with_hmac) {
        buf_puts(out, ",\"hmac\":\"");
        buf_hex(out, h, 32);
        buf_putc(out, '"');
    }
    buf_puts(out, rem == 0 ? ",\"instant\":true,\"r\":" : ",\"instant\":false,\"r\":");
    buf_u64(out, r);
    buf_putc(out, '}');
}

static const char *c_crash_v1_outcome(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a;
    uint8_t h[32];
    unhex32(v[0].s, h);
    put_v1(out, h, 0, variant == 1);
    return NULL;
}

/* v1 keys HMAC with the game hash's text and hashes the salt's text (v2's roles swapped) */
static const char *c_crash_v1(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a;
    uint8_t h[32];
    hmac_sha256(v[0].s, 64, v[1].s, 64, h);
    put_v1(out, h, 1, variant == 1);
    return NULL;
}

/* one step down a chain: SHA-256 of the 32 bytes (raw-bytes) or of their 64-digit
 * lower-case hex text (hex-text) */
static void chain_step(uint8_t h[32], int hex_text) {
    if (!hex_text) {
        sha256(h, 32, h);
        return;
    }
    char t[64];
    for (int i = 0; i < 32; i++) t[2 * i] = HEX[h[i] >> 4], t[2 * i + 1] = HEX[h[i] & 15];
    sha256(t, 64, h);
}

/* Before a walk of seconds, send the answers computed so far: the main loop flushes only
 * before reading, and the runner times each request from when it becomes the oldest
 * unanswered one, so the quick answers ahead of a 10-million-step walk would wait for it
 * (bustabit.chain_position/terminating-hash-as-game-10000000) and time out. */
#define LONG_WALK 100000
static void flush_before_long_walk(uint64_t steps) {
    if (steps > LONG_WALK) fflush(stdout);
}

static const char *c_chain_check(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a;
    uint8_t h[32], end[32];
    unhex32(v[0].s, h);
    unhex32(v[1].s, end);
    uint64_t game = (uint64_t)v[2].num, max = (uint64_t)v[3].num, steps = 0;
    flush_before_long_walk(max);
    /* compare first, then step: at most max hashes, reached at exactly max counts */
    while (memcmp(h, end, 32) != 0) {
        if (steps == max) {
            buf_puts(out, "{\"game_number\":null,\"reached\":false,\"steps\":null}");
            return NULL;
        }
        chain_step(h, variant == 1);
        steps++;
    }
    buf_puts(out, "{\"game_number\":");
    buf_u64(out, game + steps);
    buf_puts(out, ",\"reached\":true,\"steps\":");
    buf_u64(out, steps);
    buf_putc(out, '}');
    return NULL;
}

/* bustabit's verifier: numbers 1 to 10,000,000 are the first chain (hex-text, origin 0),
 * the numbers above it the current chain (raw-bytes, origin 10,000,000); exactly
 * number - origin steps, no early stop, then one comparison */
static const char *c_chain_position(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a, (void)variant;
    static const char FIRST_END[] = "86728f5fc3bd99db94d3cdaf105d67788194e9701bf95d049ad0e1ee3d004277";
    static const char CURRENT_END[] = "567a98370fb7545137ddb53687723cf0b8a1f5e93b1f76f4a1da29416930fa59";
    uint64_t number = (uint64_t)v[1].num;
    int first = number <= 10000000;
    uint64_t steps = first ? number : number - 10000000;
    uint8_t h[32], end[32];
    unhex32(v[0].s, h);
    unhex32(first ? FIRST_END : CURRENT_END, end);
    flush_before_long_walk(steps);
    for (uint64_t i = 0; i < steps; i++) chain_step(h, first);
    buf_puts(out, first ? "{\"chain\":\"first\",\"end_hash\":\"" : "{\"chain\":\"current\",\"end_hash\":\"");
    buf_hex(out, h, 32);
    buf_puts(out, memcmp(h, end, 32) == 0 ? "\",\"genuine\":true,\"steps\":" : "\",\"genuine\":false,\"steps\":");
    buf_u64(out, steps);
    buf_putc(out, '}');
    return NULL;
}

/* the game and the count - 1 before it, newest first; the chain steps under the variant's
 * rule, the HMAC always takes the hash's 32 bytes (crash_v2, bustabit's reading) */
static const char *c_games(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a;
    static Buf hashes;
    int count = (int)v[2].num;
    uint8_t h[32], m[32];
    unhex32(v[0].s, h);
    hashes.n = 0;
    buf_puts(out, "{\"crashes\":[");
    for (int i = 0; i < count; i++) {
        if (i) {
            chain_step(h, variant == 1);
            buf_putc(out, ',');
            buf_putc(&hashes, ',');
        }
        hmac_sha256(v[1].s, 64, h, 32, m);
        double x;
        buf_num(out, v2_crash(first_52_bits(m), 0, &x));
        buf_putc(&hashes, '"');
        buf_hex(&hashes, h, 32);
        buf_putc(&hashes, '"');
    }
    buf_puts(out, "],\"hashes\":[");
    buf_put(out, hashes.p, hashes.n);
    buf_puts(out, "]}");
    return NULL;
}

/* ---- tenhou: Tenhou's wall (spec/tenhou/, docs/families/tenhou.md) */

/* mt19937ar (Matsumoto and Nishimura), all arithmetic mod 2^32 on uint32_t */
typedef struct {
    uint32_t mt[624];
    int i;
} Mt;

static void mt_init_genrand(Mt *m, uint32_t s) {
    m->mt[0] = s;
    for (uint32_t i = 1; i < 624; i++) m->mt[i] = 1812433253u * (m->mt[i - 1] ^ (m->mt[i - 1] >> 30)) + i;
    m->i = 624;
}

/* init_by_array: the first loop runs max(624, key length) times, the second 623 times
 * (quirk init-by-array-loop-bounds); i wraps to 1 with mt[0] = mt[623], j to 0 */
static void mt_init_by_array(Mt *m, const uint32_t *key, size_t n) {
    mt_init_genrand(m, 19650218u);
    size_t i = 1, j = 0;
    for (size_t k = n > 624 ? n : 624; k; k--) {
        m->mt[i] = (m->mt[i] ^ ((m->mt[i - 1] ^ (m->mt[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
        if (++i >= 624) m->mt[0] = m->mt[623], i = 1;
        if (++j >= n) j = 0;
    }
    for (size_t k = 623; k; k--) {
        m->mt[i] = (m->mt[i] ^ ((m->mt[i - 1] ^ (m->mt[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
        if (++i >= 624) m->mt[0] = m->mt[623], i = 1;
    }
    m->mt[0] = 0x80000000u;
}

static void mt_generate_block(Mt *m) {
    uint32_t *mt = m->mt;
    for (int kk = 0; kk < 624; kk++) { /* in place: mt[kk + 397 - 624] is already the new word */
        uint32_t y = (mt[kk] & 0x80000000u) | (mt[kk + 1 < 624 ? kk + 1 : 0] & 0x7fffffffu);
        mt[kk] = mt[kk + 397 < 624 ? kk + 397 : kk + 397 - 624] ^ (y >> 1) ^ (y & 1 ? 0x9908b0dfu : 0);
    }
    m->i = 0;
}

static uint32_t mt_next(Mt *m) {
    if (m->i >= 624) mt_generate_block(m);
    uint32_t y = m->mt[m->i++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
}

/* Tenhou's words are laid out and read back little-endian (the x86 server's memory) */
static uint32_t le32(const uint8_t *b) {
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void put_u32s(Buf *out, const uint32_t *x, int n) {
    buf_putc(out, '[');
    for (int i = 0; i < n; i++) {
        if (i) buf_putc(out, ',');
        buf_u64(out, x[i]);
    }
    buf_putc(out, ']');
}

/* an array field's integers (checked by the schema: in range) */
static int read_u32s(const Val *x, uint32_t *out, int cap) {
    int n = 0;
    for (const cJSON *c = x->arr->child; c && n < cap; c = c->next) out[n++] = (uint32_t)c->valuedouble;
    return n;
}

static const char *c_mt19937(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a, (void)variant;
    static uint32_t key[10000];
    static Mt m;
    int n = read_u32s(&v[0], key, 10000), count = (int)v[1].num, skip = (int)v[2].num;
    mt_init_by_array(&m, key, (size_t)n);
    for (int i = 0; i < skip; i++) mt_next(&m);
    buf_puts(out, "{\"outputs\":[");
    for (int i = 0; i < count; i++) {
        if (i) buf_putc(out, ',');
        buf_u64(out, mt_next(&m));
    }
    buf_puts(out, "]}");
    return NULL;
}

/* Strict standard base64 (tenhou.seed, decision strict-base64): A-Z a-z 0-9 + /, the length
 * a multiple of four, "=" only as the last one or two characters. Then exactly 2,496 bytes:
 * bad-base64 before wrong-length. The seed words are the bytes four at a time, little-endian. */
static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static signed char B64VAL[256]; /* -1, or the value of a base64 character */

static void b64_table(void) {
    memset(B64VAL, -1, sizeof B64VAL);
    for (int i = 0; i < 64; i++) B64VAL[(unsigned char)B64[i]] = (signed char)i;
}

#define SEED_BYTES 2496
static const char *decode_seed(const char *s, size_t n, uint8_t bytes[SEED_BYTES], uint32_t words[624]) {
    const unsigned char *u = (const unsigned char *)s;
    if (!B64VAL[0]) b64_table(); /* built on the first call ('\0' is then -1) */
    if (n % 4) return "bad-base64";
    size_t pad = n && u[n - 1] == '=' ? (n > 1 && u[n - 2] == '=' ? 2 : 1) : 0;
    for (size_t i = 0; i < n - pad; i++)
        if (B64VAL[u[i]] < 0) return "bad-base64";
    if (n / 4 * 3 - pad != SEED_BYTES) return "wrong-length";
    /* 2,496 is a multiple of 3: a seed of the right length has no padding */
    for (size_t i = 0, k = 0; i < n; i += 4, k += 3) {
        uint32_t q = (uint32_t)B64VAL[u[i]] << 18 | (uint32_t)B64VAL[u[i + 1]] << 12 |
                     (uint32_t)B64VAL[u[i + 2]] << 6 | (uint32_t)B64VAL[u[i + 3]];
        bytes[k] = (uint8_t)(q >> 16), bytes[k + 1] = (uint8_t)(q >> 8), bytes[k + 2] = (uint8_t)q;
    }
    for (int i = 0; i < 624; i++) words[i] = le32(bytes + 4 * i);
    return NULL;
}

static const char *c_seed(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a, (void)variant;
    static const char PREFIX[] = "mt19937ar-sha512-n288-base64,";
    const size_t np = sizeof PREFIX - 1;
    uint8_t bytes[SEED_BYTES];
    uint32_t words[624];
    if (v[0].len < np || memcmp(v[0].s, PREFIX, np) != 0) return "wrong-prefix";
    const char *err = decode_seed(v[0].s + np, v[0].len - np, bytes, words);
    if (err) return err;
    buf_puts(out, "{\"words\":");
    put_u32s(out, words, 624);
    buf_putc(out, '}');
    return NULL;
}

/* rnd: src's 288 words laid out little-endian (1,152 bytes), nine SHA-512 digests of 128-byte
 * slices, the 576 digest bytes read back as 144 little-endian words */
static void tenhou_rnd(const uint32_t src[288], uint32_t rnd[144], uint8_t dig[9][64]) {
    uint8_t b[1152];
    for (int i = 0; i < 288; i++)
        b[4 * i] = (uint8_t)src[i], b[4 * i + 1] = (uint8_t)(src[i] >> 8), b[4 * i + 2] = (uint8_t)(src[i] >> 16),
                  b[4 * i + 3] = (uint8_t)(src[i] >> 24);
    for (int i = 0; i < 9; i++) {
        SHA512_CTX c;
        SHA512_Init(&c);
        SHA512_Update(&c, b + 128 * i, 128);
        SHA512_Final(dig[i], &c);
    }
    for (int k = 0; k < 144; k++) rnd[k] = le32(&dig[k / 16][4 * (k % 16)]);
}

static const char *c_rnd(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a, (void)variant;
    uint32_t src[288], rnd[144];
    uint8_t dig[9][64];
    read_u32s(&v[0], src, 288);
    tenhou_rnd(src, rnd, dig);
    buf_puts(out, "{\"digests\":[");
    for (int i = 0; i < 9; i++) {
        buf_puts(out, i ? ",\"" : "\"");
        buf_hex(out, dig[i], 64);
        buf_putc(out, '"');
    }
    buf_puts(out, "],\"rnd\":");
    put_u32s(out, rnd, 144);
    buf_putc(out, '}');
    return NULL;
}

/* forward Fisher-Yates: swap yama[i] and yama[i + rnd[i] % (n - i)], the plain unsigned
 * remainder (quirk modulo-bias), n = 136 or 108 */
static void tenhou_shuffle(const uint32_t rnd[144], int n, int yama[136]) {
    for (int i = 0; i < n; i++) yama[i] = i;
    for (int i = 0; i < n - 1; i++) {
        int j = i + (int)(rnd[i] % (uint32_t)(n - i)), t = yama[i];
        yama[i] = yama[j], yama[j] = t;
    }
}

static const char *c_tenhou_shuffle(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a, (void)variant;
    uint32_t rnd[144];
    int yama[136], n = (int)v[1].num == 3 ? 108 : 136;
    read_u32s(&v[0], rnd, 144);
    tenhou_shuffle(rnd, n, yama);
    buf_puts(out, "{\"yama\":");
    put_ints(out, yama, n, 0);
    buf_putc(out, '}');
    return NULL;
}

/* 0-based dice from rnd[135] and rnd[136], whatever the player count */
static void tenhou_dice(const uint32_t rnd[144], int dice[2]) {
    dice[0] = (int)(rnd[135] % 6);
    dice[1] = (int)(rnd[136] % 6);
}

static const char *c_tenhou_dice(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a, (void)variant;
    uint32_t rnd[144];
    int dice[2];
    read_u32s(&v[0], rnd, 144);
    tenhou_dice(rnd, dice);
    buf_puts(out, "{\"dice\":");
    put_ints(out, dice, 2, 0);
    buf_puts(out, ",\"pips\":");
    put_ints(out, dice, 2, 1);
    buf_putc(out, '}');
    return NULL;
}

/* the tiles' names (tenhou.tile); kind is in the four-player order */
static int tile_kind(int id, int players) {
    int k = id / 4;
    if (players == 4) return k;
    return k == 0 ? 0 : k == 1 ? 8 : k + 7; /* three players: 1m, 9m, then 1p onwards */
}
static int tile_red(int id, int kind, int red_rule) {
    return red_rule && (kind == 4 || kind == 13 || kind == 22) && id % 4 == 0;
}
static void tile_name(int kind, int red, char name[3]) {
    if (kind < 27) name[0] = red ? '0' : (char)('1' + kind % 9), name[1] = "mps"[kind / 9];
    else name[0] = (char)('1' + kind - 27), name[1] = 'z';
    name[2] = 0;
}
static int tile_tenhou6(int kind, int red) {
    if (kind >= 27) return 41 + kind - 27;
    return red ? 51 + kind / 9 : 10 * (kind / 9 + 1) + kind % 9 + 1;
}

static const char *c_tile(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a, (void)variant;
    /* the document's haiDisp honours: 东 南 西 北 白 发 中 (simplified Chinese, UTF-8) */
    static const char *const HONOURS[7] = {"\xE4\xB8\x9C", "\xE5\x8D\x97", "\xE8\xA5\xBF", "\xE5\x8C\x97",
                                           "\xE7\x99\xBD", "\xE5\x8F\x91", "\xE4\xB8\xAD"};
    int id = (int)v[0].num, players = (int)v[1].num;
    if (players == 3 && id >= 108) return "tile-out-of-range";
    int kind = tile_kind(id, players), red = tile_red(id, kind, v[2].num != 0);
    char name[3];
    tile_name(kind, 0, name);
    buf_puts(out, "{\"display\":\"");
    buf_puts(out, kind < 27 ? name : HONOURS[kind - 27]);
    buf_puts(out, "\",\"kind\":");
    buf_u64(out, (uint64_t)kind);
    buf_puts(out, ",\"name\":\"");
    buf_puts(out, name);
    buf_puts(out, red ? "\",\"red\":true,\"tenhou6\":" : "\",\"red\":false,\"tenhou6\":");
    buf_u64(out, (uint64_t)tile_tenhou6(kind, red));
    buf_putc(out, '}');
    return NULL;
}

/* the starting hands: from yama[n-1] down, blocks of 4, 4, 4 then 1, each round of blocks
 * from the dealer round the table */
static void deal_haipai(const int *yama, int n, int players, int dealer, int hands[4][13]) {
    static const int BLOCKS[4] = {4, 4, 4, 1};
    int pos = n - 1, count[4] = {0};
    for (int b = 0; b < 4; b++)
        for (int k = 0; k < players; k++) {
            int seat = (dealer + k) % players;
            for (int t = 0; t < BLOCKS[b]; t++) hands[seat][count[seat]++] = yama[pos--];
        }
}

static void put_haipai(Buf *out, int hands[4][13], int players) {
    buf_putc(out, '[');
    for (int s = 0; s < 4; s++) {
        if (s) buf_putc(out, ',');
        put_ints(out, hands[s], s < players ? 13 : 0, 0); /* a three-player game's seat 3 is [] */
    }
    buf_putc(out, ']');
}

static void put_picks(Buf *out, const int *yama, const int *at, int n) {
    int t[8];
    for (int i = 0; i < n; i++) t[i] = yama[at[i]];
    put_ints(out, t, n, 0);
}

static const char *c_deal(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a, (void)variant;
    static const int DORA[5] = {5, 7, 9, 11, 13}, URA[5] = {4, 6, 8, 10, 12}, RINSHAN[4] = {1, 0, 3, 2};
    int yama[136], seen[136] = {0}, hands[4][13];
    int n = cJSON_GetArraySize(v[0].arr), dealer = (int)v[1].num;
    /* decision wall-checks: the length, then a permutation of 0..n-1, then the dealer */
    if (n != 136 && n != 108) return "wrong-length";
    int i = 0;
    for (const cJSON *c = v[0].arr->child; c; c = c->next, i++) {
        int id = (int)c->valuedouble;
        if (id >= n || seen[id]++) return "bad-wall";
        yama[i] = id;
    }
    int players = n == 136 ? 4 : 3;
    if (dealer >= players) return "bad-dealer";
    deal_haipai(yama, n, players, dealer, hands);
    buf_puts(out, "{\"dora_indicators\":");
    put_picks(out, yama, DORA, 5);
    buf_puts(out, ",\"draws\":[");
    for (int p = n - 1 - 13 * players; p >= 14; p--) { /* the live wall, drawn downwards */
        if (p != n - 1 - 13 * players) buf_putc(out, ',');
        buf_u64(out, (uint64_t)yama[p]);
    }
    buf_puts(out, "],\"haipai\":");
    put_haipai(out, hands, players);
    buf_puts(out, ",\"rinshan\":");
    put_picks(out, yama, RINSHAN, 4);
    buf_puts(out, ",\"ura_indicators\":");
    put_picks(out, yama, URA, 5);
    buf_putc(out, '}');
    return NULL;
}

/* strict UTF-8 (no overlong form, no surrogate, nothing above U+10FFFF), as Python decodes */
static int utf8_valid(const uint8_t *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        int len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        if (!len || i + (size_t)len > n) return 0;
        uint8_t lo = 0x80, hi = 0xBF;
        if (c == 0xE0) lo = 0xA0;
        else if (c == 0xED) hi = 0x9F;
        else if (c == 0xF0) lo = 0x90;
        else if (c == 0xF4) hi = 0x8F;
        if (s[i + 1] < lo || s[i + 1] > hi) return 0;
        for (int k = 2; k < len; k++)
            if (s[i + k] < 0x80 || s[i + k] > 0xBF) return 0;
        i += (size_t)len;
    }
    return 1;
}

static int hexdigit(int c) {
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return hexval(c);
}

/* urllib.parse.unquote, strictly: %XX in either case is a byte, '+' stays '+'; a '%' not
 * followed by two hex digits, or bytes that are not UTF-8, is bad-name (0) */
static int percent_decode(const char *s, size_t n, Buf *out) {
    out->n = 0;
    buf_grow(out, n);
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '%') {
            buf_putc(out, s[i]);
            continue;
        }
        if (i + 2 >= n) return 0;
        int h = hexdigit((unsigned char)s[i + 1]), l = hexdigit((unsigned char)s[i + 2]);
        if (h < 0 || l < 0) return 0;
        buf_putc(out, (char)(h << 4 | l));
        i += 2;
    }
    return utf8_valid((const uint8_t *)out->p, out->n);
}

/* ascending by code point, which is the order of the UTF-8 bytes */
static int name_cmp(const Buf *x, const Buf *y) {
    size_t m = x->n < y->n ? x->n : y->n;
    int c = memcmp(x->p, y->p, m);
    return c ? c : (x->n > y->n) - (x->n < y->n);
}

static void put_names(Buf *out, const Buf *names, const int *order, int n) {
    buf_putc(out, '[');
    for (int i = 0; i < n; i++) {
        if (i) buf_putc(out, ',');
        buf_jstr(out, names[order[i]].p, names[order[i]].n);
    }
    buf_putc(out, ']');
}

static const char *c_seat_order(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a, (void)variant;
    static Val raw[4];
    static Buf dec[4];
    int i = 0;
    for (const cJSON *c = v[0].arr->child; c; c = c->next, i++) take_string(&raw[i], c->valuestring);
    /* decision four-names: only n3 may be empty (three players), checked before decoding */
    for (i = 0; i < 3; i++)
        if (raw[i].len == 0) return "wrong-player-count";
    int players = raw[3].len ? 4 : 3, seat[4] = {0, 1, 2, 3}, sorted[4] = {0, 1, 2, 3};
    for (i = 0; i < players; i++) {
        if (!percent_decode(raw[i].s, raw[i].len, &dec[i])) return "bad-name";
        if (!dec[i].p) buf_grow(&dec[i], 1);
    }
    /* a stable insertion sort: equal names keep their seat order (decision equal-names) */
    for (i = 1; i < players; i++)
        for (int j = i; j > 0 && name_cmp(&dec[sorted[j - 1]], &dec[sorted[j]]) > 0; j--) {
            int t = sorted[j];
            sorted[j] = sorted[j - 1], sorted[j - 1] = t;
        }
    char order[5] = "3333"; /* an empty seat is player 3 */
    for (i = 0; i < players; i++) order[sorted[i]] = (char)('0' + i);
    buf_puts(out, "{\"decoded\":");
    put_names(out, dec, seat, players);
    buf_puts(out, ",\"seat_order\":\"");
    buf_puts(out, order);
    buf_puts(out, "\",\"sorted\":");
    put_names(out, dec, sorted, players);
    buf_putc(out, '}');
    return NULL;
}

static void sha512_hex(Buf *out, const void *a, size_t na, const void *b, size_t nb) {
    uint8_t d[64];
    SHA512_CTX c;
    SHA512_Init(&c);
    SHA512_Update(&c, a, na);
    SHA512_Update(&c, b, nb);
    SHA512_Final(d, &c);
    buf_hex(out, d, 64);
}

static const char *c_commitment(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a;
    /* decision seat-order-check, before the seed: four ASCII digits 0-3, each once */
    int seen = 0;
    if (v[0].len != 4) return "bad-seat-order";
    for (int i = 0; i < 4; i++) {
        int d = v[0].s[i] - '0';
        if (d < 0 || d > 3 || (seen >> d & 1)) return "bad-seat-order";
        seen |= 1 << d;
    }
    uint8_t bytes[SEED_BYTES];
    uint32_t words[624];
    const char *err = decode_seed(v[1].s, v[1].len, bytes, words);
    if (err) return err;
    static Buf hex;
    hex.n = 0;
    buf_hex(&hex, bytes, SEED_BYTES);
    size_t skip = 0; /* document-int-hex: hex(int.from_bytes(seed, 'big'))[2:], no leading zeros */
    if (variant == 1)
        while (skip + 1 < hex.n && hex.p[skip] == '0') skip++;
    buf_puts(out, "{\"hash\":\"");
    sha512_hex(out, v[0].s, 4, hex.p + skip, hex.n - skip);
    buf_puts(out, "\",\"source_length\":");
    buf_u64(out, 4 + hex.n - skip);
    buf_putc(out, '}');
    return NULL;
}

/* one hand from the game's generator: the next 288 outputs are src, then rnd and the wall */
static void next_hand(Mt *m, int n, uint32_t rnd[144], int yama[136]) {
    uint32_t src[288];
    uint8_t dig[9][64];
    for (int i = 0; i < 288; i++) src[i] = mt_next(m);
    tenhou_rnd(src, rnd, dig);
    tenhou_shuffle(rnd, n, yama);
}

/* hand k's wall (tenhou.hand_wall): seeded once, hands 0 to k-1 take 288 outputs each */
static const char *hand_wall(const Val *seed, int hand, int n, int yama[136]) {
    static Mt m;
    uint8_t bytes[SEED_BYTES];
    uint32_t words[624], rnd[144];
    const char *err = decode_seed(seed->s, seed->len, bytes, words);
    if (err) return err;
    mt_init_by_array(&m, words, 624);
    for (int i = 0; i < 288 * hand; i++) mt_next(&m);
    next_hand(&m, n, rnd, yama);
    return NULL;
}

static const char *c_hand_wall(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a, (void)variant;
    int yama[136], n = (int)v[2].num == 3 ? 108 : 136;
    const char *err = hand_wall(&v[0], (int)v[1].num, n, yama);
    if (err) return err;
    buf_puts(out, "{\"yama\":");
    put_ints(out, yama, n, 0);
    buf_putc(out, '}');
    return NULL;
}

/* the wall as tile names and tenhou.net/6 codes; draw-order lists yama[n-1] first */
static const char *c_wall_tiles(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a;
    int yama[136], players = (int)v[2].num, n = players == 3 ? 108 : 136, red_rule = v[3].num != 0;
    const char *err = hand_wall(&v[0], (int)v[1].num, n, yama);
    if (err) return err;
    int codes[136];
    buf_puts(out, "{\"tenhou6\":");
    for (int i = 0; i < n; i++) {
        int id = yama[variant == 0 ? n - 1 - i : i], kind = tile_kind(id, players);
        codes[i] = tile_tenhou6(kind, tile_red(id, kind, red_rule));
    }
    put_ints(out, codes, n, 0);
    buf_puts(out, ",\"tiles\":[");
    for (int i = 0; i < n; i++) {
        int id = yama[variant == 0 ? n - 1 - i : i], kind = tile_kind(id, players);
        char name[3];
        tile_name(kind, tile_red(id, kind, red_rule), name);
        buf_puts(out, i ? ",\"" : "\"");
        buf_puts(out, name);
        buf_putc(out, '"');
    }
    buf_puts(out, "]}");
    return NULL;
}

/* the whole game: every dealer checked (decision check-order), then the seed; one generator
 * for the game, each hand (renchan and drawn hands too) takes the next 288 outputs */
static const char *c_game(const Algo *a, int variant, Val *v, Buf *out) {
    (void)a, (void)variant;
    static int yama[100][136], dice[100][2], hands[100][4][13];
    static Mt m;
    uint32_t dealers[100], words[624], rnd[144];
    uint8_t bytes[SEED_BYTES];
    int nh = read_u32s(&v[1], dealers, 100), players = (int)v[2].num, n = players == 3 ? 108 : 136;
    for (int h = 0; h < nh; h++)
        if ((int)dealers[h] >= players) return "bad-dealer";
    const char *err = decode_seed(v[0].s, v[0].len, bytes, words);
    if (err) return err;
    mt_init_by_array(&m, words, 624);
    for (int h = 0; h < nh; h++) {
        next_hand(&m, n, rnd, yama[h]);
        tenhou_dice(rnd, dice[h]);
        deal_haipai(yama[h], n, players, (int)dealers[h], hands[h]);
    }
    buf_puts(out, "{\"dice\":[");
    for (int h = 0; h < nh; h++) {
        if (h) buf_putc(out, ',');
        put_ints(out, dice[h], 2, 0);
    }
    buf_puts(out, "],\"dora_indicators\":[");
    for (int h = 0; h < nh; h++) {
        if (h) buf_putc(out, ',');
        buf_u64(out, (uint64_t)yama[h][5]);
    }
    buf_puts(out, "],\"haipai\":[");
    for (int h = 0; h < nh; h++) {
        if (h) buf_putc(out, ',');
        put_haipai(out, hands[h], players);
    }
    buf_puts(out, "],\"yama\":[");
    for (int h = 0; h < nh; h++) {
        if (h) buf_putc(out, ',');
        put_ints(out, yama[h], n, 0);
    }
    buf_puts(out, "]}");
    return NULL;
}

#define MAXSAFE 9007199254740991.0
/* the fields of an inputs schema, in the order of its properties */
#define F_STR(n) {n, T_STR, 0, 0, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0}
#define F_HEX64(n, err) {n, T_STR, 0, 0, NULL, err, NULL, NULL, 0, NULL, 0, 0, 0}
#define F_INT(n, lo, hi, err) {n, T_INT, lo, hi, err, NULL, NULL, NULL, 0, NULL, 0, 0, 0}
#define F_INT_ENUM(n, list, err) {n, T_INT, 0, 0, err, NULL, list, NULL, 0, NULL, 0, 0, 0}
#define F_STR_ENUM(n, list, err) {n, T_STR, 0, 0, err, NULL, NULL, list, 0, NULL, 0, 0, 0}
#define F_FLOATS(n, maxn, maxn_err, lo, hi, err) {n, T_FLOATS, lo, hi, err, NULL, NULL, NULL, maxn, maxn_err, 0, 0, 0}
/* optional fields (not in the schema's required) with their defaults; arrays of integers and
 * of strings with minItems..maxItems (code nerr) and their items' bounds (code err) */
#define F_OPT_INT(n, lo, hi, err, d) {n, T_INT, lo, hi, err, NULL, NULL, NULL, 0, NULL, 0, 1, d}
#define F_OPT_INT_ENUM(n, list, err, d) {n, T_INT, 0, 0, err, NULL, list, NULL, 0, NULL, 0, 1, d}
#define F_OPT_BOOL(n, d) {n, T_BOOL, 0, 0, NULL, NULL, NULL, NULL, 0, NULL, 0, 1, d}
#define F_INTS(n, minn, maxn, nerr, lo, hi, err) {n, T_INTS, lo, hi, err, NULL, NULL, NULL, maxn, nerr, minn, 0, 0}
#define F_STRS(n, minn, maxn, nerr) {n, T_STRS, 0, 0, NULL, NULL, NULL, NULL, maxn, nerr, minn, 0, 0}
#define F_WORDS(n, count, err) F_INTS(n, count, count, err, 0, 4294967295.0, "word-out-of-range")
#define F_PLAYERS F_OPT_INT_ENUM("players", TENHOU_PLAYERS, "bad-players", 4)
#define F_SEEDS F_STR("server_seed"), F_STR("client_seed"), F_INT("nonce", 0, MAXSAFE, "nonce-out-of-range")
static const int WHEEL_SEGMENTS[] = {10, 20, 30, 40, 50, 0};
static const char *const WHEEL_RISKS[] = {"low", "medium", "high", NULL};
static const int TENHOU_PLAYERS[] = {3, 4, 0};

static const Algo ALGOS[] = {
    {"stake.bytes", 4, {F_SEEDS, F_INT("round", 0, MAXSAFE, "round-out-of-range")}, 0, {NULL}, c_bytes},
    {"stake.floats", 5,
     {F_SEEDS, F_INT("cursor", 0, MAXSAFE, "cursor-out-of-range"), F_INT("count", 1, 256, "count-out-of-range")},
     0, {NULL}, c_floats},
    {"stake.dice", 3, {F_SEEDS}, 2, {"truncate", "round"}, c_dice},
    {"stake.limbo", 3, {F_SEEDS}, 2, {"truncate", "round"}, c_limbo},
    {"stake.crash", 2, {F_HEX64("game_hash", "bad-game-hash"), F_STR("salt")}, 2, {"truncate", "round"},
     c_stake_crash},
    {"stake.mines", 4, {F_SEEDS, F_INT("mines_count", 1, 24, "mines-count-out-of-range")}, 2,
     {"pick-and-remove", "swap-from-end"}, c_mines},
    {"stake.plinko", 4, {F_SEEDS, F_INT("rows", 8, 16, "rows-out-of-range")}, 0, {NULL}, c_plinko},
    {"stake.keno", 3, {F_SEEDS}, 2, {"pick-and-remove", "swap-from-end"}, c_keno},
    {"stake.wheel", 5,
     {F_SEEDS, F_INT_ENUM("segments", WHEEL_SEGMENTS, "segments-out-of-range"),
      F_STR_ENUM("risk", WHEEL_RISKS, "unknown-risk")},
     0, {NULL}, c_wheel},
    {"stake.roulette", 3, {F_SEEDS}, 0, {NULL}, c_roulette},
    {"stake.diamonds", 3, {F_SEEDS}, 0, {NULL}, c_diamonds},
    {"stake.cards", 4, {F_SEEDS, F_INT("count", 1, 52, "count-out-of-range")}, 0, {NULL}, c_cards},
    {"stake.shuffle", 2,
     {F_FLOATS("floats", 1000, "too-many-floats", 0, 1, "float-out-of-range"),
      F_INT("size", 1, 1000, "size-out-of-range")},
     2, {"pick-and-remove", "swap-from-end"}, c_shuffle},
    {"stake.video_poker", 3, {F_SEEDS}, 2, {"pick-and-remove", "swap-from-end"}, c_video_poker},
    {"bustabit.previous_hash", 1, {F_HEX64("game_hash", "bad-hash")}, 2, {"raw-bytes", "hex-text"}, c_previous_hash},
    {"bustabit.crash_v2", 2, {F_HEX64("game_hash", "bad-hash"), F_HEX64("salt", "bad-salt")}, 2,
     {"bustabit", "bcgame"}, c_crash_v2},
    {"bustabit.crash_v2_outcome", 1, {F_HEX64("hmac", "bad-hmac")}, 2, {"bustabit", "bcgame"}, c_crash_v2_outcome},
    {"bustabit.crash_v1", 2, {F_HEX64("game_hash", "bad-hash"), F_HEX64("salt", "bad-salt")}, 2,
     {"bustabit", "roobet"}, c_crash_v1},
    {"bustabit.crash_v1_outcome", 1, {F_HEX64("hmac", "bad-hmac")}, 2, {"bustabit", "roobet"}, c_crash_v1_outcome},
    {"bustabit.chain_check", 4,
     {F_HEX64("game_hash", "bad-hash"), F_HEX64("terminating_hash", "bad-hash"),
      F_INT("terminating_game", 0, 9007199154740991.0, "terminating-game-out-of-range"),
      F_INT("max_steps", 0, 10000000, "max-steps-out-of-range")},
     2, {"raw-bytes", "hex-text"}, c_chain_check},
    {"bustabit.chain_position", 2,
     {F_HEX64("game_hash", "bad-hash"), F_INT("game_number", 1, 20000000, "game-number-out-of-range")}, 0, {NULL},
     c_chain_position},
    {"bustabit.games", 3,
     {F_HEX64("game_hash", "bad-hash"), F_HEX64("salt", "bad-salt"), F_INT("count", 1, 10000, "count-out-of-range")},
     2, {"raw-bytes", "hex-text"}, c_games},
    {"tenhou.mt19937", 3,
     {F_INTS("key", 1, 10000, "key-length-out-of-range", 0, 4294967295.0, "word-out-of-range"),
      F_INT("count", 1, 10000, "count-out-of-range"), F_OPT_INT("skip", 0, 1000000, "skip-out-of-range", 0)},
     0, {NULL}, c_mt19937},
    {"tenhou.seed", 1, {F_STR("shuffle")}, 0, {NULL}, c_seed},
    {"tenhou.rnd", 1, {F_WORDS("src", 288, "wrong-length")}, 0, {NULL}, c_rnd},
    {"tenhou.shuffle", 2, {F_WORDS("rnd", 144, "wrong-length"), F_PLAYERS}, 0, {NULL}, c_tenhou_shuffle},
    {"tenhou.dice", 1, {F_WORDS("rnd", 144, "wrong-length")}, 0, {NULL}, c_tenhou_dice},
    {"tenhou.tile", 3, {F_INT("tile", 0, 135, "tile-out-of-range"), F_PLAYERS, F_OPT_BOOL("red", 1)}, 0, {NULL},
     c_tile},
    {"tenhou.deal", 2,
     {F_INTS("yama", 0, 0, NULL, 0, 135, "bad-wall"), F_INT("dealer", 0, 3, "bad-dealer")}, 0, {NULL}, c_deal},
    {"tenhou.seat_order", 1, {F_STRS("names", 4, 4, "wrong-player-count")}, 0, {NULL}, c_seat_order},
    {"tenhou.commitment", 2, {F_STR("seat_order"), F_STR("seed")}, 2, {"bytes-hex", "document-int-hex"},
     c_commitment},
    {"tenhou.hand_wall", 3, {F_STR("seed"), F_INT("hand", 0, 99, "hand-out-of-range"), F_PLAYERS}, 0, {NULL},
     c_hand_wall},
    {"tenhou.wall_tiles", 4,
     {F_STR("seed"), F_INT("hand", 0, 99, "hand-out-of-range"), F_PLAYERS, F_OPT_BOOL("red", 1)}, 2,
     {"draw-order", "yama-order"}, c_wall_tiles},
    {"tenhou.game", 3,
     {F_STR("seed"), F_INTS("dealers", 1, 100, "hand-count-out-of-range", 0, 3, "bad-dealer"), F_PLAYERS}, 0,
     {NULL}, c_game},
};
#define NALGOS ((int)(sizeof ALGOS / sizeof ALGOS[0]))

/* ------------------------------------------------------------------ the input stream */

typedef struct {
    char seed[512];
    size_t seedlen;
    uint64_t block;
    uint8_t buf[32];
    int pos;
} Stream;

static void stream_init(Stream *s, const char *seed) {
    s->seedlen = strlen(seed); /* at most 400: the caller answers unsupported to a longer one */
    memcpy(s->seed, seed, s->seedlen);
    s->seed[s->seedlen] = ':';
    s->block = 0;
    s->pos = 32;
}
static void stream_take(Stream *s, uint8_t *out, size_t n) {
    while (n) {
        if (s->pos == 32) {
            char num[24]; /* the block number in decimal (snprintf showed in the profile) */
            int k = 24;
            uint64_t b = s->block++;
            do num[--k] = (char)('0' + b % 10), b /= 10;
            while (b);
            memcpy(s->seed + s->seedlen + 1, num + k, (size_t)(24 - k));
            sha256(s->seed, s->seedlen + 1 + (size_t)(24 - k), s->buf);
            s->pos = 0;
        }
        size_t m = (size_t)(32 - s->pos) < n ? (size_t)(32 - s->pos) : n;
        memcpy(out, s->buf + s->pos, m);
        s->pos += (int)m;
        out += m;
        n -= m;
    }
}
static uint64_t below(Stream *s, uint64_t n) {
    uint64_t rem = (UINT64_MAX % n + 1) % n; /* 2^64 mod n */
    for (;;) {
        uint8_t b[8];
        stream_take(s, b, 8);
        uint64_t v = 0;
        for (int i = 0; i < 8; i++) v = v << 8 | b[i];
        if (rem == 0 || v <= UINT64_MAX - rem) return v % n;
    }
}
static int64_t between(Stream *s, int64_t lo, int64_t hi) { return lo + (int64_t)below(s, (uint64_t)(hi - lo) + 1); }

/* Field generators this adapter implements: int, double, hex, base64, text, const, choice (of
 * texts, integers or booleans), concat, list (of any of these but list). Anything else: the
 * vector is answered unsupported. */
static int gen_supported(const cJSON *g, int want_text) {
    if (!cJSON_IsObject(g) || !g->child || g->child->next) return 0;
    const cJSON *a = g->child;
    const char *k = a->string;
    if (!strcmp(k, "int"))
        return !want_text && cJSON_IsArray(a) && cJSON_GetArraySize(a) == 2 && cJSON_IsNumber(a->child) &&
               cJSON_IsNumber(a->child->next);
    if (!strcmp(k, "double"))
        return !want_text && cJSON_IsArray(a) && cJSON_GetArraySize(a) == 2 && cJSON_IsNumber(a->child) &&
               cJSON_IsNumber(a->child->next);
    if (!strcmp(k, "hex")) return cJSON_IsNumber(a) && a->valuedouble >= 0 && a->valuedouble <= 1000;
    if (!strcmp(k, "base64")) return cJSON_IsNumber(a) && a->valuedouble >= 0 && a->valuedouble <= 100000;
    if (!strcmp(k, "list")) {
        const cJSON *of = cJSON_GetObjectItemCaseSensitive(a, "of");
        return !want_text && cJSON_IsObject(of) && of->child && strcmp(of->child->string, "list") != 0 &&
               gen_supported(of, 0) && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(a, "min")) &&
               cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(a, "max"));
    }
    if (!strcmp(k, "text")) {
        const cJSON *al = cJSON_GetObjectItemCaseSensitive(a, "alphabet");
        return cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(a, "min")) &&
               cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(a, "max")) &&
               (!al || (cJSON_IsString(al) && strlen(al->valuestring) <= 1024 && al->valuestring[0]));
    }
    if (!strcmp(k, "const")) return cJSON_IsString(a) || (!want_text && (cJSON_IsNumber(a) || cJSON_IsBool(a)));
    if (!strcmp(k, "choice")) {
        if (!cJSON_IsArray(a) || !a->child) return 0;
        for (const cJSON *c = a->child; c; c = c->next)
            if (!(cJSON_IsString(c) || (!want_text && (cJSON_IsNumber(c) || cJSON_IsBool(c))))) return 0;
        return 1;
    }
    if (!strcmp(k, "concat")) {
        if (!cJSON_IsArray(a)) return 0;
        for (const cJSON *c = a->child; c; c = c->next)
            if (!gen_supported(c, 1)) return 0;
        return 1;
    }
    return 0;
}

static uint32_t utf8_next(const char **p) {
    const unsigned char *s = (const unsigned char *)*p;
    uint32_t c = s[0];
    int n = 1;
    if (c >= 0xF0) c = (c & 7) << 18 | (uint32_t)(s[1] & 63) << 12 | (uint32_t)(s[2] & 63) << 6 | (s[3] & 63), n = 4;
    else if (c >= 0xE0) c = (c & 15) << 12 | (uint32_t)(s[1] & 63) << 6 | (s[2] & 63), n = 3;
    else if (c >= 0xC0) c = (c & 31) << 6 | (s[1] & 63), n = 2;
    *p += n;
    return c;
}

/* base64: n bytes of the stream, standard alphabet, "=" padding */
static void gen_base64(Stream *s, size_t n, Buf *out) {
    static uint8_t b[100002]; /* gen_supported: n <= 100,000 */
    stream_take(s, b, n);
    b[n] = b[n + 1] = 0;
    buf_grow(out, (n + 2) / 3 * 4);
    char *q = out->p + out->n;
    for (size_t i = 0; i < n; i += 3, q += 4) {
        q[0] = B64[b[i] >> 2], q[1] = B64[(b[i] & 3) << 4 | b[i + 1] >> 4];
        q[2] = i + 1 < n ? B64[(b[i + 1] & 15) << 2 | b[i + 2] >> 6] : '=';
        q[3] = i + 2 < n ? B64[b[i + 2] & 63] : '=';
    }
    out->n = (size_t)(q - out->p);
    out->p[out->n] = 0;
}

static void gen_draw(Stream *s, const cJSON *g, Val *v);

/* list: the length, then each item, into a cJSON array the case owns */
static void gen_list(Stream *s, const cJSON *a, Val *v) {
    static Val item;
    const cJSON *of = cJSON_GetObjectItemCaseSensitive(a, "of");
    int64_t len = between(s, (int64_t)cJSON_GetObjectItemCaseSensitive(a, "min")->valuedouble,
                          (int64_t)cJSON_GetObjectItemCaseSensitive(a, "max")->valuedouble);
    cJSON *arr = cJSON_CreateArray();
    for (int64_t i = 0; i < len; i++) {
        item.own.n = 0;
        gen_draw(s, of, &item);
        if (item.kind == K_STR) {
            buf_grow(&item.own, 0);
            cJSON_AddItemToArray(arr, cJSON_CreateString(item.own.p));
        } else if (item.kind == K_BOOL) {
            cJSON_AddItemToArray(arr, cJSON_CreateBool(item.num != 0));
        } else {
            cJSON_AddItemToArray(arr, cJSON_CreateNumber(item.num));
        }
    }
    v->kind = K_ARR;
    v->arr = v->owned = arr;
}

/* draws one value into v (its text appended to v->own when it is a text) */
static void gen_draw(Stream *s, const cJSON *g, Val *v) {
    const cJSON *a = g->child;
    const char *k = a->string;
    if (!strcmp(k, "int")) {
        v->kind = K_NUM;
        v->num = (double)between(s, (int64_t)a->child->valuedouble, (int64_t)a->child->next->valuedouble);
    } else if (!strcmp(k, "double")) {
        /* lo + (hi - lo) * k / 2^53, k the top 53 bits of 8 bytes read big-endian: each
         * operation a double, in this order (docs/accumulated.md) */
        uint8_t b[8];
        stream_take(s, b, 8);
        uint64_t w = 0;
        for (int i = 0; i < 8; i++) w = w << 8 | b[i];
        double lo = a->child->valuedouble, hi = a->child->next->valuedouble;
        double step = (double)(w >> 11) / 9007199254740992.0;
        v->kind = K_NUM;
        v->num = lo + (hi - lo) * step;
    } else if (!strcmp(k, "hex")) {
        int d = (int)a->valuedouble;
        uint8_t b[512];
        size_t nb = (size_t)(d + 1) / 2;
        stream_take(s, b, nb);
        size_t at = v->own.n;
        buf_hex(&v->own, b, nb);
        v->own.n = at + (size_t)d;
        v->kind = K_STR;
    } else if (!strcmp(k, "base64")) {
        gen_base64(s, (size_t)a->valuedouble, &v->own);
        v->kind = K_STR;
    } else if (!strcmp(k, "list")) {
        gen_list(s, a, v);
    } else if (!strcmp(k, "text")) {
        int64_t len = between(s, (int64_t)cJSON_GetObjectItemCaseSensitive(a, "min")->valuedouble,
                              (int64_t)cJSON_GetObjectItemCaseSensitive(a, "max")->valuedouble);
        const cJSON *al = cJSON_GetObjectItemCaseSensitive(a, "alphabet");
        if (!al || !strcmp(al->valuestring, "unicode")) {
            for (int64_t i = 0; i < len; i++) {
                uint32_t c = (uint32_t)below(s, 0x110000 - 2048);
                utf8_put(&v->own, c >= 0xD800 ? c + 2048 : c);
            }
        } else {
            uint32_t cps[1024];
            uint64_t ncp = 0;
            for (const char *p = al->valuestring; *p && ncp < 1024;) cps[ncp++] = utf8_next(&p);
            for (int64_t i = 0; i < len; i++) utf8_put(&v->own, cps[below(s, ncp)]);
        }
        v->kind = K_STR;
    } else if (!strcmp(k, "const") || !strcmp(k, "choice")) {
        const cJSON *c = a;
        if (!strcmp(k, "choice")) {
            uint64_t i = below(s, (uint64_t)cJSON_GetArraySize(a));
            c = a->child;
            while (i--) c = c->next;
        }
        if (cJSON_IsString(c)) {
            buf_puts(&v->own, c->valuestring);
            v->kind = K_STR;
        } else if (cJSON_IsBool(c)) {
            v->kind = K_BOOL;
            v->num = cJSON_IsTrue(c);
        } else {
            v->kind = K_NUM;
            v->num = c->valuedouble;
        }
    } else { /* concat */
        for (const cJSON *c = a->child; c; c = c->next) gen_draw(s, c, v);
        v->kind = K_STR;
    }
}

/* ------------------------------------------------------------------ the loop */

static Buf g_out;  /* the response line being built */
static Buf g_body; /* an output object */
static Val g_vals[MAXF + 1];

static void emit(Buf *b) { fwrite(b->p, 1, b->n, stdout); }

static void answer_unsupported(const char *id, const char *reason) {
    g_out.n = 0;
    buf_puts(&g_out, "{\"id\":");
    buf_jstr(&g_out, id, strlen(id));
    buf_puts(&g_out, ",\"unsupported\":true,\"reason\":");
    buf_jstr(&g_out, reason, strlen(reason));
    buf_puts(&g_out, "}\n");
    emit(&g_out);
}

/* FAIRVEC_C_ADAPTER_WRONG_CASE=N: case N of every accumulated vector is computed wrong (an
 * error in place of its output), in a stream and when it is asked for alone (its id ends in
 * "#N"): a port with one real bug, for the tests (tests/test_c_adapter.py). */
static long long wrong_case(void) {
    static long long chosen = -2;
    if (chosen == -2) {
        const char *text = getenv("FAIRVEC_C_ADAPTER_WRONG_CASE");
        chosen = text && *text ? atoll(text) : -1;
    }
    return chosen;
}

static int is_wrong_case_id(const char *id) {
    const char *hash = strrchr(id, '#');
    return wrong_case() >= 0 && hash && hash[1] && atoll(hash + 1) == wrong_case();
}

static void accumulate(const char *id, const Algo *a, int variant, const cJSON *acc) {
    const cJSON *stream = cJSON_GetObjectItemCaseSensitive(acc, "stream");
    const cJSON *seed = cJSON_GetObjectItemCaseSensitive(stream, "seed");
    const cJSON *input = cJSON_GetObjectItemCaseSensitive(stream, "input");
    const cJSON *enc = cJSON_GetObjectItemCaseSensitive(acc, "encoding");
    const cJSON *count = cJSON_GetObjectItemCaseSensitive(acc, "count");
    const cJSON *block = cJSON_GetObjectItemCaseSensitive(acc, "block");
    if (!cJSON_IsString(seed) || !cJSON_IsObject(input) || !cJSON_IsString(enc) ||
        strcmp(enc->valuestring, "fairvec-accumulated/1") != 0 || !cJSON_IsNumber(count) || !cJSON_IsNumber(block) ||
        block->valuedouble < 1 || count->valuedouble < 0 || strlen(seed->valuestring) > 400) {
        answer_unsupported(id, "an accumulate request this adapter does not read");
        return;
    }
    int nin = 0;
    for (const cJSON *g = input->child; g; g = g->next, nin++)
        if (!gen_supported(g, 0)) {
            answer_unsupported(id, "a field generator this adapter does not implement");
            return;
        }
    /* where each drawn field goes: its schema slot, or the scratch slot (an unknown field) */
    int slot[64];
    int unknown = 0;
    if (nin > 64) {
        answer_unsupported(id, "too many fields");
        return;
    }
    {
        int i = 0;
        for (const cJSON *g = input->child; g; g = g->next, i++) {
            slot[i] = field_index(a, g->string);
            if (slot[i] < 0) slot[i] = MAXF, unknown = 1;
        }
    }
    uint64_t n = (uint64_t)count->valuedouble, bl = (uint64_t)block->valuedouble;
    Stream s;
    stream_init(&s, seed->valuestring);
    SHA256_CTX ctx;
    SHA256_Init(&ctx);
    Buf cps = {0}, rec = {0};
    char hexd[65];
    for (uint64_t i = 0; i < n; i++) {
        for (int f = 0; f <= MAXF; f++) {
            g_vals[f].kind = K_MISSING, g_vals[f].own.n = 0, g_vals[f].lone = 0;
            if (g_vals[f].owned) cJSON_Delete(g_vals[f].owned), g_vals[f].owned = NULL;
        }
        int j = 0;
        for (const cJSON *g = input->child; g; g = g->next, j++) {
            Val *v = &g_vals[slot[j]];
            v->own.n = 0;
            gen_draw(&s, g, v);
            if (v->kind == K_STR) v->s = v->own.p ? v->own.p : "", v->len = v->own.n;
        }
        const char *err = unknown ? "unknown-field" : check_vals(a, g_vals);
        rec.n = 0;
        if (!err) {
            buf_puts(&rec, "{\"output\":");
            err = a->compute(a, variant, g_vals, &rec);
        }
        if ((long long)i == wrong_case()) err = "wrong-on-purpose";
        if (err) {
            rec.n = 0;
            buf_puts(&rec, "{\"error\":");
            buf_jstr(&rec, err, strlen(err));
        }
        buf_puts(&rec, "}\n");
        SHA256_Update(&ctx, rec.p, rec.n);
        if ((i + 1) % bl == 0 || i + 1 == n) {
            SHA256_CTX c2 = ctx;
            uint8_t d[32];
            SHA256_Final(d, &c2);
            for (int b = 0; b < 32; b++) hexd[2 * b] = HEX[d[b] >> 4], hexd[2 * b + 1] = HEX[d[b] & 15];
            hexd[64] = 0;
            buf_puts(&cps, cps.n ? ",\"" : "\"");
            buf_puts(&cps, hexd);
            buf_putc(&cps, '"');
            if (i + 1 < n) { /* a progress line, as each block ends */
                g_out.n = 0;
                buf_puts(&g_out, "{\"id\":");
                buf_jstr(&g_out, id, strlen(id));
                char t[64];
                snprintf(t, sizeof t, ",\"checkpoint\":{\"block\":%llu,\"digest\":\"", (unsigned long long)((i + 1) / bl));
                buf_puts(&g_out, t);
                buf_puts(&g_out, hexd);
                buf_puts(&g_out, "\"}}\n");
                emit(&g_out);
                fflush(stdout);
            }
        }
    }
    if (n == 0) { /* the digest of no records */
        uint8_t d[32];
        SHA256_Final(d, &ctx);
        for (int b = 0; b < 32; b++) hexd[2 * b] = HEX[d[b] >> 4], hexd[2 * b + 1] = HEX[d[b] & 15];
        hexd[64] = 0;
    }
    g_out.n = 0;
    buf_puts(&g_out, "{\"id\":");
    buf_jstr(&g_out, id, strlen(id));
    buf_puts(&g_out, ",\"accumulated\":{\"count\":");
    buf_u64(&g_out, n);
    buf_puts(&g_out, ",\"digest\":\"");
    buf_puts(&g_out, hexd);
    buf_puts(&g_out, "\",\"checkpoints\":[");
    if (cps.n) buf_put(&g_out, cps.p, cps.n);
    buf_puts(&g_out, "]}}\n");
    emit(&g_out);
    free(cps.p);
    free(rec.p);
}

/* cJSON ends a string at its first U+0000 (it keeps no length), so a request string holding
 * the escape \u0000 is rewritten, before parsing, in the marked form the runner uses for lone
 * surrogates (U+FFFF, then the UTF-16 code units in hex), which take_string reads with its
 * length. Requests are ASCII (docs/adapter-protocol.md), so a string's code units are its
 * characters and escapes. Returns 0 when the line holds no such string. */
static int premark_nul(const char *line, size_t len, Buf *out) {
    if (!memmem(line, len, "\\u0000", 6)) return 0;
    out->n = 0;
    size_t i = 0;
    while (i < len) {
        if (line[i] != '"') {
            buf_putc(out, line[i++]);
            continue;
        }
        size_t j = i + 1;
        int nul = 0;
        uint32_t units[4096];
        size_t nu = 0;
        while (j < len && line[j] != '"') {
            uint32_t u;
            if (line[j] == '\\' && j + 1 < len) {
                char e = line[j + 1];
                j += 2;
                switch (e) {
                case 'b': u = 8; break;
                case 't': u = 9; break;
                case 'n': u = 10; break;
                case 'f': u = 12; break;
                case 'r': u = 13; break;
                case 'u':
                    u = 0;
                    for (int k = 0; k < 4 && j < len; k++, j++) {
                        int c = line[j], h = c >= 'A' && c <= 'F' ? c - 'A' + 10 : hexval(c);
                        u = u << 4 | (uint32_t)(h < 0 ? 0 : h);
                    }
                    break;
                default: u = (unsigned char)e; /* \" \\ \/ */
                }
            } else {
                u = (unsigned char)line[j++];
            }
            if (u == 0) nul = 1;
            if (nu < 4096) units[nu++] = u;
        }
        if (!nul || nu == 4096) {
            buf_put(out, line + i, j + 1 - i);
        } else {
            buf_puts(out, "\"\\uffff");
            for (size_t k = 0; k < nu; k++) {
                char h[5] = {HEX[units[k] >> 12 & 15], HEX[units[k] >> 8 & 15], HEX[units[k] >> 4 & 15],
                             HEX[units[k] & 15], 0};
                buf_puts(out, h);
            }
            buf_putc(out, '"');
        }
        i = j + 1;
    }
    return 1;
}

static Buf g_line;

static void handle(const char *line, size_t len) {
    if (premark_nul(line, len, &g_line)) line = g_line.p, len = g_line.n;
    cJSON *req = cJSON_ParseWithLength(line, len);
    if (!req) {
        fprintf(stderr, "a request that is not JSON: %.120s\n", line);
        return;
    }
    const cJSON *jid = cJSON_GetObjectItemCaseSensitive(req, "id");
    const cJSON *jalg = cJSON_GetObjectItemCaseSensitive(req, "algorithm");
    const cJSON *jvar = cJSON_GetObjectItemCaseSensitive(req, "variant");
    const char *id = cJSON_IsString(jid) ? jid->valuestring : "";
    const Algo *a = NULL;
    if (cJSON_IsString(jalg))
        for (int i = 0; i < NALGOS; i++)
            if (!strcmp(ALGOS[i].id, jalg->valuestring)) a = &ALGOS[i];
    if (!a) {
        answer_unsupported(id, "not implemented by this adapter");
        cJSON_Delete(req);
        return;
    }
    int variant = 0;
    if (a->nvar) {
        variant = -1;
        if (cJSON_IsString(jvar))
            for (int i = 0; i < a->nvar; i++)
                if (!strcmp(a->var[i], jvar->valuestring)) variant = i;
    } else if (jvar && !cJSON_IsNull(jvar)) {
        variant = -1;
    }
    if (variant < 0) {
        answer_unsupported(id, "a variant this adapter does not implement");
        cJSON_Delete(req);
        return;
    }
    const cJSON *acc = cJSON_GetObjectItemCaseSensitive(req, "accumulate");
    if (acc) {
        accumulate(id, a, variant, acc);
        cJSON_Delete(req);
        return;
    }
    const char *err = read_input(a, cJSON_GetObjectItemCaseSensitive(req, "input"), g_vals);
    g_body.n = 0;
    if (!err) err = a->compute(a, variant, g_vals, &g_body);
    if (is_wrong_case_id(id)) err = "wrong-on-purpose";
    g_out.n = 0;
    buf_puts(&g_out, "{\"id\":");
    buf_jstr(&g_out, id, strlen(id));
    if (err) {
        buf_puts(&g_out, ",\"error\":{\"code\":");
        buf_jstr(&g_out, err, strlen(err));
        buf_puts(&g_out, "}}\n");
    } else {
        buf_puts(&g_out, ",\"output\":");
        buf_put(&g_out, g_body.p, g_body.n);
        buf_puts(&g_out, "}\n");
    }
    emit(&g_out);
    cJSON_Delete(req);
}

static void note_first_request(void) {
    const char *path = getenv("FAIRVEC_C_ADAPTER_FIRST_REQUEST");
    if (!path || !*path) return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    FILE *f = fopen(path, "a"); /* appended: -j 2 starts two adapters */
    if (!f) return;
    fprintf(f, "%lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
    fclose(f);
}

int main(void) {
    static char obuf[1 << 16];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    fputs("{\"type\":\"hello\",\"protocol\":1,\"name\":\"fairvec-c-benchmark-adapter\",\"version\":\"1\","
          "\"algorithms\":{\"stake.bytes\":[],\"stake.floats\":[],\"stake.dice\":[\"truncate\",\"round\"],"
          "\"stake.limbo\":[\"truncate\",\"round\"],\"stake.crash\":[\"truncate\",\"round\"],"
          "\"stake.mines\":[\"pick-and-remove\",\"swap-from-end\"],\"stake.plinko\":[],"
          "\"stake.keno\":[\"pick-and-remove\",\"swap-from-end\"],\"stake.wheel\":[],\"stake.roulette\":[],"
          "\"stake.diamonds\":[],\"stake.cards\":[],\"stake.shuffle\":[\"pick-and-remove\",\"swap-from-end\"],"
          "\"stake.video_poker\":[\"pick-and-remove\",\"swap-from-end\"],"
          "\"bustabit.previous_hash\":[\"raw-bytes\",\"hex-text\"],\"bustabit.crash_v2\":[\"bustabit\",\"bcgame\"],"
          "\"bustabit.crash_v2_outcome\":[\"bustabit\",\"bcgame\"],\"bustabit.crash_v1\":[\"bustabit\",\"roobet\"],"
          "\"bustabit.crash_v1_outcome\":[\"bustabit\",\"roobet\"],"
          "\"bustabit.chain_check\":[\"raw-bytes\",\"hex-text\"],\"bustabit.chain_position\":[],"
          "\"bustabit.games\":[\"raw-bytes\",\"hex-text\"],"
          "\"tenhou.mt19937\":[],\"tenhou.seed\":[],\"tenhou.rnd\":[],\"tenhou.shuffle\":[],\"tenhou.dice\":[],"
          "\"tenhou.tile\":[],\"tenhou.deal\":[],\"tenhou.seat_order\":[],"
          "\"tenhou.commitment\":[\"bytes-hex\",\"document-int-hex\"],\"tenhou.hand_wall\":[],"
          "\"tenhou.wall_tiles\":[\"draw-order\",\"yama-order\"],\"tenhou.game\":[]},"
          "\"lone_surrogates\":\"marked\",\"accumulate\":true}\n",
          stdout);
    fflush(stdout);
    /* Read whole chunks; answer every complete line in them; flush only before blocking
     * for more input, so a window of requests costs one write, and nothing waits unflushed. */
    size_t cap = 1 << 16, start = 0, end = 0;
    char *in = malloc(cap);
    int first = 1;
    for (;;) {
        char *nl = memchr(in + start, '\n', end - start);
        if (nl) {
            if (first) note_first_request(), first = 0;
            *nl = 0;
            size_t len = (size_t)(nl - (in + start));
            if (len) handle(in + start, len);
            start = (size_t)(nl - in) + 1;
            continue;
        }
        fflush(stdout);
        if (start) {
            memmove(in, in + start, end - start);
            end -= start;
            start = 0;
        }
        if (end + 4096 > cap) {
            cap *= 2;
            in = realloc(in, cap);
            if (!in) return 70;
        }
        ssize_t r = read(0, in + end, cap - end - 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            if (end > start) { /* a last line without its newline */
                in[end] = 0;
                if (first) note_first_request();
                handle(in + start, end - start);
                fflush(stdout);
            }
            return 0;
        }
        end += (size_t)r;
    }
}
