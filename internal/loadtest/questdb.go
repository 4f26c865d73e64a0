package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// DropQuestDBTables drops, when the test ends, every table of the QuestDB at
// httpURL whose name starts with prefix. QuestDB gives each column of a new
// table a 16 MiB append page on disk, so the tables of one test run take
// gigabytes if they are left behind. Only the test's own prefix is dropped:
// other test processes may be loading into the same server.
func DropQuestDBTables(t testing.TB, httpURL, prefix string) {
	t.Helper()
	if prefix == "" {
		t.Fatal("DropQuestDBTables: empty prefix")
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var names struct {
			Dataset [][]any `json:"dataset"`
		}
		// LIKE's _ matches any character: the names are checked again below.
		q := "SELECT table_name FROM tables() WHERE table_name LIKE '" + strings.ReplaceAll(prefix, "'", "''") + "%'"
		if err := questdbExec(ctx, httpURL, q, &names); err != nil {
			t.Logf("QuestDB tables %s* not dropped: %v", prefix, err)
			return
		}
		for _, row := range names.Dataset {
			if len(row) == 0 {
				continue
			}
			name, _ := row[0].(string)
			if !strings.HasPrefix(name, prefix) {
				continue
			}
			if err := questdbExec(ctx, httpURL, `DROP TABLE IF EXISTS "`+name+`"`, nil); err != nil {
				t.Logf("QuestDB table %s not dropped: %v", name, err)
			}
		}
	})
}

// questdbExec runs sql with GET /exec, decoding the JSON answer into out
// when out is not nil.
func questdbExec(ctx context.Context, httpURL, sql string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, httpURL+"/exec?query="+url.QueryEscape(sql), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d: %.200s", sql, resp.StatusCode, body)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(body, out)
}
