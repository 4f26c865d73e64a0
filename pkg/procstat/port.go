package procstat

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// ErrNotListening is returned (wrapped) when no local socket listens on
// the port: the server runs elsewhere (another host, container or network
// namespace).
var ErrNotListening = errors.New("no local process listens on the port")

// tcpListen is the st value of a listening socket in /proc/net/tcp.
const tcpListen = "0A"

// ListeningPID returns the pid of the process that holds a socket
// listening on TCP port (any local address, IPv4 or IPv6). When several
// processes hold it (a forking server's children inherit the socket), the
// one whose parent does not hold it too is returned: the tree's root.
func (fs FS) ListeningPID(port int) (int, error) {
	inodes := map[string]bool{}
	for _, f := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(fs.path("net", f))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // no IPv6
			}
			return 0, err
		}
		if err := listeners(b, port, inodes); err != nil {
			return 0, fmt.Errorf("%s: %w", fs.path("net", f), err)
		}
	}
	if len(inodes) == 0 {
		return 0, fmt.Errorf("port %d: %w", port, ErrNotListening)
	}
	d, err := os.Open(fs.path())
	if err != nil {
		return 0, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return 0, err
	}
	holders := map[int]bool{}
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid <= 0 {
			continue
		}
		if fs.holds(n, inodes) {
			holders[pid] = true
		}
	}
	var r reader
	best := 0
	for pid := range holders {
		b, err := r.read(fs.path(strconv.Itoa(pid), "stat"))
		if err != nil {
			continue
		}
		var p Proc
		if parseStat(b, &p) != nil || holders[p.PPID] {
			continue
		}
		if best == 0 || pid < best {
			best = pid
		}
	}
	if best == 0 {
		// The socket exists but its holder's fds are not readable (another
		// user's process, without the privilege).
		return 0, fmt.Errorf("port %d: a socket listens but no readable /proc/<pid>/fd holds it", port)
	}
	return best, nil
}

// holds reports whether process dir has an fd linked to one of the socket
// inodes.
func (fs FS) holds(dir string, inodes map[string]bool) bool {
	fdDir := fs.path(dir, "fd")
	d, err := os.Open(fdDir)
	if err != nil {
		return false
	}
	fds, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return false
	}
	for _, fd := range fds {
		l, err := os.Readlink(fdDir + "/" + fd)
		if err != nil || len(l) < 9 || l[:8] != "socket:[" || l[len(l)-1] != ']' {
			continue
		}
		if inodes[l[8:len(l)-1]] {
			return true
		}
	}
	return false
}

// listeners adds the inodes of the sockets in a /proc/net/tcp{,6} table
// that listen on port.
func listeners(b []byte, port int, inodes map[string]bool) error {
	lines := bytes.Split(b, []byte("\n"))
	for i, line := range lines {
		f := bytes.Fields(line)
		if i == 0 || len(f) == 0 {
			continue // the header
		}
		if len(f) < 10 {
			return fmt.Errorf("line %d: %d fields, want at least 10", i+1, len(f))
		}
		_, hexPort, ok := bytes.Cut(f[1], []byte(":"))
		if !ok {
			return fmt.Errorf("line %d: local address %q has no port", i+1, f[1])
		}
		p, err := strconv.ParseUint(string(hexPort), 16, 16)
		if err != nil {
			return fmt.Errorf("line %d: port %q: %w", i+1, hexPort, err)
		}
		if int(p) == port && string(f[3]) == tcpListen {
			inodes[string(f[9])] = true
		}
	}
	return nil
}
