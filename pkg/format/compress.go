package format

import "encoding/binary"

// Compressed output (docs/formats.md, "Compression").
//
// A gzip member written by tsload declares its own compressed size in an
// extra header subfield (RFC 1952 FEXTRA), "TL" with 4 bytes little-endian:
// the whole member, header and trailer included. A reader finds the next
// member from it without inflating this one, and so can decode members in
// parallel; other gzip readers skip the subfield.
var GzipSizeSubfield = [2]byte{'T', 'L'}

// GzipSizeExtra is the extra field of a member of size bytes.
func GzipSizeExtra(size uint32) []byte {
	b := []byte{GzipSizeSubfield[0], GzipSizeSubfield[1], 4, 0, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(b[4:], size)
	return b
}

// gzipSizeAt is where the size sits in a member whose header has only the
// extra field (no name or comment): 10 fixed bytes, XLEN, the subfield's
// id and length.
const gzipSizeAt = 10 + 2 + 4

// SetGzipMemberSize writes len(member) into the size subfield of a member
// written with GzipSizeExtra(0) as its only optional header field.
func SetGzipMemberSize(member []byte) {
	binary.LittleEndian.PutUint32(member[gzipSizeAt:], uint32(len(member)))
}

// ZstdMagic is the first four bytes of a zstd frame (RFC 8878), little-endian.
const ZstdMagic = 0xFD2FB528

// DefaultZstdLevel is the zstd level tsload writes with: the library's
// default (about zstd -3).
const DefaultZstdLevel = 3
