package pgcopy

import "fmt"

// Header flag bits (PostgreSQL's COPY binary format): bit 16 says the
// tuples carry OIDs; bits 17-31 are critical (a reader must refuse a bit it
// does not know); bits 0-15 are backwards-compatible and ignored, as
// PostgreSQL's own COPY FROM ignores them.
const (
	FlagOIDs     = 1 << 16
	flagCritical = 0xffff << 16
)

// CheckFlags returns why a header's flags field cannot be read, or nil.
func CheckFlags(flags uint32) error {
	switch {
	case flags&FlagOIDs != 0:
		return fmt.Errorf("pgcopy flags %#x: bit 16 (OIDs in the tuples) is not supported", flags)
	case flags&flagCritical != 0:
		return fmt.Errorf("pgcopy flags %#x: unknown critical flag bits %#x (bits 17-31)", flags, flags&flagCritical)
	}
	return nil
}
