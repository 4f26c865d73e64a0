package loadtest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"
)

// UniqueDB returns a database name of the test's own: tsload_, the test's
// name in lower case with anything but [a-z0-9] made '_' and cut to 40
// bytes, and a number from the clock.
func UniqueDB(t testing.TB) string {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, strings.ToLower(t.Name()))
	if len(name) > 40 {
		name = name[:40]
	}
	return fmt.Sprintf("tsload_%s_%d", name, time.Now().UnixNano()%1e9)
}

// FreePortRun finds a port p with p-below to p+above free as well, for a
// private server that listens on several ports next to each other. It
// looks below Linux's default ephemeral range (32768-60999), where the
// local end of an outgoing connection could take a port between the check
// and the server's bind.
func FreePortRun(below, above int) (int, error) {
	for try := 0; try < 100; try++ {
		p := 20001 + rand.IntN(12000)
		free := true
		for q := p - below; q <= p+above && free; q++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", q))
			if err != nil {
				free = false
				continue
			}
			l.Close()
		}
		if free {
			return p, nil
		}
	}
	return 0, errors.New("no free run of ports")
}
