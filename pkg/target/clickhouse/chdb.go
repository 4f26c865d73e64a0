package clickhouse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"
)

// chDB is ClickHouse's engine as a library: the chdb wheel from PyPI
// (scripts/install_chdb.sh unpacks it) is a Python extension, _chdb.abi3.so, that also
// exports chDB's C API (chdb_connect, chdb_query, ...). It runs only inside an initialised
// Python that has imported it once (without that a background thread of the engine crashes
// in PythonTableCache::clear), so the loader loads libpython3.11 with purego (no cgo),
// initialises it, imports the module by its file (the wheel's package would import pyarrow),
// releases the interpreter's lock, and calls the C API. chdb-go's own binding opens
// libchdb.so when its package is initialised and panics when there is none, which would stop
// every load_clickhouse on a machine without chDB: the few calls are made here instead.
//
// One engine per process, on one data path: the workers share its connection, one statement
// at a time.

// DefaultLibPython is the Python library chDB's wheel is imported into.
const DefaultLibPython = "libpython3.11.so.1.0"

// DefaultChDBDir is where scripts/install_chdb.sh unpacks the chdb wheel.
func DefaultChDBDir() string {
	cache := os.Getenv("TSLOAD_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "tsload")
	}
	return filepath.Join(cache, "chdb-3.7.2", "site")
}

// chdbAPI is the C API, loaded once per process.
var chdbAPI struct {
	once      sync.Once
	err       error
	connect   func(argc int32, argv []*byte) unsafe.Pointer
	closeConn func(unsafe.Pointer)
	query     func(conn unsafe.Pointer, query, format string) unsafe.Pointer
	buffer    func(unsafe.Pointer) unsafe.Pointer
	length    func(unsafe.Pointer) uintptr
	errorOf   func(unsafe.Pointer) unsafe.Pointer
	destroy   func(unsafe.Pointer)

	mu   sync.Mutex // one engine per process
	open string     // its data path
}

func cstring(s string) *byte { b := append([]byte(s), 0); return &b[0] }

func gostring(p unsafe.Pointer) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(p, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(p), n))
}

// loadChDB loads libPython and the wheel's module from dir, once.
func loadChDB(dir, libPython string) error {
	a := &chdbAPI
	a.once.Do(func() {
		so := filepath.Join(dir, "chdb", "_chdb.abi3.so")
		if _, err := os.Stat(so); err != nil {
			a.err = fmt.Errorf("chDB: no %s (run scripts/install_chdb.sh, or set --chdb-dir): %w", so, err)
			return
		}
		py, err := dlopen(libPython)
		if err != nil {
			a.err = fmt.Errorf("chDB: loading %s (Debian: apt-get install libpython3.11): %w", libPython, err)
			return
		}
		var pyInit func(int32)
		var pyIsInit func() int32
		var pyRun func(*byte) int32
		var pySave func() uintptr
		purego.RegisterLibFunc(&pyInit, py, "Py_InitializeEx")
		purego.RegisterLibFunc(&pyIsInit, py, "Py_IsInitialized")
		purego.RegisterLibFunc(&pyRun, py, "PyRun_SimpleString")
		purego.RegisterLibFunc(&pySave, py, "PyEval_SaveThread")
		runtime.LockOSThread()
		if pyIsInit() == 0 {
			pyInit(0)
		}
		src := "import importlib.util as u, sys\n" +
			"s = u.spec_from_file_location('chdb._chdb', " + strconv.Quote(so) + ")\n" +
			"m = u.module_from_spec(s)\nsys.modules['chdb._chdb'] = m\ns.loader.exec_module(m)\n"
		rc := pyRun(cstring(src))
		pySave()
		runtime.UnlockOSThread()
		if rc != 0 {
			a.err = fmt.Errorf("chDB: Python could not import %s (its error is above)", so)
			return
		}
		lib, err := dlopen(so)
		if err != nil {
			a.err = fmt.Errorf("chDB: %w", err)
			return
		}
		purego.RegisterLibFunc(&a.connect, lib, "chdb_connect")
		purego.RegisterLibFunc(&a.closeConn, lib, "chdb_close_conn")
		purego.RegisterLibFunc(&a.query, lib, "chdb_query")
		purego.RegisterLibFunc(&a.buffer, lib, "chdb_result_buffer")
		purego.RegisterLibFunc(&a.length, lib, "chdb_result_length")
		purego.RegisterLibFunc(&a.errorOf, lib, "chdb_result_error")
		purego.RegisterLibFunc(&a.destroy, lib, "chdb_destroy_query_result")
	})
	return a.err
}

// embedded is chDB on a data path.
type embedded struct {
	mu   sync.Mutex
	conn unsafe.Pointer // chdb_connection*
	path string
}

func openChDB(cfg Config) (*embedded, error) {
	if err := loadChDB(cfg.ChDBDir, cfg.LibPython); err != nil {
		return nil, err
	}
	a := &chdbAPI
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.open != "" {
		return nil, fmt.Errorf("chDB: %s is open in this process: chDB runs one data path per process", a.open)
	}
	if err := os.MkdirAll(cfg.DBPath, 0o755); err != nil {
		return nil, fmt.Errorf("chDB: %w", err)
	}
	argv := []*byte{cstring("clickhouse"), cstring("--path=" + cfg.DBPath)}
	cp := a.connect(int32(len(argv)), argv)
	runtime.KeepAlive(argv)
	if cp == nil || *(*unsafe.Pointer)(cp) == nil {
		return nil, fmt.Errorf("chDB: could not open %s", cfg.DBPath)
	}
	a.open = cfg.DBPath
	return &embedded{conn: cp, path: cfg.DBPath}, nil
}

// run runs stmt and returns its output in format.
func (e *embedded) run(stmt, format string) ([]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.conn == nil {
		return nil, errors.New("chDB: closed")
	}
	a := &chdbAPI
	r := a.query(*(*unsafe.Pointer)(e.conn), stmt, format)
	if r == nil {
		return nil, errors.New("chDB: no result")
	}
	defer a.destroy(r)
	if msg := gostring(a.errorOf(r)); msg != "" {
		return nil, errors.New(msg)
	}
	n := int(a.length(r))
	if n == 0 {
		return nil, nil
	}
	return bytes.Clone(unsafe.Slice((*byte)(a.buffer(r)), n)), nil
}

func (e *embedded) exec(_ context.Context, stmt string) error {
	_, err := e.run(stmt, "TabSeparated")
	return err
}

func (e *embedded) rows(_ context.Context, stmt string) ([][]string, error) {
	out, err := e.run(stmt, "TabSeparated")
	if err != nil {
		return nil, err
	}
	var rows [][]string
	for _, line := range bytes.Split(bytes.TrimSuffix(out, []byte{'\n'}), []byte{'\n'}) {
		if len(out) == 0 {
			break
		}
		var row []string
		for _, cell := range bytes.Split(line, []byte{'\t'}) {
			row = append(row, tsvUnescape(cell))
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// tsvUnescape reads a TabSeparated cell; NULL stays \N.
func tsvUnescape(b []byte) string {
	if bytes.IndexByte(b, '\\') < 0 || string(b) == `\N` {
		return string(b)
	}
	var s []byte
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+1 < len(b) {
			i++
			switch b[i] {
			case 't':
				s = append(s, '\t')
			case 'n':
				s = append(s, '\n')
			case '0':
				s = append(s, 0)
			default:
				s = append(s, b[i])
			}
			continue
		}
		s = append(s, b[i])
	}
	return string(s)
}

// insert sends rows as one INSERT ... FORMAT TabSeparated.
func (e *embedded) insert(_ context.Context, tb *table, rows [][]any) error {
	var b bytes.Buffer
	b.WriteString(tb.insert)
	b.WriteString(" FORMAT TabSeparated\n")
	for _, row := range rows {
		for i, v := range row {
			if i > 0 {
				b.WriteByte('\t')
			}
			tsvValue(&b, v)
		}
		b.WriteByte('\n')
	}
	_, err := e.run(b.String(), "TabSeparated")
	return err
}

func tsvValue(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString(`\N`)
	case time.Time:
		b.WriteString(x.UTC().Format("2006-01-02 15:04:05.000000000"))
	case float64:
		tsvFloat(b, x, 64)
	case float32:
		tsvFloat(b, float64(x), 32)
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case int32:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case string:
		for i := 0; i < len(x); i++ {
			switch c := x[i]; c {
			case '\\':
				b.WriteString(`\\`)
			case '\t':
				b.WriteString(`\t`)
			case '\n':
				b.WriteString(`\n`)
			default:
				b.WriteByte(c)
			}
		}
	default:
		fmt.Fprint(b, x)
	}
}

func tsvFloat(b *bytes.Buffer, f float64, bits int) {
	switch {
	case math.IsNaN(f):
		b.WriteString("nan")
	case math.IsInf(f, 1):
		b.WriteString("inf")
	case math.IsInf(f, -1):
		b.WriteString("-inf")
	default:
		b.WriteString(strconv.FormatFloat(f, 'g', -1, bits))
	}
}

func (e *embedded) ping(context.Context) error {
	_, err := e.run("SELECT 1", "TabSeparated")
	return err
}

// close closes the engine: the process may then open another data path.
func (e *embedded) close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.conn == nil {
		return nil
	}
	chdbAPI.closeConn(e.conn)
	e.conn = nil
	chdbAPI.mu.Lock()
	chdbAPI.open = ""
	chdbAPI.mu.Unlock()
	return nil
}
