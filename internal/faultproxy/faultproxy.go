// Package faultproxy is a TCP proxy for tests that forwards connections to a
// real server and injects the faults a loader must survive: added latency,
// connections cut in the middle of a request, stalls, and refused connections.
//
// A Proxy listens on 127.0.0.1 only. Faults are switched on and off while
// traffic flows, so a test can cut the connections of a running load:
//
//	p, _ := faultproxy.New("127.0.0.1:8086")
//	defer p.Close()
//	p.CutAfter(64<<10, 3) // the next 3 connections die after 64 KiB upstream
//	// point the loader at "http://" + p.Addr()
package faultproxy

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Proxy forwards TCP connections from Addr() to the target address.
type Proxy struct {
	target string
	ln     net.Listener

	mu      sync.Mutex
	conns   map[*link]struct{}
	latency time.Duration
	refuse  bool
	stalled bool
	unstall chan struct{} // closed when a stall ends
	cutN    int64         // bytes upstream after which a connection is cut
	cutLeft int           // connections still to cut

	accepted atomic.Int64
	refused  atomic.Int64
	cuts     atomic.Int64
	upBytes  atomic.Int64

	wg     sync.WaitGroup
	closed chan struct{}
}

type link struct {
	client, server net.Conn
	cutAt          int64        // 0: never
	open           atomic.Int32 // directions still forwarding
	once           sync.Once
}

func (l *link) close() {
	l.once.Do(func() {
		l.client.Close()
		l.server.Close()
	})
}

// New starts a proxy to target ("host:port") on a free loopback port.
func New(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{
		target:  target,
		ln:      ln,
		conns:   make(map[*link]struct{}),
		unstall: make(chan struct{}),
		closed:  make(chan struct{}),
	}
	close(p.unstall) // not stalled
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's "127.0.0.1:port".
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// SetLatency delays every chunk forwarded in either direction by d.
func (p *Proxy) SetLatency(d time.Duration) {
	p.mu.Lock()
	p.latency = d
	p.mu.Unlock()
}

// Refuse makes the proxy accept and immediately close new connections (on),
// or forward them again (off).
func (p *Proxy) Refuse(on bool) {
	p.mu.Lock()
	p.refuse = on
	p.mu.Unlock()
}

// Stall stops forwarding in both directions (on) until Stall(false): the
// connections stay open and silent, as with a hung server.
func (p *Proxy) Stall(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if on == p.stalled {
		return
	}
	p.stalled = on
	if on {
		p.unstall = make(chan struct{})
	} else {
		close(p.unstall)
	}
}

// CutAfter makes each of the next n new connections be cut (both sides
// closed) once it has forwarded bytes bytes from client to server: a request
// cut off in the middle.
func (p *Proxy) CutAfter(bytes int64, n int) {
	p.mu.Lock()
	p.cutN, p.cutLeft = bytes, n
	p.mu.Unlock()
}

// CutAll closes every open connection now.
func (p *Proxy) CutAll() {
	p.mu.Lock()
	links := make([]*link, 0, len(p.conns))
	for l := range p.conns {
		links = append(links, l)
	}
	p.mu.Unlock()
	for _, l := range links {
		p.cuts.Add(1)
		l.close()
	}
}

// Stats are the proxy's counters.
type Stats struct {
	Accepted, Refused, Cuts, UpstreamBytes int64
}

// Stats returns the counters so far.
func (p *Proxy) Stats() Stats {
	return Stats{
		Accepted:      p.accepted.Load(),
		Refused:       p.refused.Load(),
		Cuts:          p.cuts.Load(),
		UpstreamBytes: p.upBytes.Load(),
	}
}

// Close stops listening, closes every connection and waits for the
// forwarding goroutines to end.
func (p *Proxy) Close() error {
	select {
	case <-p.closed:
		return nil
	default:
	}
	close(p.closed)
	err := p.ln.Close()
	p.Stall(false)
	p.CutAll()
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		refuse := p.refuse
		var cutAt int64
		if !refuse && p.cutLeft > 0 {
			p.cutLeft--
			cutAt = p.cutN
			if cutAt <= 0 {
				cutAt = 1
			}
		}
		p.mu.Unlock()
		if refuse {
			p.refused.Add(1)
			c.Close()
			continue
		}
		s, err := net.DialTimeout("tcp", p.target, 5*time.Second)
		if err != nil {
			p.refused.Add(1)
			c.Close()
			continue
		}
		p.accepted.Add(1)
		l := &link{client: c, server: s, cutAt: cutAt}
		l.open.Store(2)
		p.mu.Lock()
		p.conns[l] = struct{}{}
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(l, c, s, true)
		go p.pipe(l, s, c, false)
	}
}

// pipe copies src to dst chunk by chunk, applying the faults in force.
func (p *Proxy) pipe(l *link, src, dst net.Conn, upstream bool) {
	defer p.wg.Done()
	halfClosed := false
	defer func() {
		if halfClosed && l.open.Add(-1) > 0 {
			return // the other direction still forwards
		}
		l.close()
		p.mu.Lock()
		delete(p.conns, l)
		p.mu.Unlock()
	}()
	buf := make([]byte, 32<<10)
	var sent int64
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			latency, unstall := p.latency, p.unstall
			p.mu.Unlock()
			select {
			case <-unstall:
			case <-p.closed:
				return
			}
			if latency > 0 {
				time.Sleep(latency)
			}
			chunk := buf[:n]
			cut := false
			if upstream && l.cutAt > 0 && sent+int64(n) >= l.cutAt {
				chunk = buf[:l.cutAt-sent]
				cut = true
			}
			if len(chunk) > 0 {
				if _, werr := dst.Write(chunk); werr != nil {
					return
				}
			}
			sent += int64(len(chunk))
			if upstream {
				p.upBytes.Add(int64(len(chunk)))
			}
			if cut {
				p.cuts.Add(1)
				return
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return
			}
			// Half-close: pass the EOF on, keep the other direction open.
			if tc, ok := dst.(*net.TCPConn); ok && tc.CloseWrite() == nil {
				halfClosed = true
			}
			return
		}
	}
}
