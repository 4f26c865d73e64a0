package faultproxy

import (
	"bytes"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// sink is a server that records what each connection sent and echoes it.
type sink struct {
	ln   net.Listener
	mu   sync.Mutex
	got  [][]byte
	done chan struct{}
}

func newSink(t *testing.T) *sink {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &sink{ln: ln, done: make(chan struct{}, 16)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var buf bytes.Buffer
				_, _ = io.Copy(io.MultiWriter(&buf, c), c)
				s.mu.Lock()
				s.got = append(s.got, buf.Bytes())
				s.mu.Unlock()
				s.done <- struct{}{}
			}()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return s
}

func (s *sink) wait(t *testing.T) []byte {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		t.Fatal("server connection did not end")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.got[len(s.got)-1]
}

func newProxy(t *testing.T, s *sink) *Proxy {
	t.Helper()
	p, err := New(s.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestForwardsBothWays(t *testing.T) {
	s := newSink(t)
	p := newProxy(t, s)
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	msg := bytes.Repeat([]byte("0123456789"), 10000)
	go func() {
		c.Write(msg)
		c.(*net.TCPConn).CloseWrite()
	}()
	back, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, msg) {
		t.Fatalf("echo: got %d bytes, want %d", len(back), len(msg))
	}
	if got := s.wait(t); !bytes.Equal(got, msg) {
		t.Fatalf("server got %d bytes, want %d", len(got), len(msg))
	}
	if st := p.Stats(); st.Accepted != 1 || st.UpstreamBytes != int64(len(msg)) || st.Cuts != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestCutAfterDeliversExactlyThePrefix(t *testing.T) {
	s := newSink(t)
	p := newProxy(t, s)
	p.CutAfter(1000, 1)
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	msg := bytes.Repeat([]byte("x"), 50000)
	c.Write(msg) // may fail part-way: the proxy cut it
	if got := s.wait(t); len(got) != 1000 {
		t.Fatalf("server got %d bytes before the cut, want 1000", len(got))
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(c); err != nil {
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatal("client connection still open after the cut")
		}
	}
	if p.Stats().Cuts != 1 {
		t.Fatalf("cuts = %d, want 1", p.Stats().Cuts)
	}
	// The cut applied to one connection only: the next one forwards whole.
	c2, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	c2.Write(msg)
	c2.(*net.TCPConn).CloseWrite()
	io.ReadAll(c2)
	if got := s.wait(t); len(got) != len(msg) {
		t.Fatalf("second connection: server got %d bytes, want %d", len(got), len(msg))
	}
}

func TestRefuseClosesNewConnections(t *testing.T) {
	s := newSink(t)
	p := newProxy(t, s)
	p.Refuse(true)
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := c.Read(make([]byte, 1))
	if n != 0 || err == nil {
		t.Fatalf("refused connection read %d, %v; want EOF or reset", n, err)
	}
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("refused connection was left open")
	}
	if p.Stats().Refused != 1 {
		t.Fatalf("refused = %d", p.Stats().Refused)
	}
	p.Refuse(false)
	c2, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	c2.Write([]byte("hi"))
	c2.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 2)
	if _, err := io.ReadFull(c2, buf); err != nil || string(buf) != "hi" {
		t.Fatalf("after Refuse(false): %q, %v", buf, err)
	}
	c2.Close()
}

func TestStallHoldsDataUntilReleased(t *testing.T) {
	s := newSink(t)
	p := newProxy(t, s)
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p.Stall(true)
	c.Write([]byte("ping"))
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if n, err := c.Read(make([]byte, 4)); n != 0 || err == nil {
		t.Fatalf("stalled proxy forwarded: n=%d err=%v", n, err)
	}
	p.Stall(false)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 4)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("after stall: %q, %v", buf, err)
	}
}

func TestLatencyDelaysForwarding(t *testing.T) {
	s := newSink(t)
	p := newProxy(t, s)
	p.SetLatency(150 * time.Millisecond)
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	c.Write([]byte("a"))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(c, make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	// One chunk up and one down, each delayed.
	if el := time.Since(start); el < 300*time.Millisecond {
		t.Fatalf("round trip took %v, want at least 300ms of injected latency", el)
	}
}

func TestCutAllClosesOpenConnections(t *testing.T) {
	s := newSink(t)
	p := newProxy(t, s)
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("a"))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	io.ReadFull(c, make([]byte, 1))
	p.CutAll()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("connection still open after CutAll")
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("connection still open after CutAll")
	}
	s.wait(t)
}
