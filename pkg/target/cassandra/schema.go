package cassandra

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// column is a column of a table as the keyspace has it.
type column struct {
	name string
	typ  schema.Type
	tag  bool // a series column of the partition key
}

// table is a table as the keyspace has it: the time column (clustering),
// the tags and the bucket (partition key) and the fields, and the INSERT of
// every column in that order.
type table struct {
	name   string
	cols   []column // cols[0] is the time; the bucket is not among them
	index  map[string]int
	ntags  int // cols[1:1+ntags] are the tags, in partition key order
	insert string
}

// cqlType is the CQL type a column of type t is created with.
func cqlType(t schema.Type) string {
	switch t {
	case schema.Timestamp:
		return "timestamp"
	case schema.Float8:
		return "double"
	case schema.Float4:
		return "float"
	case schema.Int8:
		return "bigint"
	case schema.Int4:
		return "int"
	}
	return "text"
}

// typeOf is the schema type of CQL type s (0: one tsload does not load).
func typeOf(s string) schema.Type {
	switch s {
	case "timestamp":
		return schema.Timestamp
	case "double":
		return schema.Float8
	case "float":
		return schema.Float4
	case "bigint":
		return schema.Int8
	case "int":
		return schema.Int4
	case "text", "varchar", "ascii":
		return schema.Text
	}
	return 0
}

// DDL is the CREATE TABLE statement of tb in keyspace ks.
func (t *Target) DDL(ks string, tb *schema.Table) (string, error) {
	var cols, key []string
	for i, c := range tb.Columns {
		if c.Name == BucketColumn {
			return "", fmt.Errorf("table %q has a column %q, the name of the partition key's time bucket", tb.Name, c.Name)
		}
		typ := cqlType(c.Type)
		if c.Tag {
			typ = "text"
			key = append(key, quote(c.Name))
		} else if i == 0 {
			typ = "timestamp"
		}
		cols = append(cols, quote(c.Name)+" "+typ)
	}
	cols = append(cols, quote(BucketColumn)+" timestamp")
	key = append(key, quote(BucketColumn))
	return fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.%s (%s, PRIMARY KEY ((%s), %s)) WITH CLUSTERING ORDER BY (%s ASC)",
		quote(ks), quote(tb.Name), strings.Join(cols, ", "), strings.Join(key, ", "), quote(tb.Columns[0].Name), quote(tb.Columns[0].Name)), nil
}

// Prepare drops (DropDB), checks (AbortOnExist) and creates (CreateDB) the
// keyspace, and creates the tables known before loading.
func (t *Target) Prepare(ctx context.Context, opts load.PrepareOptions) error {
	if opts.DBName != "" {
		t.cfg.Keyspace = opts.DBName
	}
	if t.cfg.Keyspace == "" {
		return load.Settingf("no keyspace ({Keyspace})")
	}
	s, err := t.session()
	if err != nil {
		return err
	}
	ks := t.cfg.Keyspace
	if opts.DropDB {
		if err := t.ddl(ctx, s, "DROP KEYSPACE IF EXISTS "+quote(ks)); err != nil {
			return err
		}
	} else if opts.AbortOnExist {
		var n int
		if err := s.Query("SELECT count(*) FROM system_schema.keyspaces WHERE keyspace_name = ?", ks).ScanContext(ctx, &n); err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("cassandra: keyspace %q already exists", ks)
		}
	}
	if opts.CreateDB || opts.DropDB {
		stmt := fmt.Sprintf("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': %d}",
			quote(ks), t.cfg.ReplicationFactor)
		if err := t.ddl(ctx, s, stmt); err != nil {
			return err
		}
	}
	t.mu.Lock()
	clear(t.tables)
	t.mu.Unlock()
	for _, tb := range opts.Tables {
		if _, err := t.table(ctx, tb.Name, tb); err != nil {
			return err
		}
	}
	return nil
}

// ddl runs a schema change and waits until the nodes agree on the schema.
func (t *Target) ddl(ctx context.Context, s *gocql.Session, stmt string) error {
	if err := s.Query(stmt).Consistency(gocql.All).ExecContext(ctx); err != nil {
		return fmt.Errorf("cassandra: %s: %w", stmt, err)
	}
	if err := s.AwaitSchemaAgreement(ctx); err != nil {
		return fmt.Errorf("cassandra: after %s: %w", stmt, err)
	}
	return nil
}

// TableName is the name table name is loaded under: CQL names hold only
// letters, digits and underscores (even quoted), so any other character
// becomes an underscore ("suite_resume_mid-load" is
// "suite_resume_mid_load"); at most 48 characters.
func TableName(name string) (string, error) {
	out := []byte(name)
	for i, c := range out {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			out[i] = '_'
		}
	}
	if len(out) == 0 || len(out) > 48 {
		return "", fmt.Errorf("cassandra: table name %q: Cassandra's table names have 1 to 48 characters", name)
	}
	return string(out), nil
}

// table returns the table name as the keyspace has it, creating it like
// like when it does not exist (nil like: it must exist).
func (t *Target) table(ctx context.Context, name string, like *schema.Table) (*table, error) {
	t.mu.Lock()
	tb := t.tables[name]
	t.mu.Unlock()
	if tb != nil {
		return tb, nil
	}
	cname, err := TableName(name)
	if err != nil {
		return nil, err
	}
	// One schema change at a time: concurrent CREATE TABLE of one name
	// from several writers would race on the server.
	t.mu.Lock()
	defer t.mu.Unlock()
	if tb := t.tables[name]; tb != nil {
		return tb, nil
	}
	// Two names of the input that are one name in Cassandra would be
	// loaded into one table: refused.
	for other, tb := range t.tables {
		if tb.name == cname && other != name {
			return nil, fmt.Errorf("cassandra: tables %q and %q would both be table %q (CQL names hold letters, digits and _ only)", other, name, cname)
		}
	}
	s := t.sess
	tb, err = t.describe(ctx, s, cname)
	if err != nil || tb != nil || like == nil {
		if err == nil && tb != nil {
			t.tables[name] = tb
		}
		return tb, err
	}
	c := *like
	c.Name = cname
	stmt, err := t.DDL(t.cfg.Keyspace, &c)
	if err != nil {
		return nil, err
	}
	if err := t.ddl(ctx, s, stmt); err != nil {
		return nil, err
	}
	if tb, err = t.describe(ctx, s, cname); err == nil && tb == nil {
		err = fmt.Errorf("cassandra: table %q not found after %s", cname, stmt)
	}
	if err != nil {
		return nil, err
	}
	t.tables[name] = tb
	return tb, nil
}

// addField adds field f of type typ to tb (a line with a field the table
// lacks) and returns the table as it is then.
func (t *Target) addField(ctx context.Context, name string, tb *table, f string, typ schema.Type) (*table, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if cur := t.tables[name]; cur != nil && cur != tb {
		if _, ok := cur.index[f]; ok {
			return cur, nil
		}
	}
	stmt := fmt.Sprintf("ALTER TABLE %s.%s ADD %s %s", quote(t.cfg.Keyspace), quote(tb.name), quote(f), cqlType(typ))
	if err := t.ddl(ctx, t.sess, stmt); err != nil {
		var ae interface{ Code() int }
		if !errors.As(err, &ae) || ae.Code() != gocql.ErrCodeInvalid { // "already exists": another writer added it
			return nil, err
		}
	}
	nt, err := t.describe(ctx, t.sess, tb.name)
	if err == nil && nt == nil {
		err = fmt.Errorf("cassandra: table %q vanished", tb.name)
	}
	if err != nil {
		return nil, err
	}
	if _, ok := nt.index[f]; !ok {
		return nil, fmt.Errorf("cassandra: %s did not add column %q", stmt, f)
	}
	t.tables[name] = nt
	return nt, nil
}

// describe reads table name's columns from system_schema (nil: no such table).
func (t *Target) describe(ctx context.Context, s *gocql.Session, name string) (*table, error) {
	it := s.Query("SELECT column_name, kind, position, type FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?",
		t.cfg.Keyspace, name).Consistency(gocql.One).IterContext(ctx)
	type col struct {
		name, kind, typ string
		pos             int
	}
	var cols []col
	var c col
	for it.Scan(&c.name, &c.kind, &c.pos, &c.typ) {
		cols = append(cols, c)
	}
	if err := it.Close(); err != nil {
		return nil, fmt.Errorf("cassandra: columns of %q: %w", name, err)
	}
	if len(cols) == 0 {
		return nil, nil
	}
	sort.SliceStable(cols, func(i, j int) bool {
		ki, kj := kindOrder(cols[i].kind), kindOrder(cols[j].kind)
		if ki != kj {
			return ki < kj
		}
		if cols[i].pos != cols[j].pos {
			return cols[i].pos < cols[j].pos
		}
		return cols[i].name < cols[j].name
	})
	tb := &table{name: name, index: map[string]int{}}
	var timeCol *col
	var tags, fields []col
	bucket := false
	for i := range cols {
		c := &cols[i]
		switch {
		case c.kind == "clustering" && timeCol == nil:
			timeCol = c
		case c.kind == "partition_key" && c.name == BucketColumn:
			bucket = true
		case c.kind == "partition_key":
			tags = append(tags, *c)
		case c.kind == "regular":
			fields = append(fields, *c)
		default:
			return nil, fmt.Errorf("cassandra: table %q has %s column %q: not a table of tsload's layout (tags and %s as the partition key, time as the clustering column)",
				name, c.kind, c.name, BucketColumn)
		}
	}
	if timeCol == nil || typeOf(timeCol.typ) != schema.Timestamp || !bucket {
		return nil, fmt.Errorf("cassandra: table %q is not of tsload's layout (tags and %s as the partition key, a timestamp as the clustering column)", name, BucketColumn)
	}
	add := func(c col, tag bool) error {
		typ := typeOf(c.typ)
		if typ == 0 || (tag && typ != schema.Text) {
			return fmt.Errorf("cassandra: table %q: column %q of type %s is not one tsload loads", name, c.name, c.typ)
		}
		tb.index[c.name] = len(tb.cols)
		tb.cols = append(tb.cols, column{name: c.name, typ: typ, tag: tag})
		return nil
	}
	if err := add(*timeCol, false); err != nil {
		return nil, err
	}
	for _, c := range tags {
		if err := add(c, true); err != nil {
			return nil, err
		}
	}
	tb.ntags = len(tags)
	for _, c := range fields {
		if err := add(c, false); err != nil {
			return nil, err
		}
	}
	tb.insert = insertStmt(t.cfg.Keyspace, tb)
	return tb, nil
}

// insertStmt is the INSERT of every column of tb, then the bucket.
func insertStmt(ks string, tb *table) string {
	names := make([]string, 0, len(tb.cols)+1)
	marks := make([]string, 0, len(tb.cols)+1)
	for _, c := range tb.cols {
		names = append(names, quote(c.name))
		marks = append(marks, "?")
	}
	names = append(names, quote(BucketColumn))
	marks = append(marks, "?")
	return fmt.Sprintf("INSERT INTO %s.%s (%s) VALUES (%s)", quote(ks), quote(tb.name), strings.Join(names, ", "), strings.Join(marks, ", "))
}

func kindOrder(k string) int {
	switch k {
	case "partition_key":
		return 0
	case "clustering":
		return 1
	}
	return 2
}
