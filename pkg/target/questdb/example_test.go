package questdb_test

import (
	"fmt"

	"github.com/tsload/tsload/pkg/target/questdb"
	"github.com/tsload/tsload/pkg/usecase"
)

func ExampleParseConf() {
	c, err := questdb.ParseConf("https::addr=db.example:9000;username=admin;password=quest;auto_flush_rows=10000;request_timeout=5000;")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Schema, c.Addr, c.Username, c.AutoFlushRows, c.RequestTimeout, c.TLSVerify)
	// Output:
	// https db.example:9000 admin 10000 5s true
}

func ExampleCreateTableSQL() {
	fmt.Println(questdb.CreateTableSQL(usecase.LookupTable("diagnostics"), true))
	// Output:
	// CREATE TABLE IF NOT EXISTS "diagnostics" ("timestamp" TIMESTAMP, "name" SYMBOL, "fleet" SYMBOL, "driver" SYMBOL, "model" SYMBOL, "device_version" SYMBOL, "fuel_state" DOUBLE, "current_load" DOUBLE, "status" LONG, "load_capacity" DOUBLE, "fuel_capacity" DOUBLE, "nominal_fuel_consumption" DOUBLE) TIMESTAMP("timestamp") PARTITION BY DAY WAL DEDUP UPSERT KEYS("timestamp", "name", "fleet", "driver", "model", "device_version")
}
