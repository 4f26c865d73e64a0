//! tonbo_ceiling: the ceiling of `scripts/bench_load.sh tonbo`. It reads a
//! cpu-only CSV (tsload's: a header, the RFC 3339 time, the tags, then the
//! fields as numbers), encodes every row into the bridge's row buffers as
//! load_tonbo does (the key: each tag as `<len>:<text>`, then the time's 16
//! hex digits; see pkg/target/tonbo), in batches of --batch-size rows, and
//! only then starts the clock: --threads threads call tt_write on the
//! batches (round robin) in --mode (0 per row, 1 a transaction per batch,
//! 2 insert_batch), then tt_close flushes (the clock stops). It reopens the directory, counts
//! the rows with tt_scan and prints the count and the seconds:
//!
//!     tonbo_ceiling --dir DIR --tags 10 [--batch-size 5000] [--threads 2] [--mode 1] [--wal 1] cpu.csv
//!     1080000 4.512
//!
//! The difference from load_tonbo on the same rows is tsload's own cost
//! (reading, decoding, cgo); this is the bridge's and tonbo's.
use std::{
    ffi::{c_char, CStr, CString},
    io::{BufRead, BufReader},
    ptr,
    time::Instant,
};

use tsload_tonbo::{tt_close, tt_free, tt_open, tt_scan, tt_write, Handle};

struct Args {
    dir: String,
    input: String,
    tags: usize,
    batch: usize,
    threads: usize,
    mode: i32,
    wal: i32,
}

fn args() -> Result<Args, String> {
    let mut a = Args { dir: String::new(), input: String::new(), tags: 0, batch: 5000, threads: 2, mode: 1, wal: 1 };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let mut val = || it.next().ok_or(format!("{k} wants a value"));
        let num = |v: String| v.parse::<usize>().map_err(|_| format!("{k}: {v:?} is not a number"));
        match k.as_str() {
            "--dir" => a.dir = val()?,
            "--tags" => a.tags = num(val()?)?,
            "--batch-size" => a.batch = num(val()?)?.max(1),
            "--threads" => a.threads = num(val()?)?.max(1),
            "--mode" => a.mode = num(val()?)? as i32,
            "--wal" => a.wal = num(val()?)? as i32,
            _ if !k.starts_with("--") && a.input.is_empty() => a.input = k,
            _ => return Err(format!("unknown argument {k:?}")),
        }
    }
    if a.dir.is_empty() || a.input.is_empty() {
        return Err("usage: tonbo_ceiling --dir DIR --tags N [--batch-size B] [--threads T] [--mode M] [--wal 0|1] FILE.csv".into());
    }
    Ok(a)
}

/// unix_ns reads "YYYY-MM-DDTHH:MM:SS[.fff]Z" as nanoseconds since the epoch.
fn unix_ns(s: &str) -> Result<i64, String> {
    let bad = || format!("time {s:?} is not YYYY-MM-DDTHH:MM:SS[.f]Z");
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || *b.last().unwrap() != b'Z' {
        return Err(bad());
    }
    let n = |r: std::ops::Range<usize>| s[r].parse::<i64>().map_err(|_| bad());
    let (y, m, d) = (n(0..4)?, n(5..7)?, n(8..10)?);
    let secs = n(11..13)? * 3600 + n(14..16)? * 60 + n(17..19)?;
    let mut frac = 0i64;
    if b[19] == b'.' {
        let f = &s[20..s.len() - 1];
        if f.is_empty() || f.len() > 9 {
            return Err(bad());
        }
        frac = f.parse::<i64>().map_err(|_| bad())? * 10i64.pow(9 - f.len() as u32);
    }
    // Days from the civil date (proleptic Gregorian).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146097 + doe - 719468;
    Ok((days * 86400 + secs) * 1_000_000_000 + frac)
}

fn message(p: *mut c_char) -> String {
    if p.is_null() {
        return "unknown error".into();
    }
    let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    unsafe { tt_free(p) };
    s
}

struct Batch {
    buf: Vec<u8>,
    rows: usize,
}

fn run() -> Result<(), String> {
    let a = args()?;
    let f = std::fs::File::open(&a.input).map_err(|e| format!("{}: {e}", a.input))?;
    let mut lines = BufReader::new(f).lines();
    let header = lines.next().ok_or("an empty file")?.map_err(|e| e.to_string())?;
    let names: Vec<&str> = header.split(',').collect();
    if names.len() < a.tags + 1 || names[0] != "time" {
        return Err(format!("header {header:?}: want time, {} tags, then fields", a.tags));
    }
    let mut spec = String::new();
    for (i, name) in names.iter().enumerate().skip(1) {
        spec.push_str(if i <= a.tags { "s " } else { "f " });
        spec.push_str(name);
        spec.push('\n');
    }
    // Encode every row first (not timed): the bridge's buffer per batch.
    let mut batches: Vec<Batch> = Vec::new();
    let mut cur = Batch { buf: Vec::new(), rows: 0 };
    let mut key = Vec::new();
    for (n, line) in lines.enumerate() {
        let line = line.map_err(|e| e.to_string())?;
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != names.len() {
            return Err(format!("line {}: {} fields, want {}", n + 2, f.len(), names.len()));
        }
        let ns = unix_ns(f[0]).map_err(|e| format!("line {}: {e}", n + 2))?;
        key.clear();
        for t in &f[1..=a.tags] {
            key.extend_from_slice(t.len().to_string().as_bytes());
            key.push(b':');
            key.extend_from_slice(t.as_bytes());
        }
        let t = (ns as u64) ^ (1 << 63);
        for shift in (0..=60).rev().step_by(4) {
            key.push(b"0123456789abcdef"[((t >> shift) & 15) as usize]);
        }
        let b = &mut cur.buf;
        b.extend_from_slice(&(key.len() as u32).to_le_bytes());
        b.extend_from_slice(&key);
        b.extend_from_slice(&(ns as u64).to_le_bytes());
        for (i, v) in f.iter().enumerate().skip(1) {
            if v.is_empty() {
                b.push(0);
                continue;
            }
            b.push(1);
            if i <= a.tags {
                b.extend_from_slice(&(v.len() as u32).to_le_bytes());
                b.extend_from_slice(v.as_bytes());
            } else {
                let x: f64 = v.parse().map_err(|_| format!("line {}: {v:?} is not a number", n + 2))?;
                b.extend_from_slice(&x.to_bits().to_le_bytes());
            }
        }
        cur.rows += 1;
        if cur.rows == a.batch {
            batches.push(std::mem::replace(&mut cur, Batch { buf: Vec::new(), rows: 0 }));
        }
    }
    if cur.rows > 0 {
        batches.push(cur);
    }
    let total: usize = batches.iter().map(|b| b.rows).sum();

    let dir = CString::new(a.dir.clone()).map_err(|e| e.to_string())?;
    let spec = CString::new(spec).map_err(|e| e.to_string())?;
    let open = || -> Result<*mut Handle, String> {
        let (mut h, mut err) = (ptr::null_mut(), ptr::null_mut());
        if unsafe { tt_open(dir.as_ptr(), spec.as_ptr(), a.wal, &mut h, &mut err) } != 0 {
            return Err(format!("open: {}", message(err)));
        }
        Ok(h)
    };
    // Timed as load_tonbo's rate is: from the table open (its Prepare, not
    // counted) to the last write and the flush (its Finish, counted).
    let h = open()?;
    let start = Instant::now();
    let hp = h as usize; // the bridge's handle takes concurrent tt_write calls (load_tonbo's workers)
    let res: Result<(), String> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..a.threads)
            .map(|w| {
                let batches = &batches;
                s.spawn(move || -> Result<(), String> {
                    for b in batches.iter().skip(w).step_by(a.threads) {
                        let mut err = ptr::null_mut();
                        let st = unsafe { tt_write(hp as *mut Handle, a.mode, b.buf.as_ptr(), b.buf.len(), b.rows, &mut err) };
                        if st != 0 {
                            return Err(format!("write: {}", message(err)));
                        }
                    }
                    Ok(())
                })
            })
            .collect();
        workers.into_iter().try_for_each(|w| w.join().map_err(|_| "a writer panicked".to_string())?)
    });
    let mut err = ptr::null_mut();
    let closed = unsafe { tt_close(h, &mut err) };
    res?;
    if closed != 0 {
        return Err(format!("close: {}", message(err)));
    }
    let secs = start.elapsed().as_secs_f64();

    // Read the count back.
    let h = open()?;
    let cols = names.len() - 1;
    let (mut rows, mut tmin, mut tmax, mut series) = (0i64, 0i64, 0i64, 0i64);
    let (mut counts, mut hi, mut lo) = (vec![0i64; cols], vec![0i64; cols], vec![0u64; cols]);
    let (mut fs, mut fa) = (vec![0f64; cols], vec![0f64; cols]);
    let (mut imin, mut imax, mut fmin, mut fmax) = (vec![0i64; cols], vec![0i64; cols], vec![0f64; cols], vec![0f64; cols]);
    let mut err = ptr::null_mut();
    let st = unsafe {
        tt_scan(h, &mut rows, &mut tmin, &mut tmax, &mut series, counts.as_mut_ptr(), hi.as_mut_ptr(), lo.as_mut_ptr(),
            fs.as_mut_ptr(), fa.as_mut_ptr(), imin.as_mut_ptr(), imax.as_mut_ptr(), fmin.as_mut_ptr(), fmax.as_mut_ptr(), &mut err)
    };
    let scan = if st != 0 { Err(format!("scan: {}", message(err))) } else { Ok(()) };
    let mut err = ptr::null_mut();
    unsafe { tt_close(h, &mut err) };
    scan?;
    if rows as usize != total {
        return Err(format!("{rows} rows read back, {total} written"));
    }
    println!("{rows} {secs:.3}");
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("tonbo_ceiling: {e}");
        std::process::exit(1);
    }
}
