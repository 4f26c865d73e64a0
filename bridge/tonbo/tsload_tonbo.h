/* tsload_tonbo.h: the C ABI of bridge/tonbo (libtsload_tonbo.a), written by
 * hand from src/lib.rs. Every call but tt_version and tt_free returns 0 on
 * success and 1 on an error, with *err set to a message the caller frees
 * with tt_free (a panic inside tonbo comes back the same way). */
#ifndef TSLOAD_TONBO_H
#define TSLOAD_TONBO_H

#include <stddef.h>
#include <stdint.h>

typedef struct tt_handle tt_handle;

/* The tonbo release linked in and the bridge's ABI, "... abi 3)" (a static string). */
const char *tt_version(void);

/* Frees a message the bridge returned. */
void tt_free(char *p);

/* Opens (creating when missing) the table in dir with the columns of spec,
 * one "<kind> <name>" a line, kind one of i (Int64), f (a double as its
 * bits), s (String), b (Boolean), after the bridge's own "_key" and "time";
 * wal 0 turns tonbo's write-ahead log off. */
int tt_open(const char *dir, const char *spec, int wal, tt_handle **out, char **err);

/* Writes rows rows from buf (little-endian: per row the key as u32 length
 * and bytes, the time as i64, then per column a presence byte and the
 * value) in mode 0 (each row alone, no transaction), 1 (one transaction
 * for the call) or 2 (one write batch, insert_batch). */
int tt_write(tt_handle *h, int mode, const uint8_t *buf, size_t len, size_t rows, char **err);

/* Scans every live row: rows, time range, distinct series (the key less
 * its last 16 bytes), and per column the non-NULL count, the exact integer
 * sum (isum_hi:isum_lo, two's complement; string byte lengths, true
 * booleans), the double sum and the sum of magnitudes, and the smallest
 * and largest value of integer (imin, imax) and double (fmin, fmax)
 * columns (left as they are for a column without values). */
int tt_scan(tt_handle *h, int64_t *rows, int64_t *tmin, int64_t *tmax, int64_t *series,
            int64_t *counts, int64_t *isum_hi, uint64_t *isum_lo, double *fsums, double *fabs,
            int64_t *imin, int64_t *imax, double *fmin, double *fmax, char **err);

/* Flushes the WAL and the memtables to files and frees the handle (also
 * on an error). */
int tt_close(tt_handle *h, char **err);

#endif
