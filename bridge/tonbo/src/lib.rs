//! A C ABI over tonbo (an embedded LSM store over Arrow and Parquet), for
//! tsload's load_tonbo (pkg/target/tonbo, through cgo).
//!
//! One handle is one tonbo database (one table) in one directory, with a
//! runtime schema: a string key (the series and time, unique per row), the
//! time as Int64 nanoseconds, then the table's tags and fields, all nullable.
//! tonbo 0.3's runtime schemas have no floating-point type, so a double is
//! stored as the UInt64 of its IEEE-754 bits (exact, and summed back as a
//! double by `tt_scan`).
//!
//! Rows cross the boundary as one little-endian buffer (see `decode_rows`):
//! cheaper than a call per value and simpler than Arrow IPC for rows that
//! tonbo turns into records one at a time anyway. Errors cross as a status
//! (0 ok, 1 error) and a message the caller frees with `tt_free`; a panic
//! inside tonbo is caught and returned the same way, never unwound into Go.

use std::{
    collections::HashMap,
    hash::{Hash, Hasher},
    ffi::{c_char, c_int, CStr, CString},
    ops::Bound,
    panic::{catch_unwind, AssertUnwindSafe},
    sync::Arc,
};

use fusio::path::Path;
use futures_util::StreamExt;
use tokio::runtime::Runtime;
use tonbo::{
    executor::tokio::TokioExecutor,
    record::{DataType, DynRecord, DynSchema, Value, ValueDesc},
    DbOption, DB,
};

/// The bytes at the end of a key that are its time (16 hex digits); the
/// rest of the key is the series (the caller's encoding of the tags).
const KEY_TIME: usize = 16;

/// The tonbo release linked in, for the results' server version, and the
/// bridge's ABI (the Go side refuses another: a stale archive in the
/// shared build cache must not be called with the wrong arguments).
const TONBO_VERSION: &str = "tonbo 0.3.2 (embedded, through tsload's C bridge, abi 3)\0";

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Int,    // 'i': Int64
    Float,  // 'f': a double as the UInt64 of its bits
    Str,    // 's': String
    Bool,   // 'b': Boolean
}

struct Column {
    name: String,
    kind: Kind,
}

pub struct Handle {
    rt: Runtime,
    db: DB<DynRecord, TokioExecutor>,
    cols: Vec<Column>, // after the key and the time
}

fn desc(kind: Kind) -> DataType {
    match kind {
        Kind::Int => DataType::Int64,
        Kind::Float => DataType::UInt64,
        Kind::Str => DataType::String,
        Kind::Bool => DataType::Boolean,
    }
}

/// parse_spec reads one column a line, "<kind> <name>", kind one of i f s b.
fn parse_spec(spec: &str) -> Result<Vec<Column>, String> {
    let mut cols = Vec::new();
    for line in spec.lines().filter(|l| !l.is_empty()) {
        let (k, name) = line
            .split_once(' ')
            .ok_or_else(|| format!("column spec {line:?}: want '<kind> <name>'"))?;
        let kind = match k {
            "i" => Kind::Int,
            "f" => Kind::Float,
            "s" => Kind::Str,
            "b" => Kind::Bool,
            _ => return Err(format!("column spec {line:?}: unknown kind {k:?}")),
        };
        if name == "_key" || name == "time" {
            return Err(format!("column spec {line:?}: {name:?} is the bridge's own column"));
        }
        cols.push(Column { name: name.to_string(), kind });
    }
    Ok(cols)
}

fn schema(cols: &[Column]) -> DynSchema {
    let mut descs = vec![
        ValueDesc::new("_key".into(), DataType::String, false),
        ValueDesc::new("time".into(), DataType::Int64, false),
    ];
    descs.extend(cols.iter().map(|c| ValueDesc::new(c.name.clone(), desc(c.kind), true)));
    DynSchema::new(descs, 0)
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.b.len() - self.at < n {
            return Err(format!("row buffer ends at byte {} (wanted {n} more)", self.at));
        }
        let s = &self.b[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    fn string(&mut self) -> Result<String, String> {
        let n = u32::from_le_bytes(self.take(4)?.try_into().unwrap()) as usize;
        let s = self.take(n)?;
        String::from_utf8(s.to_vec()).map_err(|_| format!("a string before byte {} is not UTF-8", self.at))
    }
}

/// decode_rows reads `rows` rows: each the key (u32 length, bytes), the time
/// (i64), then per column a presence byte (0 NULL, 1 a value) and the value:
/// i64 for 'i', the u64 bits for 'f', u32 length and bytes for 's', a byte
/// for 'b'. All little-endian.
fn decode_rows(cols: &[Column], buf: &[u8], rows: usize) -> Result<Vec<DynRecord>, String> {
    let mut r = Reader { b: buf, at: 0 };
    let mut out = Vec::with_capacity(rows);
    for _ in 0..rows {
        let mut values = Vec::with_capacity(cols.len() + 2);
        values.push(Value::new(DataType::String, "_key".into(), Arc::new(r.string()?), false));
        values.push(Value::new(DataType::Int64, "time".into(), Arc::new(r.u64()? as i64), false));
        for c in cols {
            let present = r.u8()? != 0;
            let v: Arc<dyn std::any::Any + Send + Sync> = match (c.kind, present) {
                (Kind::Int, true) => Arc::new(Some(r.u64()? as i64)),
                (Kind::Int, false) => Arc::new(None::<i64>),
                (Kind::Float, true) => Arc::new(Some(r.u64()?)),
                (Kind::Float, false) => Arc::new(None::<u64>),
                (Kind::Str, true) => Arc::new(Some(r.string()?)),
                (Kind::Str, false) => Arc::new(None::<String>),
                (Kind::Bool, true) => Arc::new(Some(r.u8()? != 0)),
                (Kind::Bool, false) => Arc::new(None::<bool>),
            };
            values.push(Value::new(desc(c.kind), c.name.clone(), v, true));
        }
        out.push(DynRecord::new(values, 0));
    }
    if r.at != buf.len() {
        return Err(format!("{} bytes left after {rows} rows", buf.len() - r.at));
    }
    Ok(out)
}

/// guard runs f, turning an error or a panic into status 1 and a message.
fn guard(err: *mut *mut c_char, f: impl FnOnce() -> Result<(), String>) -> c_int {
    let res = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => Err(match p.downcast_ref::<&str>() {
            Some(s) => format!("tonbo panicked: {s}"),
            None => match p.downcast_ref::<String>() {
                Some(s) => format!("tonbo panicked: {s}"),
                None => "tonbo panicked".to_string(),
            },
        }),
    };
    match res {
        Ok(()) => 0,
        Err(msg) => {
            if !err.is_null() {
                let msg = CString::new(msg.replace('\0', " ")).unwrap();
                unsafe { *err = msg.into_raw() };
            }
            1
        }
    }
}

unsafe fn text(p: *const c_char) -> Result<String, String> {
    if p.is_null() {
        return Err("a NULL string".into());
    }
    CStr::from_ptr(p).to_str().map(str::to_string).map_err(|_| "a string is not UTF-8".into())
}

/// tt_version is the tonbo release linked in (a static string).
#[no_mangle]
pub extern "C" fn tt_version() -> *const c_char {
    TONBO_VERSION.as_ptr() as *const c_char
}

/// tt_free frees a message the bridge returned.
#[no_mangle]
pub unsafe extern "C" fn tt_free(p: *mut c_char) {
    if !p.is_null() {
        drop(CString::from_raw(p));
    }
}

/// tt_open opens (creating when missing) the database in dir with the
/// columns of spec; wal 0 disables tonbo's write-ahead log. The handle is
/// written to *out.
#[no_mangle]
pub unsafe extern "C" fn tt_open(
    dir: *const c_char,
    spec: *const c_char,
    wal: c_int,
    out: *mut *mut Handle,
    err: *mut *mut c_char,
) -> c_int {
    guard(err, || {
        let dir = text(dir)?;
        let cols = parse_spec(&text(spec)?)?;
        std::fs::create_dir_all(&dir).map_err(|e| format!("{dir}: {e}"))?;
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| format!("tokio runtime: {e}"))?;
        let path = Path::from_filesystem_path(&dir).map_err(|e| format!("{dir}: {e}"))?;
        let sc = schema(&cols);
        let mut opt = DbOption::new(path, &sc);
        if wal == 0 {
            opt = opt.disable_wal();
        }
        let db = rt
            .block_on(async { DB::new(opt, TokioExecutor::current(), sc).await })
            .map_err(|e| format!("open {dir}: {e}"))?;
        unsafe { *out = Box::into_raw(Box::new(Handle { rt, db, cols })) };
        Ok(())
    })
}

/// tt_write writes rows rows from buf (see decode_rows) in one of three
/// modes: 0 each row on its own (tonbo's insert, no transaction), 1 one
/// transaction for the call, 2 one write batch (insert_batch). Status 0
/// means every row is in tonbo; an error may leave mode 0's earlier rows in.
#[no_mangle]
pub unsafe extern "C" fn tt_write(
    h: *mut Handle,
    mode: c_int,
    buf: *const u8,
    len: usize,
    rows: usize,
    err: *mut *mut c_char,
) -> c_int {
    guard(err, || {
        let h = unsafe { h.as_ref() }.ok_or("a NULL handle")?;
        let data = if len == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(buf, len) } };
        let recs = decode_rows(&h.cols, data, rows)?;
        h.rt.block_on(async {
            match mode {
                0 => {
                    for r in recs {
                        h.db.insert(r).await.map_err(|e| format!("insert: {e}"))?;
                    }
                    Ok(())
                }
                1 => {
                    let mut txn = h.db.transaction().await;
                    for r in recs {
                        txn.insert(r);
                    }
                    txn.commit().await.map_err(|e| format!("commit: {e}"))
                }
                2 => h.db.insert_batch(recs.into_iter()).await.map_err(|e| format!("insert_batch: {e}")),
                m => Err(format!("unknown write mode {m}")),
            }
        })
    })
}

/// tt_scan reads every live row, each key once (see Once): their number,
/// the time range, the number of distinct series (keys less their last 16
/// bytes, the time: see KEY_TIME), and per column (in spec order) the
/// non-NULL count and the sum: integers exactly as a 128-bit sum (isum_hi,
/// isum_lo), doubles in fsum with the sum of their magnitudes in fabs,
/// string byte lengths and booleans' true count in isum_lo; and the
/// smallest and largest value of integer (imin, imax) and double (fmin,
/// fmax) columns, left as they are for a column without values. counts,
/// isum_hi, isum_lo, fsums, fabs, imin, imax, fmin and fmax hold one entry
/// per column.
#[no_mangle]
pub unsafe extern "C" fn tt_scan(
    h: *mut Handle,
    rows: *mut i64,
    tmin: *mut i64,
    tmax: *mut i64,
    series: *mut i64,
    counts: *mut i64,
    isum_hi: *mut i64,
    isum_lo: *mut u64,
    fsums: *mut f64,
    fabs: *mut f64,
    imin: *mut i64,
    imax: *mut i64,
    fmin: *mut f64,
    fmax: *mut f64,
    err: *mut *mut c_char,
) -> c_int {
    guard(err, || {
        let h = unsafe { h.as_ref() }.ok_or("a NULL handle")?;
        let n = h.cols.len();
        let (mut cnt, mut isum, mut fsum, mut fab) = (vec![0i64; n], vec![0i128; n], vec![0f64; n], vec![0f64; n]);
        let (mut ilo, mut ihi) = (vec![i64::MAX; n], vec![i64::MIN; n]);
        let (mut flo, mut fhi) = (vec![f64::INFINITY; n], vec![f64::NEG_INFINITY; n]);
        let (mut total, mut lo, mut hi) = (0i64, i64::MAX, i64::MIN);
        let mut once = Once::default();
        h.rt.block_on(async {
            let snap = h.db.snapshot().await;
            let mut s = snap
                .scan((Bound::Unbounded, Bound::Unbounded))
                .take()
                .await
                .map_err(|e| format!("scan: {e}"))?;
            while let Some(e) = s.next().await {
                let e = e.map_err(|e| format!("scan: {e}"))?;
                let Some(rec) = e.value() else { continue };
                let key = cell::<String>(&rec.columns[0]).unwrap_or_default();
                if !once.first(key.as_bytes(), row_hash(&h.cols, &rec.columns))? {
                    continue;
                }
                total += 1;
                let t = cell::<i64>(&rec.columns[1]).unwrap_or(0);
                lo = lo.min(t);
                hi = hi.max(t);
                for (i, c) in h.cols.iter().enumerate() {
                    let v = &rec.columns[i + 2];
                    match c.kind {
                        Kind::Int => {
                            if let Some(x) = cell::<i64>(v) {
                                cnt[i] += 1;
                                isum[i] += x as i128;
                                ilo[i] = ilo[i].min(x);
                                ihi[i] = ihi[i].max(x);
                            }
                        }
                        Kind::Float => {
                            if let Some(x) = cell::<u64>(v) {
                                cnt[i] += 1;
                                let f = f64::from_bits(x);
                                fsum[i] += f;
                                fab[i] += f.abs();
                                if f < flo[i] {
                                    flo[i] = f;
                                }
                                if f > fhi[i] {
                                    fhi[i] = f;
                                }
                            }
                        }
                        Kind::Str => {
                            if let Some(x) = cell::<String>(v) {
                                cnt[i] += 1;
                                isum[i] += x.len() as i128;
                            }
                        }
                        Kind::Bool => {
                            if let Some(x) = cell::<bool>(v) {
                                cnt[i] += 1;
                                isum[i] += x as i128;
                            }
                        }
                    }
                }
            }
            Ok::<(), String>(())
        })?;
        unsafe {
            *rows = total;
            *tmin = if total == 0 { 0 } else { lo };
            *tmax = if total == 0 { 0 } else { hi };
            *series = once.series.len() as i64;
            for i in 0..n {
                *counts.add(i) = cnt[i];
                *isum_hi.add(i) = (isum[i] >> 64) as i64;
                *isum_lo.add(i) = isum[i] as u64;
                *fsums.add(i) = fsum[i];
                *fabs.add(i) = fab[i];
                if cnt[i] > 0 {
                    match h.cols[i].kind {
                        Kind::Int => {
                            *imin.add(i) = ilo[i];
                            *imax.add(i) = ihi[i];
                        }
                        Kind::Float => {
                            *fmin.add(i) = flo[i];
                            *fmax.add(i) = fhi[i];
                        }
                        _ => {}
                    }
                }
            }
        }
        Ok(())
    })
}

/// Once finds the rows tt_scan has seen: tonbo 0.3.2's scan can return a
/// row twice. A flush writes its memtables one after the other into one
/// file (compaction/mod.rs, minor_compaction), so a file holds several
/// sorted runs, while the scan's merge (stream/merge.rs) takes every stream
/// as sorted and drops a key's older versions only when they come next to
/// each other; and an open replays every WAL file into the memtable, those
/// of rows already flushed too (they are deleted only when the version log
/// is rewritten: version/set.rs, deleted_wal). So after a reopen the rows
/// of a flush of more than one memtable come back from the memtable and
/// again from the file. Each key counts once; the same key with other
/// values is an error, as this scan cannot tell which one tonbo holds (a
/// row overwritten after its memtable was frozen: the flush's file holds
/// both versions, in two runs).
#[derive(Default)]
struct Once {
    series: HashMap<Vec<u8>, u32>, // a key less its time: an id
    rows: HashMap<(u32, u64), u64>, // the series' id and the key's time: the row's hash
    other: HashMap<Vec<u8>, u64>,  // a key that does not end in 16 lowercase hex digits
}

impl Once {
    /// first reports whether the row of key (hash its values) is the first
    /// with that key.
    fn first(&mut self, key: &[u8], hash: u64) -> Result<bool, String> {
        let cut = key.len().saturating_sub(KEY_TIME);
        let next = self.series.len() as u32;
        let id = match self.series.get(&key[..cut]) {
            Some(&id) => id,
            None => {
                self.series.insert(key[..cut].to_vec(), next);
                next
            }
        };
        let time = &key[cut..];
        let old = if time.len() == KEY_TIME && time.iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')) {
            let t = u64::from_str_radix(std::str::from_utf8(time).unwrap(), 16).unwrap();
            self.rows.insert((id, t), hash)
        } else {
            self.other.insert(key.to_vec(), hash)
        };
        match old {
            None => Ok(true),
            Some(h) if h == hash => Ok(false),
            Some(_) => Err(format!(
                "scan: tonbo returned the key {:?} twice with different values, in no order that tells \
                 the current one (tonbo 0.3.2 reads a file of several memtables as if sorted: a row \
                 overwritten after a memtable was frozen; see docs/loaders/tonbo.md)",
                String::from_utf8_lossy(key)
            )),
        }
    }
}

/// row_hash hashes a row's time and columns (cols the columns after the
/// key and the time).
fn row_hash(cols: &[Column], v: &[Value]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    cell::<i64>(&v[1]).hash(&mut h);
    for (i, c) in cols.iter().enumerate() {
        let v = &v[i + 2];
        match c.kind {
            Kind::Int => cell::<i64>(v).hash(&mut h),
            Kind::Float => cell::<u64>(v).hash(&mut h),
            Kind::Str => cell::<String>(v).hash(&mut h),
            Kind::Bool => cell::<bool>(v).hash(&mut h),
        }
    }
    h.finish()
}

/// cell reads a value that may be stored as T or as Option<T> (tonbo keeps
/// nullable columns as Option and the rest bare).
fn cell<T: Clone + 'static>(v: &Value) -> Option<T> {
    if let Some(x) = v.value.downcast_ref::<Option<T>>() {
        return x.clone();
    }
    v.value.downcast_ref::<T>().cloned()
}

/// tt_close flushes what tonbo holds in memory to its files (with the WAL
/// off, rows not flushed would be lost) and frees the handle.
#[no_mangle]
pub unsafe extern "C" fn tt_close(h: *mut Handle, err: *mut *mut c_char) -> c_int {
    if h.is_null() {
        return 0;
    }
    let h = unsafe { Box::from_raw(h) };
    guard(err, move || {
        let res = h.rt.block_on(async {
            h.db.flush_wal().await.map_err(|e| format!("flush wal: {e}"))?;
            h.db.flush().await.map_err(|e| format!("flush: {e}"))
        });
        drop(h);
        res
    })
}
