package redact_test

import (
	"fmt"

	"github.com/tsload/tsload/pkg/redact"
)

func ExampleFlags() {
	flags := redact.Flags(map[string]string{
		"password": "quest",
		"postgres": "postgres://admin:quest@db:5432/bench",
		"conf":     "https::addr=db:9000;username=admin;password=quest;",
	})
	fmt.Println(flags["password"])
	fmt.Println(flags["postgres"])
	fmt.Println(flags["conf"])
	// Output:
	// REDACTED
	// postgres://admin:REDACTED@db:5432/bench
	// https::addr=db:9000;username=admin;password=REDACTED;
}
