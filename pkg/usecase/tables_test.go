package usecase

import (
	"testing"

	"github.com/tsload/tsload/pkg/schema"
)

func TestTables(t *testing.T) {
	tests := []struct {
		useCase string
		tables  []string
		fields  int // total fields over all tables
	}{
		{CPUOnly, []string{"cpu"}, 10},
		{DevOps, []string{"cpu", "diskio", "disk", "kernel", "mem", "net", "nginx", "postgresl", "redis"}, 101},
		{IoT, []string{"readings", "diagnostics"}, 16},
		{Weather, []string{"weather"}, 8},
	}
	for _, tt := range tests {
		t.Run(tt.useCase, func(t *testing.T) {
			ts, err := Tables(tt.useCase)
			if err != nil {
				t.Fatal(err)
			}
			if len(ts) != len(tt.tables) {
				t.Fatalf("got %d tables, want %d", len(ts), len(tt.tables))
			}
			fields := 0
			for i, tb := range ts {
				if tb.Name != tt.tables[i] {
					t.Errorf("table %d = %q, want %q", i, tb.Name, tt.tables[i])
				}
				if tb.Columns[0].Name != "time" || tb.Columns[0].Type != schema.Timestamp {
					t.Errorf("%s: first column %+v, want time timestamptz", tb.Name, tb.Columns[0])
				}
				seen := map[string]bool{}
				tagsDone := false
				for j, c := range tb.Columns {
					if seen[c.Name] {
						t.Errorf("%s: duplicate column %q", tb.Name, c.Name)
					}
					seen[c.Name] = true
					if !c.Type.Valid() {
						t.Errorf("%s.%s: invalid type", tb.Name, c.Name)
					}
					if j > 0 && !c.Tag {
						tagsDone = true
					}
					if c.Tag && tagsDone {
						t.Errorf("%s.%s: tag after a field", tb.Name, c.Name)
					}
				}
				if LookupTable(tb.Name) != tb {
					t.Errorf("LookupTable(%q) is not the use case's table", tb.Name)
				}
				fields += tb.Fields()
			}
			if fields != tt.fields {
				t.Errorf("fields = %d, want %d", fields, tt.fields)
			}
		})
	}
}

func TestTablesUnknown(t *testing.T) {
	if _, err := Tables("cpu"); err == nil {
		t.Fatal("want error for unknown use case")
	}
	if LookupTable("nope") != nil {
		t.Fatal("LookupTable(nope) != nil")
	}
}

func TestTypes(t *testing.T) {
	col := func(table, name string) schema.Column {
		for _, c := range LookupTable(table).Columns {
			if c.Name == name {
				return c
			}
		}
		t.Fatalf("%s.%s missing", table, name)
		return schema.Column{}
	}
	tests := []struct {
		table, col string
		typ        schema.Type
		tag        bool
	}{
		{"cpu", "hostname", schema.Text, true},
		{"cpu", "usage_user", schema.Float8, false},
		{"mem", "used_percent", schema.Float8, false},
		{"mem", "total", schema.Int8, false},
		{"redis", "port", schema.Text, true},
		{"diagnostics", "status", schema.Int8, false},
		{"readings", "latitude", schema.Float8, false},
		{"weather", "location_id", schema.Int4, true},
		{"weather", "snowfall", schema.Float4, false},
	}
	for _, tt := range tests {
		c := col(tt.table, tt.col)
		if c.Type != tt.typ || c.Tag != tt.tag {
			t.Errorf("%s.%s = %v tag=%v, want %v tag=%v", tt.table, tt.col, c.Type, c.Tag, tt.typ, tt.tag)
		}
	}
}
