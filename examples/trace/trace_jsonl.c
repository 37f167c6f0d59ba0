/*
 * Trace events as JSON Lines (trace_view.h): one flat object per event, written with stdio and
 * read back with cJSON, so a host in any language can save its events for `cuzk trace`.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace_view.h"

#define EXACT_MAX 9007199254740992.0 /* 2^53: larger integers do not survive a double */

int tv_write_jsonl(const char *path, const tv_log *l)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    for (size_t i = 0; i < l->n; i++) {
        const cuzk_trace_event *e = &l->ev[i];
        const uint64_t u[5] = {e->job, e->user_tag, e->begin_ns, e->end_ns, e->bytes};
        static const char *names[5] = {"job", "user_tag", "begin_ns", "end_ns", "bytes"};
        fprintf(f, "{\"kind\":%d,\"name\":\"%s\",\"device\":%d,\"worker\":%d", (int)e->kind, tv_kind_name(e->kind),
                (int)e->device, (int)e->worker);
        for (int k = 0; k < 5; k++) /* above 2^53 as a string, which every JSON reader keeps exact */
            fprintf(f, (double)u[k] < EXACT_MAX ? ",\"%s\":%llu" : ",\"%s\":\"%llu\"", names[k],
                    (unsigned long long)u[k]);
        fprintf(f, "}\n");
    }
    return fclose(f);
}

/* An integer field: a number (exact up to 2^53) or a decimal string. */
static int get_int(const cJSON *o, const char *name, int is_signed, uint64_t *out, const char **why)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, name);
    *out = 0;
    if (!it) return 0; /* absent: 0 */
    if (cJSON_IsNumber(it)) {
        double d = it->valuedouble;
        if (d >= EXACT_MAX || d <= -EXACT_MAX || d != (double)(int64_t)d || (!is_signed && d < 0)) {
            *why = "is not an integer that a double holds exactly (write it as a string)";
            return -1;
        }
        *out = (uint64_t)(int64_t)d;
        return 0;
    }
    if (cJSON_IsString(it) && it->valuestring[0]) {
        char *end;
        errno = 0;
        *out = is_signed ? (uint64_t)strtoll(it->valuestring, &end, 10) : strtoull(it->valuestring, &end, 10);
        if (!*end && !errno && (is_signed || it->valuestring[0] != '-')) return 0;
    }
    *why = "is neither an integer nor a decimal string";
    return -1;
}

/* kind, device, worker: int32 */
static int get_i32(const cJSON *o, const char *name, uint64_t *out, const char **why)
{
    if (get_int(o, name, 1, out, why)) return -1;
    if ((int64_t)*out >= INT32_MIN && (int64_t)*out <= INT32_MAX) return 0;
    *why = "is outside the 32-bit range";
    return -1;
}

int tv_read_jsonl(const char *path, tv_log *l, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return CUZK_EIO;
    }
    char *line = NULL;
    size_t cap = 0;
    long no = 0;
    int rc = 0;
    while (getline(&line, &cap, f) > 0) {
        no++;
        if (strspn(line, " \t\r\n") == strlen(line)) continue;
        cJSON *o = cJSON_Parse(line);
        if (!cJSON_IsObject(o)) {
            snprintf(err, errlen, "%s:%ld: not a JSON object", path, no);
            cJSON_Delete(o);
            rc = CUZK_EFORMAT;
            break;
        }
        static const struct { const char *name; int is_signed; } fields[8] = {
            {"kind", 1}, {"device", 1}, {"worker", 1}, {"job", 0},
            {"user_tag", 0}, {"begin_ns", 0}, {"end_ns", 0}, {"bytes", 0}};
        uint64_t v[8];
        const char *why = NULL;
        for (int k = 0; k < 8 && !rc; k++)
            if (fields[k].is_signed ? get_i32(o, fields[k].name, &v[k], &why)
                                    : get_int(o, fields[k].name, 0, &v[k], &why)) {
                snprintf(err, errlen, "%s:%ld: \"%s\" %s", path, no, fields[k].name, why);
                rc = CUZK_EFORMAT;
            }
        if (!rc && (!cJSON_GetObjectItemCaseSensitive(o, "kind") || v[6] < v[5])) {
            snprintf(err, errlen, "%s:%ld: %s", path, no, v[6] < v[5] ? "end_ns is before begin_ns" : "no \"kind\"");
            rc = CUZK_EFORMAT;
        }
        cJSON_Delete(o);
        if (rc) break;
        cuzk_trace_event e = {.struct_size = sizeof e, .kind = (int32_t)v[0], .device = (int32_t)v[1],
                              .worker = (int32_t)v[2], .job = v[3], .user_tag = v[4], .begin_ns = v[5],
                              .end_ns = v[6], .bytes = v[7]};
        size_t before = l->n;
        tv_collect(&e, l);
        if (l->n == before) {
            snprintf(err, errlen, "%s:%ld: out of memory", path, no);
            rc = CUZK_ENOMEM;
            break;
        }
    }
    /* getline's end and its failure look alike: a directory (EISDIR, which fopen accepted) or a
     * read error would otherwise pass as a file of no events */
    if (!rc && ferror(f)) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        rc = CUZK_EIO;
    }
    free(line);
    fclose(f);
    return rc;
}
